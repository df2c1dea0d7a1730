"""Brantner's CPU epoch times from timing.csv (written by `python -m noneuclid.evaluate timing`: the four
arms timed in interleaved rounds), as the table timing_summary (CSV, Markdown, LaTeX) and the cells of
the claim stiefel_epoch_time_on_par_cpu: per round r, an arm's seconds per step over the mean seconds
per step of the cell's second arm (Euclidean Adam), the two arms paired by round (claims/brantner.yaml).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from noneuclid.claims import engine
from noneuclid.report import prose, tables


def load(out: Path | None) -> pd.DataFrame | None:
    """out/timing.csv, None where it is missing."""
    return pd.read_csv(out / "timing.csv") if out is not None and (out / "timing.csv").is_file() else None


def ratios(timing: pd.DataFrame, arm: str, base: str) -> pd.Series:
    """Per round (index), arm's seconds per step over base's mean over the rounds."""
    per_round = timing.pivot(index="repeat", columns="arm", values="seconds_per_step")
    return per_round[arm] / per_round[base].mean()


def verdict(claim, cell, out: Path | None) -> engine.Verdict:
    """The verdict of a CPU timing cell (arms [a, Euclidean Adam]) from out/timing.csv."""
    timing = load(out)
    if timing is None:
        return engine.untestable(claim, cell, "no timing.csv: run `python -m noneuclid.evaluate timing` on quiet cores")
    if set(timing.device) != {"cpu"} or timing.threads.nunique() != 1 or not set(cell.arms) <= set(timing.arm):
        return engine.untestable(claim, cell, f"{claim.precondition}: timing.csv has devices "
                                 f"{sorted(set(timing.device))}, threads {sorted(set(timing.threads))}, "
                                 f"arms {sorted(set(timing.arm))}")
    a, b = (ratios(timing, arm, cell.arms[1]) for arm in cell.arms)
    return engine.judge(claim, cell, list(a), list(b), paired=cell.paired)


def summary(timing: pd.DataFrame, base: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(data, shown): per arm, seconds per step (mean, s.d., rounds), seconds per epoch and the ratio of
    the means to `base`'s."""
    data = (timing.groupby("arm", sort=False)
            .agg(rounds=("repeat", "nunique"), steps=("steps", "first"), steps_per_epoch=("steps_per_epoch", "first"),
                 seconds_per_step_mean=("seconds_per_step", "mean"), seconds_per_step_sd=("seconds_per_step", "std"))
            .reset_index())
    data["seconds_per_epoch"] = data.seconds_per_step_mean * data.steps_per_epoch
    base_mean = float(data.loc[data.arm == base, "seconds_per_step_mean"].iloc[0])
    data["ratio_to_base"] = data.seconds_per_step_mean / base_mean
    shown = pd.DataFrame({"arm": data.arm, "rounds": data.rounds, "steps per block": data.steps,
                          "s / step": [f"{m:.3f} ± {s:.3f}" for m, s in zip(data.seconds_per_step_mean,
                                                                            data.seconds_per_step_sd)],
                          "s / epoch": data.seconds_per_epoch.map("{:.1f}".format),
                          f"ratio to {base}": data.ratio_to_base.map("{:.3f}".format)})
    return data, shown


def make(out: Path, base: str) -> str:
    """timing_summary.csv/.md/.tex in `out` from timing.csv; returns its section of summary.md ("" without
    timing.csv)."""
    timing = load(out)
    if timing is None:
        return ""
    caption = prose.fill("brantner", "timing_caption", rounds=timing.repeat.nunique(), threads=timing.threads.iloc[0],
                         processor=timing.processor.iloc[0])
    return tables.section(out, "timing_summary", *summary(timing, base), prose.fill("brantner", "timing_title"), caption)
