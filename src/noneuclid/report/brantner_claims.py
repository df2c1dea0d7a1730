"""Brantner's claims (claims/brantner.yaml, its four setups and the orthonormality bound read from it) judged:
the cells of the runs on one value per seed, the drift and timing cells from the CSVs `python -m
noneuclid.evaluate` writes into results/brantner/<profile>/; the prose of templates/brantner.md."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pandas as pd
from omegaconf import DictConfig

from noneuclid import prose
from noneuclid.claims import data as claims_data, engine
from noneuclid.config import compose
from noneuclid.report import table_engine

CLAIMS = claims_data.load("brantner")
SETUPS = CLAIMS.labels["setups"]  # the paper's four runs -> their names
AUTHORS = CLAIMS.references["authors_run"].values  # setup -> the authors' run: accuracy, loss, their files' k
OPTIMIZERS = CLAIMS.labels["optimizers"]  # drift.csv's adam, momentum, gd -> their names
BOUND = next(c.bound for c in CLAIMS["orthonormality_to_machine_precision"].cells if c.arms[0].startswith("drift_"))
BASE = "adam_euclidean"  # the setup the times are over (the ratios of brantner_tables.yaml: @base)
TIMINGS = {
    "stiefel_epoch_time_on_par_cpu": ("timing.csv", "cpu"),  # claim -> the file of its timing, the device
    "stiefel_epoch_time_gap_gpu": ("timing_gpu.csv", "cuda"),
}
text = functools.partial(prose.fill, "brantner")  # a section of templates/brantner.md, its fields filled in


def read(out: Path | None, name: str) -> pd.DataFrame | None:
    """out/<name>; None where `out` is None or the file is missing."""
    return pd.read_csv(out / name) if out is not None and (out / name).is_file() else None


def verdicts(per_seed: pd.DataFrame, out: Path | None = None) -> list[engine.Verdict]:
    """Every claim cell: the drift, authors' and timing cells from the CSVs in `out` (`evaluated`), the others
    from one value per seed of the runs (per_seed: one row per run and setup)."""
    cells = [(claim, cell) for claim in CLAIMS.claims for cell in claim.cells]
    return [evaluated(claim, cell, out) or _verdict(claim, cell, per_seed) for claim, cell in cells]


def _verdict(claim, cell, per_seed: pd.DataFrame) -> engine.Verdict:
    """The cell judged on one value per seed of its arms' runs (paired: the seeds both arms have)."""
    if not len(per_seed):  # no runs: every arm without values
        per_seed = pd.DataFrame(columns=["setup", "seed", claim.metric])
    arms = [per_seed[per_seed.setup == arm].sort_values("seed") for arm in cell.arms]
    if cell.paired:
        arms = [runs[runs.seed.isin(set.intersection(*(set(r.seed) for r in arms)))] for runs in arms]
    values, names = [list(runs[claim.metric]) for runs in arms], [name for runs in arms for name in runs.get("run", [])]
    return engine.judge(claim, cell, *values, paired=cell.paired, runs=names)


def evaluated(claim, cell, out: Path | None) -> engine.Verdict | None:
    """The cell judged from out's CSVs: drift_<optimizer> (per seed, the max at the paper's last step and
    retraction), authors_<optimizer> (one exact value within float32_rounding(N), N the projections' rows:
    model.dim of the paper's run) and the timing cells (timing_verdict); None for the others."""
    kind, name = cell.arms[0].split("_", 1)
    if kind in ("drift", "authors"):
        ours, authors, paper = read(out, "drift.csv"), read(out, "drift_authors.csv"), paper_run(f"{name}_stiefel")
        if ours is None or authors is None:
            return engine.untestable(claim, cell, text("no_drift"))
        if kind == "authors":
            value = float(authors.loc[authors.optimizer == name, "max_dev"].iloc[0])
            return engine.judge_exact(claim, cell, value, float32_rounding(paper.model.dim))
        runs = ours[(ours.optimizer == name) & (ours.retraction == paper.optim.retraction)]
        paper_steps = int(authors.step.iloc[0])
        if (last := int(runs.step.max())) != paper_steps:
            return engine.untestable(claim, cell, text("drift_steps", last=last, steps=paper_steps))
        return engine.judge(claim, cell, list(runs[runs.step == last].sort_values("seed").max_dev))
    return timing_verdict(claim, cell, out) if claim.id in TIMINGS else None


def timing_verdict(claim, cell, out: Path | None) -> engine.Verdict:
    """The cell judged from its claim's timing file (TIMINGS): per round, an arm's seconds per step over
    Euclidean Adam's mean over the rounds, the cell's two arms paired by round where the cell says so."""
    name, device = TIMINGS[claim.id]
    if (timing := read(out, name)) is None:
        return engine.untestable(claim, cell, text(f"no_timing_{device}"))
    found = {key: sorted(set(timing[key])) for key in ("arm", "device", "processor", "threads")}
    one_setting = found["device"] == [device] and len(found["processor"]) == len(found["threads"]) == 1
    if not one_setting or not {*cell.arms, BASE} <= set(found["arm"]):
        return engine.untestable(
            claim, cell, text("timing_setting", precondition=claim.precondition, file=name, **found)
        )
    per_round = timing.pivot(index="repeat", columns="arm", values="seconds_per_step")  # round x arm
    a, b = (list(per_round[arm] / per_round[BASE].mean()) for arm in cell.arms)
    return engine.judge(claim, cell, a, b, paired=cell.paired)


@functools.cache
def paper_run(setup: str) -> DictConfig:
    """The settings of the paper's run of `setup`: `python -m noneuclid.train profile=paper
    variant=brantner/<setup>` composed (its epochs: the paper's 500, configs/trainer/default.yaml)."""
    return compose(["profile=paper", f"variant=brantner/{setup}"])


def summarised(table: str, frame: pd.DataFrame) -> pd.DataFrame:
    """Table `table` of claims/brantner_tables.yaml summarised from `frame` (table_engine.summarised), its
    expressions given @base, @bound (the orthonormality claim's) and @paper_epochs (those of the paper's runs)."""
    epochs = paper_run(BASE).trainer.epochs
    return table_engine.summarised("brantner", table, frame, base=BASE, bound=BOUND, paper_epochs=epochs)


def float32_rounding(n: int) -> float:
    """gamma_n = n u / (1 - n u), u = 2^-24: the rounding bound of a float32 inner product of length n."""
    u = float(np.finfo(np.float32).eps) / 2
    return n * u / (1 - n * u)
