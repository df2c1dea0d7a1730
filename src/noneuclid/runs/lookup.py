"""Finding the run folder of a run that another run reads (e.g. the Poincare embedding a Table 2
classifier classifies): the config it would have, composed, gives its exact folder name."""

from __future__ import annotations

import argparse
import copy
import functools
from pathlib import Path

import pandas as pd
import yaml
from omegaconf import OmegaConf

from noneuclid.config import compose, experiment_value
from noneuclid.runs.folder import RunDir
from noneuclid.runs.settings import device_type, digest_settings


def finished_run(overrides: list[str], what: str) -> Path:
    """The folder of the finished run of `python -m noneuclid.train <overrides>`; when it is not
    finished, FileNotFoundError naming `what` and the command that trains it."""
    run = RunDir(compose(overrides))
    if not run.done:
        command = " ".join(o for o in overrides if not o.startswith("paths."))
        raise FileNotFoundError(f"no finished {what} in {run.path}: train it first with python -m noneuclid.train {command}")
    return run.path


def poincare_embedding(profile: str, dim: int, hierarchy: str, seed: int, overrides=()) -> list[str]:
    """The overrides of the Poincare-embedding run that a Table 2 classifier of these settings reads:
    `experiment=hnn/poincare` in `dim` dimensions of the same hierarchy and profile, seed
    data.embedding_seed and data.embedding_overrides (the paths are the caller's). The embedding trains on
    the device its experiment names (the CPU), whichever device the classifier trains on."""
    return ["experiment=hnn/poincare", f"profile={profile}", f"model.dim={dim}", f"data.hierarchy={hierarchy}",
            f"seed={seed}", *overrides]


def embedding_of(row: pd.Series) -> str:
    """The run name of the Poincare embedding a Table 2 classifier's runs.csv row classified: its summary's
    embedding_run, or, for a run from before that was logged, the name the subtree task finds it by
    (runs.lookup.poincare_embedding) on the machine the classifier ran on."""
    if isinstance(row.get("embedding_run"), str):
        return row["embedding_run"]
    overrides = row.get("cfg.data.embedding_overrides")
    overrides = [] if pd.isna(overrides) else yaml.safe_load(str(overrides)) or []
    cuda = not pd.isna(row.get("env.cuda")) and row.get("env.cuda") != ""
    return embedding_name(str(row["cfg.profile.name"]), int(row["cfg.data.dim"]), str(row["cfg.data.hierarchy"]),
                          int(row["cfg.data.embedding_seed"]), tuple(overrides), cuda)


@functools.cache
def embedding_name(profile: str, dim: int, hierarchy: str, seed: int, overrides: tuple, cuda: bool) -> str:
    """The folder name that these overrides give on a machine with (cuda) or without a GPU."""
    cfg = compose(poincare_embedding(profile, dim, hierarchy, seed, overrides))
    device = device_type(cfg.trainer.device, cuda)
    return f"{cfg.study.run_name}-{digest_settings(OmegaConf.to_container(cfg, resolve=True), device)}"


def table2_embeddings(profile: str, cfg, dims) -> dict[int, str]:
    """dim -> the run name of the Poincare embedding that the classifiers of `cfg` (experiment=hnn/table2
    at `profile`, composed) read in each of `dims` (trained on the CPU, whatever machine reads it)."""
    data = cfg.data
    return {dim: embedding_name(profile, dim, data.hierarchy, data.embedding_seed, (), False) for dim in dims}


TABLE2_PROTOCOL = ("data.natural_mix", "data.batch_size", "trainer.epochs", "optim.lr", "optim.ball_lr",
                   "optim.clip_norm", "optim.epoch_lr_factor", "model.offsets", "trainer.converge.patience",
                   "trainer.converge.tol", "trainer.converge.after")  # what makes a Table 2 run today's


def table2_protocols(profile: str) -> dict[str, dict]:
    """model.geometry -> today's TABLE2_PROTOCOL settings of that classifier at `profile` (its step sizes
    and form depend on it)."""
    configs = {g: compose(["experiment=hnn/table2", f"profile={profile}", f"model.geometry={g}"])
               for g in ("hyperbolic", "euclidean", "euclidean_log0")}
    return {g: {key: OmegaConf.select(c, key) for key in TABLE2_PROTOCOL} for g, c in configs.items()}


def trained_with(found: pd.DataFrame, protocols: dict[str, dict]) -> pd.Series:
    """Whether each run (a runs.csv row) has every setting of its classifier's protocol (`protocols`:
    {model.geometry: {key: value}}; None: the key unset) and, where it stops by trainer.converge, stopped on
    its own plateau (`converges`); a classifier without a protocol has none."""
    today = pd.Series(False, index=found.index)
    for geometry, runs in found.groupby("cfg.model.geometry") if "cfg.model.geometry" in found else ():
        if geometry in protocols:
            same = pd.Series(True, index=runs.index)
            for key, value in protocols[geometry].items():
                have = runs.get(f"cfg.{key}", pd.Series(None, index=runs.index, dtype=object))
                same &= have.isna() if value is None else have.eq(value)
            if converges(protocols[geometry]):
                same &= runs.get("own_plateau", pd.Series(None, index=runs.index, dtype=object)).eq(True)
            today[runs.index] = same
    return today


def converges(protocol: dict) -> bool:
    """Whether a Table 2 protocol (table2_protocols) stops its runs by trainer.converge: then a run is
    today's only if its summary says it stopped on its own plateau (own_plateau), not on its stack's (the
    trainer's rule before each run of a stack stopped alone; the settings, and so the run names, are
    the same)."""
    return protocol.get("trainer.converge.patience") is not None


def table1_run_name(profile: str, row: str, data: str, seed: int, overrides) -> str:
    """The run (folder) name of Ganea et al.'s Table 1 model `row` (configs/variant/hnn/<row>.yaml) on
    `data` with `seed` and the training `overrides` (e.g. trainer.dtype=float32)."""
    cfg = copy.deepcopy(table1_config(profile, row, data, tuple(overrides)))
    cfg.seed = seed  # what the override seed=<seed> sets: composing once per cell, not per seed, saves 0.1 s each
    return RunDir(cfg).name


@functools.cache
def table1_config(profile: str, row: str, data: str, overrides: tuple[str, ...]):
    """The composed config of a Table 1 cell (its seed left to the caller)."""
    return compose(["experiment=hnn/table1", f"profile={profile}", f"variant=hnn/{row}", f"data={data}", *overrides])


def table1_seeds(found) -> tuple[int, ...]:
    """Table 1's seeds that have runs in `found` (rows of runs.csv; the smoke profile runs seed 0 only),
    else all of Table 1's (0, 1, 2)."""
    table1 = experiment_value("hnn/table1", "stack.seed")
    return tuple(s for s in table1 if s in {int(x) for x in found["cfg.seed"]}) if len(found) else tuple(table1)


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
