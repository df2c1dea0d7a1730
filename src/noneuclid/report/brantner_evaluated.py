"""Brantner's drift and timing tables and claim cells, from the CSVs `python -m noneuclid.evaluate` writes
into results/brantner/<profile>/ (drift.csv, drift_authors.csv, drift_one_step.csv, timing.csv and, from a
GPU machine, timing_gpu.csv)."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pandas as pd

from noneuclid import tables
from noneuclid.claims import engine
from noneuclid.config import compose
from noneuclid.figures import brantner as drawn
from noneuclid.report import table_engine
from noneuclid.report.brantner_claims import BOUND, OPTIMIZERS, text

BASE = "adam_euclidean"  # the arm the timings are over
TIMINGS = {
    "stiefel_epoch_time_on_par_cpu": ("timing.csv", "cpu"),  # claim -> the file of its timing, the device
    "stiefel_epoch_time_gap_gpu": ("timing_gpu.csv", "cuda"),
}


def read(out: Path | None, name: str) -> pd.DataFrame | None:
    """out/<name>; None where `out` is None or the file is missing."""
    return pd.read_csv(out / name) if out is not None and (out / name).is_file() else None


def verdict(claim, cell, out: Path | None) -> engine.Verdict | None:
    """The cell judged from out's CSVs: drift_<optimizer> (per seed, the max at the paper's last step and
    retraction), authors_<optimizer> (one exact value within float32_rounding(N)) and the timing cells
    (timing_verdict); None for the others."""
    kind, name = cell.arms[0].split("_", 1)
    if kind in ("drift", "authors"):
        ours, authors, (retraction, rows) = read(out, "drift.csv"), read(out, "drift_authors.csv"), paper_settings(name)
        if ours is None or authors is None:
            return engine.untestable(claim, cell, text("no_drift"))
        if kind == "authors":
            value = float(authors.loc[authors.optimizer == name, "max_dev"].iloc[0])
            return engine.judge_exact(claim, cell, value, float32_rounding(rows))
        runs, paper_steps = ours[(ours.optimizer == name) & (ours.retraction == retraction)], int(authors.step.iloc[0])
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
    one_setting = set(timing.device) == {device} and timing.processor.nunique() == 1 and timing.threads.nunique() == 1
    if not one_setting or not {*cell.arms, BASE} <= set(timing.arm):
        return engine.untestable(
            claim,
            cell,
            text(
                "timing_setting",
                precondition=claim.precondition,
                file=name,
                arms=sorted(set(timing.arm)),
                devices=sorted(set(timing.device)),
                processors=sorted(set(timing.processor)),
                threads=sorted(set(timing.threads)),
            ),
        )
    per_round = timing.pivot(index="repeat", columns="arm", values="seconds_per_step")  # round x arm
    a, b = (list(per_round[arm] / per_round[BASE].mean()) for arm in cell.arms)
    return engine.judge(claim, cell, a, b, paired=cell.paired)


@functools.cache
def paper_settings(optimizer: str) -> tuple[str, int]:
    """The retraction and the projections' rows N (model.dim) of the paper's run of `optimizer`."""
    cfg = compose(["profile=paper", f"variant=brantner/{optimizer}_stiefel"])
    return cfg.optim.retraction, cfg.model.dim


def float32_rounding(n: int) -> float:
    """gamma_n = n u / (1 - n u), u = 2^-24: the rounding bound of a float32 inner product of length n."""
    u = float(np.finfo(np.float32).eps) / 2
    return n * u / (1 - n * u)


def drift_section(out: Path) -> str:
    """Draw drift and write drift_summary (per optimizer and retraction at the last step, max and median over
    the projections: mean and range over seeds, the authors' and the bound) and drift_one_step (the change of
    YᵀY in one update over the samples) in `out` from its CSVs; their part of summary.md ("" without)."""
    if (ours := read(out, "drift.csv")) is None or (authors := read(out, "drift_authors.csv")) is None:
        return ""
    drawn.drift(ours, authors, out / "drift", OPTIMIZERS, BOUND)
    data = (
        ours[ours.step == ours.step.max()]
        .groupby(["optimizer", "retraction", "section"], sort=False)
        .agg(
            seeds=("seed", "nunique"),
            step=("step", "first"),
            max_dev_mean=("max_dev", "mean"),
            max_dev_min=("max_dev", "min"),
            max_dev_max=("max_dev", "max"),
            median_dev_mean=("median_dev", "mean"),
        )
        .reset_index()
        .merge(
            authors[["optimizer", "max_dev", "median_dev"]].rename(
                columns={"max_dev": "authors_max_dev", "median_dev": "authors_median_dev"}
            ),
            on="optimizer",
        )
        .assign(bound=BOUND)
    )
    shown = table_engine.displayed(
        "brantner", "drift_summary", data.assign(optimizer=[OPTIMIZERS[o]["label"] for o in data.optimizer])
    )
    caption = text("drift_caption", projections=authors.projections.iloc[0], steps=ours.step.max())
    section = tables.section(out, "drift_summary", data, shown, text("drift_title"), caption)
    return section + "\n![drift](drift.png)\n" + _one_step_section(out)


def _one_step_section(out: Path) -> str:
    """drift_one_step (the change of YᵀY in one update over the samples) in `out` from its CSV, with a leading
    newline ("" without)."""
    if (steps := read(out, "drift_one_step.csv")) is None:
        return ""
    shown = table_engine.displayed("brantner", "drift_one_step", steps)
    caption = text("one_step_caption", samples=steps.samples.iloc[0], lr=steps.lr.iloc[0])
    return "\n" + tables.section(out, "drift_one_step", None, shown, text("one_step_title"), caption)


def timing_section(out: Path) -> str:
    """Write timing_summary and timing_gpu_summary in `out` from timing.csv and timing_gpu.csv (per arm,
    seconds per step: mean, s.d.; per epoch; the ratio to Euclidean Adam's mean); their part of summary.md
    ("" without either file)."""
    parts = []
    for claim, (name, device) in TIMINGS.items():
        if (timing := read(out, name)) is None:
            continue
        data = (
            timing.groupby("arm", sort=False)
            .agg(
                rounds=("repeat", "nunique"),
                steps=("steps", "first"),
                steps_per_epoch=("steps_per_epoch", "first"),
                seconds_per_step_mean=("seconds_per_step", "mean"),
                seconds_per_step_sd=("seconds_per_step", "std"),
            )
            .reset_index()
        )
        data = data.assign(
            seconds_per_epoch=data.seconds_per_step_mean * data.steps_per_epoch,
            ratio_to_base=data.seconds_per_step_mean / data.set_index("arm").seconds_per_step_mean[BASE],
        )
        shown = table_engine.displayed("brantner", "timing", data)
        caption = text(
            f"timing_caption_{device}",
            rounds=timing.repeat.nunique(),
            threads=timing.threads.iloc[0],
            processor=timing.processor.iloc[0],
            claim=claim,
        )
        parts.append(
            tables.section(
                out, name.removesuffix(".csv") + "_summary", data, shown, text(f"timing_title_{device}"), caption
            )
        )
    return "\n".join(parts)
