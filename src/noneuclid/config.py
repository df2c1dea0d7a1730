"""Where the Hydra configs live, the resolvers they use, `compose` for notebooks and tests, and the
sweep values an experiment lists (for the reports that read its runs)."""

from __future__ import annotations

import os
from pathlib import Path

from omegaconf import DictConfig, OmegaConf, open_dict

from noneuclid import extensions

CONFIG_DIR = Path(__file__).resolve().parents[2] / "configs"

# ${pick:flag,yes,no} -> yes if flag else no (used in run names, e.g. stiefel | euclidean)
OmegaConf.register_new_resolver("pick", lambda flag, yes, no: yes if flag else no, replace=True)
# ${choose:key,{a: x, b: y}} -> the value of key in the table (e.g. epochs per model.cell)
OmegaConf.register_new_resolver("choose", lambda key, table: table[key], replace=True)


# ${paper_configs:} -> the configs/ folders of the papers kept outside the package (extensions.py), as Hydra's
# search path (train.yaml's hydra.searchpath): searched after configs/
OmegaConf.register_new_resolver(
    "paper_configs", lambda: [f"file://{root}" for root in extensions.roots("configs")], replace=True
)


def jobs() -> int:
    """How many training processes a parallel sweep runs side by side: $NONEUCLID_JOBS, else one per
    core this process may use."""
    value = os.environ.get("NONEUCLID_JOBS", "").strip()
    if not value:
        return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    if not value.isdigit() or int(value) < 1:
        raise ValueError(
            f"NONEUCLID_JOBS={value!r}: give a whole number of parallel jobs, 1 or more (or unset it for one per core)"
        )
    return int(value)


# ${jobs:} -> jobs() (hydra.launcher.n_jobs of a parallel sweep; not a setting of any run)
OmegaConf.register_new_resolver("jobs", jobs, replace=True)


def compose(overrides: list[str] = (), experiment_name: str = "default") -> DictConfig:
    """The config `python -m noneuclid.train <overrides>` would run (single run, no sweep); also
    from inside a running Hydra app (e.g. for the runs of a stack)."""
    from hydra import compose as hydra_compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra

    if GlobalHydra.instance().is_initialized():
        cfg = hydra_compose(config_name="train", overrides=list(overrides))
    else:
        with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
            cfg = hydra_compose(config_name="train", overrides=list(overrides))
    with open_dict(cfg):
        cfg.experiment_name = experiment_name
    return cfg


def stacked_runs(overrides: list[str], stack: dict, experiment_name: str = "default") -> list[DictConfig]:
    """The configs of the runs that `stack` ({key: [values]}) asks for on top of `overrides`: one per
    combination of values, in order, each with stack=null (the config of the run trained alone)."""
    import itertools

    base = [o for o in overrides if not o.lstrip("+~").startswith("stack")]
    keys = list(stack)
    combos = itertools.product(*(stack[k] for k in keys))
    return [
        compose([*base, *(f"{k}={v}" for k, v in zip(keys, values)), "stack=null"], experiment_name)
        for values in combos
    ]


def sweep_values(experiment: str, key: str) -> list[str]:
    """The values that configs/experiment/<experiment>.yaml sweeps `key` over (hydra.sweeper.params),
    else those of the experiments it extends, as strings, e.g. sweep_values("brantner/section", "seed")
    -> ["0", "1", "2"]."""
    values = _inherited(experiment, lambda cfg: (OmegaConf.select(cfg, "hydra.sweeper.params") or {}).get(key))
    return [] if values is None else [v.strip() for v in str(values).split(",")]


def sweep_params(experiment: str) -> dict[str, list[str]]:
    """Every key that configs/experiment/<experiment>.yaml (else the experiment it extends) sweeps, with
    its values as strings, e.g. sweep_params("brantner/fig3a") -> {"variant": [...], "seed": ["0", "1", "2"]}."""
    params = _inherited(experiment, lambda cfg: OmegaConf.select(cfg, "hydra.sweeper.params")) or {}
    return {key: [v.strip() for v in str(values).split(",")] for key, values in params.items()}


def experiment_value(experiment: str, key: str):
    """What configs/experiment/<experiment>.yaml sets at the dotted `key` (plain Python values), else
    what the experiments it extends set (its defaults list, e.g. hnn/table1), else None; e.g.
    experiment_value("hnn/seeds", "stack.seed") -> [3, 4, ..., 17]."""
    value = _inherited(experiment, lambda cfg: OmegaConf.select(cfg, key))
    return OmegaConf.to_object(value) if OmegaConf.is_config(value) else value


def _inherited(experiment: str, lookup):
    """lookup(the experiment's yaml), else the first not-None lookup of the experiments it extends (its
    defaults list, depth first: "/experiment/hnn/table1" or "hnn/table1"), else None."""
    cfg = _experiment(experiment.removeprefix("/experiment/"))
    value = lookup(cfg)
    for parent in cfg.get("defaults", []):
        if value is not None:
            break
        if isinstance(parent, str) and parent != "_self_":
            value = _inherited(parent, lookup)
    return value


def _experiment(experiment: str) -> DictConfig:
    return OmegaConf.load(experiment_file(experiment))


def experiment_file(experiment: str) -> Path:
    """configs/experiment/<experiment>.yaml: the suite's, else an added paper's (extensions.file)."""
    return extensions.file(CONFIG_DIR, f"experiment/{experiment}.yaml")


def experiments() -> list[str]:
    """Every experiment's name (<paper>/<name>), the suite's and the added papers'."""
    roots = [CONFIG_DIR / "experiment", *(root / "experiment" for root in extensions.roots("configs"))]
    return sorted({str(p.relative_to(root).with_suffix("")) for root in roots for p in root.rglob("*.yaml")})
