"""Where metrics go besides the run folder: nowhere (logger=local) or Weights & Biases (logger=wandb)."""

from __future__ import annotations

import os

from omegaconf import OmegaConf


class LocalLogger:
    """The run folder's metrics.jsonl is always written by the trainer; this logger adds nothing."""

    def log(self, row: dict) -> None:
        pass

    def finish(self, exit_code: int = 0) -> None:
        pass


class WandbLogger:
    """One W&B run per run folder: group = paper/experiment, name = the folder's name, tags = paper and
    profile, config = the resolved config as a plain dict. Offline (synced later with `make sync`)
    when no API key is configured, so it never waits for a network."""

    def __init__(self, cfg, run_dir):
        import wandb

        mode = cfg.logger.mode or ("online" if _has_wandb_key() else "offline")
        self._run = wandb.init(
            project=cfg.logger.project,
            entity=cfg.logger.entity,
            group=f"{cfg.study.paper}/{cfg.experiment_name}",
            name=run_dir.name,
            id=run_dir.file("wandb_id").read_text().strip(),
            resume="allow",
            tags=[cfg.study.paper, cfg.profile.name],
            config=OmegaConf.to_container(cfg, resolve=True),
            dir=str(run_dir.path),
            mode=mode,
            settings=wandb.Settings(silent=True),
        )

    def log(self, row: dict) -> None:
        self._run.log(row, step=row["epoch"])

    def finish(self, exit_code: int = 0) -> None:
        self._run.finish(exit_code=exit_code)


def _has_wandb_key() -> bool:
    if os.environ.get("WANDB_API_KEY"):
        return True
    netrc = os.path.expanduser("~/.netrc")
    return os.path.exists(netrc) and "api.wandb.ai" in open(netrc).read()


def build(cfg, run_dir):
    if cfg.logger.name == "local":
        return LocalLogger()
    if cfg.logger.name == "wandb":
        return WandbLogger(cfg, run_dir)
    raise ValueError(f"unknown logger {cfg.logger.name!r}: choose logger=local or logger=wandb")
