"""Finding the run folder of a run that another run reads (e.g. the Poincare embedding a Table 2
classifier classifies): the config it would have, composed, gives its exact folder name."""

from __future__ import annotations

import argparse
from pathlib import Path

from noneuclid.config import compose
from noneuclid.runs.folder import RunDir


def finished_run(overrides: list[str], what: str) -> Path:
    """The folder of the finished run of `python -m noneuclid.train <overrides>`; when it is not
    finished, FileNotFoundError naming `what` and the command that trains it."""
    run = RunDir(compose(overrides))
    if not run.done:
        command = " ".join(o for o in overrides if not o.startswith("paths."))
        raise FileNotFoundError(f"no finished {what} in {run.path}: train it first with python -m noneuclid.train {command}")
    return run.path


def poincare_embedding(profile: str, dim: int, hierarchy: str, seed: int, device: str, overrides=()) -> list[str]:
    """The overrides of the Poincare-embedding run that a Table 2 classifier of these settings reads:
    `experiment=hnn/poincare` in `dim` dimensions of the same hierarchy, profile and device, seed
    data.embedding_seed and data.embedding_overrides (the paths are the caller's)."""
    return ["experiment=hnn/poincare", f"profile={profile}", f"model.dim={dim}", f"data.hierarchy={hierarchy}",
            f"seed={seed}", f"trainer.device={device}", *overrides]


def seed_list(text: str) -> list[int]:
    """'0,2,5-7' -> [0, 2, 5, 6, 7]."""
    seeds = []
    for part in text.split(","):
        first, _, last = part.partition("-")
        try:
            seeds += range(int(first), int(last or first) + 1)
        except ValueError:
            raise argparse.ArgumentTypeError(f"seeds are integers and ranges a-b, comma-separated (got {text!r})")
    return seeds
