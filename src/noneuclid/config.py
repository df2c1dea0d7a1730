"""Where the Hydra configs live, the resolvers they use, and `compose` for notebooks and tests."""

from __future__ import annotations

from pathlib import Path

from omegaconf import DictConfig, OmegaConf, open_dict

CONFIG_DIR = Path(__file__).resolve().parents[2] / "configs"

# ${pick:flag,yes,no} -> yes if flag else no (used in run names, e.g. stiefel | euclidean)
OmegaConf.register_new_resolver("pick", lambda flag, yes, no: yes if flag else no, replace=True)


def compose(overrides: list[str] = (), experiment_name: str = "default") -> DictConfig:
    """The config `python -m noneuclid.train <overrides>` would run (single run, no sweep)."""
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir

    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = hydra_compose(config_name="train", overrides=list(overrides))
    with open_dict(cfg):
        cfg.experiment_name = experiment_name
    return cfg
