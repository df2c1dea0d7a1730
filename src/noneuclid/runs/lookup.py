"""Finding the run folder of a run that another run reads (e.g. the Poincare embedding a Table 2
classifier classifies): the config it would have, composed, gives its exact folder name."""

from __future__ import annotations

import functools
from pathlib import Path

import pandas as pd
import yaml
from omegaconf import OmegaConf

from noneuclid.config import compose
from noneuclid.runs.folder import RunDir
from noneuclid.runs.settings import device_type, digest_settings


def finished_run(overrides: list[str], what: str) -> Path:
    """The folder of the finished run of `python -m noneuclid.train <overrides>`; when it is not
    finished, FileNotFoundError naming `what` and the command that trains it."""
    run = RunDir(compose(overrides))
    if not run.done:
        command = " ".join(o for o in overrides if not o.startswith("paths."))
        raise FileNotFoundError(
            f"no finished {what} in {run.path}: train it first with python -m noneuclid.train {command}"
        )
    return run.path


def poincare_embedding(profile: str, dim: int, hierarchy: str, seed: int, overrides=()) -> list[str]:
    """The overrides of the Poincare-embedding run that a Table 2 classifier of these settings reads:
    `experiment=hnn/poincare` in `dim` dimensions of the same hierarchy and profile, seed
    data.embedding_seed and data.embedding_overrides (the paths are the caller's). The embedding trains on
    the device its experiment names (the CPU), whichever device the classifier trains on."""
    return [
        "experiment=hnn/poincare",
        f"profile={profile}",
        f"model.dim={dim}",
        f"data.hierarchy={hierarchy}",
        f"seed={seed}",
        *overrides,
    ]


def embedding_of(row: pd.Series) -> str:
    """The run name of the Poincare embedding a Table 2 classifier's runs.csv row classified: its summary's
    embedding_run, or, for a run from before that was logged, the name the subtree task finds it by
    (runs.lookup.poincare_embedding) on the machine the classifier ran on."""
    if isinstance(row.get("embedding_run"), str):
        return row["embedding_run"]
    overrides = row.get("cfg.data.embedding_overrides")
    overrides = [] if pd.isna(overrides) else yaml.safe_load(str(overrides)) or []
    cuda = not pd.isna(row.get("env.cuda")) and row.get("env.cuda") != ""
    return embedding_name(
        str(row["cfg.profile.name"]),
        int(row["cfg.data.dim"]),
        str(row["cfg.data.hierarchy"]),
        int(row["cfg.data.embedding_seed"]),
        tuple(overrides),
        cuda,
    )


@functools.cache
def embedding_name(profile: str, dim: int, hierarchy: str, seed: int, overrides: tuple, cuda: bool) -> str:
    """The folder name that these overrides give on a machine with (cuda) or without a GPU."""
    cfg = compose(poincare_embedding(profile, dim, hierarchy, seed, overrides))
    device = device_type(cfg.trainer.device, cuda)
    return f"{cfg.study.run_name}-{digest_settings(OmegaConf.to_container(cfg, resolve=True), device)}"
