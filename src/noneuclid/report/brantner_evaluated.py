"""Brantner's drift and CPU timing tables and claim cells, from the CSVs `python -m noneuclid.evaluate`
writes into results/brantner/<profile>/ (drift.csv, drift_authors.csv, drift_one_step.csv, timing.csv)."""

from __future__ import annotations

from functools import lru_cache, partial
from pathlib import Path

import numpy as np
import pandas as pd

from noneuclid.claims import data as claims_data, engine
from noneuclid.claims.estimates import plus_minus
from noneuclid.config import compose
from noneuclid.report import figures, prose, tables

SETUPS = {name.removesuffix("_stiefel"): setup  # adam, momentum, gd: their Stiefel setups (claims/brantner.yaml)
          for name, setup in claims_data.load("brantner").reference["setups"].items()}
STYLES = {"geodesic": "-", "cayley": "--"}
DRIFT = ("drift.csv", "drift_authors.csv")
text = partial(prose.fill, "brantner")


def _label(optimizer: str) -> str:
    """Adam, Momentum, Gradient: the optimizer's Stiefel setup's label without the manifold."""
    return SETUPS[optimizer]["label"].removesuffix(" + Stiefel")


def load(out: Path | None, *names: str) -> list[pd.DataFrame] | None:
    """The CSVs `names` in `out`; None where one is missing."""
    files = [out / name for name in names] if out is not None else []
    return [pd.read_csv(f) for f in files] if files and all(f.is_file() for f in files) else None


def figure(ours: pd.DataFrame, authors: pd.DataFrame, bound: float, stem: Path) -> None:
    """max_dev against steps (log y): ours per optimizer and retraction (mean over seeds, their range
    shaded), the authors' networks as stars, the bound dotted."""
    with figures.axes(stem, (6.4, 4.2)) as ax:
        for (name, retraction), runs in ours.groupby(["optimizer", "retraction"], sort=False):
            by_step, seeds, color = runs.groupby("step").max_dev, runs.seed.nunique(), SETUPS[name]["color"]
            ax.plot(by_step.mean().index, by_step.mean(), STYLES[retraction], color=color, lw=1.2,
                    label=f"{_label(name)}, {retraction} (ours, {seeds} seed{'s' * (seeds > 1)})")
            if seeds > 1:
                ax.fill_between(by_step.min().index, by_step.min(), by_step.max(), color=color, alpha=0.15, lw=0)
        for row in authors.itertuples():
            ax.plot(row.step, row.max_dev, "*", ms=11, color=SETUPS[row.optimizer]["color"], markeredgecolor="black",
                    label=f"{_label(row.optimizer)} (authors' network, {row.file})")
        ax.axhline(bound, ls=":", color="black", lw=1)
        ax.text(0, bound, f" the claim's bound, {bound:.3g}", va="bottom", fontsize=7)
        ax.set(yscale="log", xlabel="optimizer step", ylabel="max |YᵀY - I| over the projections",
               title="Orthonormality drift of the attention projections, float32")
        ax.legend(fontsize=6.5, loc="upper left")


def drift_summary(ours: pd.DataFrame, authors: pd.DataFrame, bound: float) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(data, shown): per optimizer and retraction at the last step, max and median over the projections
    (mean and range over seeds), the authors' and the bound."""
    data = (ours[ours.step == ours.step.max()].groupby(["optimizer", "retraction", "section"], sort=False)
            .agg(seeds=("seed", "nunique"), step=("step", "first"), max_dev_mean=("max_dev", "mean"),
                 max_dev_min=("max_dev", "min"), max_dev_max=("max_dev", "max"),
                 median_dev_mean=("median_dev", "mean")).reset_index()
            .merge(authors[["optimizer", "max_dev", "median_dev"]].rename(
                columns={"max_dev": "authors_max_dev", "median_dev": "authors_median_dev"}), on="optimizer")
            .assign(bound=bound))
    shown = data[["optimizer", "retraction", "section", "seeds"]].assign(
        optimizer=data.optimizer.map(_label), step=data.step.map("{:,}".format),
        **{"max (ours)": [f"{m:.2e} [{lo:.2e}, {hi:.2e}]" if s > 1 else f"{m:.2e}" for m, lo, hi, s in
                          zip(data.max_dev_mean, data.max_dev_min, data.max_dev_max, data.seeds)]},
        **{name: data[column].map("{:.2e}".format) for name, column in (
            ("median (ours)", "median_dev_mean"), ("max (authors)", "authors_max_dev"),
            ("median (authors)", "authors_median_dev"), ("bound", "bound"))})
    return data, shown


def one_step(steps: pd.DataFrame) -> pd.DataFrame:
    """drift_one_step.csv shown: median, 99th percentile and max over the samples of |Y_newᵀY_new - YᵀY|."""
    return steps[["update", "complement", "retraction"]].assign(
        **{name: steps[column].map("{:.1e}".format) for name, column in
           (("median", "median_change"), ("99th percentile", "q99_change"), ("max", "max_change"))})


def drift_section(out: Path, bound: float) -> str:
    """Draw drift, drift_summary and drift_one_step in `out` from its CSVs; their part of summary.md ("" without)."""
    if (loaded := load(out, *DRIFT)) is None:
        return ""
    ours, authors = loaded
    figure(ours, authors, bound, out / "drift")
    caption = text("drift_caption", projections=authors.projections.iloc[0], steps=ours.step.max())
    section = tables.section(out, "drift_summary", *drift_summary(ours, authors, bound), text("drift_title"),
                             caption) + "\n![drift](drift.png)\n"
    if (steps := load(out, "drift_one_step.csv")) is None:
        return section
    caption = text("one_step_caption", samples=steps[0].samples.iloc[0], lr=steps[0].lr.iloc[0])
    return section + "\n" + tables.section(out, "drift_one_step", None, one_step(steps[0]), text("one_step_title"),
                                           caption)


def float32_rounding(n: int) -> float:
    """gamma_n = n u / (1 - n u), u = 2^-24: the rounding bound of a float32 inner product of length n."""
    u = float(np.finfo(np.float32).eps) / 2
    return n * u / (1 - n * u)


@lru_cache
def paper_settings(optimizer: str) -> tuple[str, int]:
    """The retraction and the projections' rows N (model.dim) of the paper's run of `optimizer`."""
    cfg = compose(["profile=paper", f"variant=brantner/{optimizer}_stiefel"])
    return cfg.optim.retraction, cfg.model.dim


def drift_verdict(claim, cell, out: Path | None) -> engine.Verdict:
    """A cell of arm drift_<optimizer> (per seed, the max at the paper's last step and retraction) or
    authors_<optimizer> (one exact value within float32_rounding(N)), from out's CSVs."""
    if (loaded := load(out, *DRIFT)) is None:
        return engine.untestable(claim, cell, "no drift.csv and drift_authors.csv: run "
                                 "`python -m noneuclid.evaluate drift`")
    ours, authors = loaded
    kind, name = cell.arms[0].split("_", 1)
    retraction, rows = paper_settings(name)
    if kind == "authors":
        value = float(authors.loc[authors.optimizer == name, "max_dev"].iloc[0])
        return engine.judge_exact(claim, cell, value, float32_rounding(rows))
    runs = ours[(ours.optimizer == name) & (ours.retraction == retraction)]
    last, paper_steps = int(runs.step.max()), int(authors.step.iloc[0])
    if last != paper_steps:
        return engine.untestable(claim, cell, f"drift.csv ends at step {last:,}, not the paper's {paper_steps:,}")
    return engine.judge(claim, cell, list(runs[runs.step == last].sort_values("seed").max_dev))


def timing_verdict(claim, cell, out: Path | None) -> engine.Verdict:
    """A CPU timing cell (arms [a, Euclidean Adam]) from timing.csv: per round, an arm's seconds per step
    over Euclidean Adam's mean, paired by round."""
    if (loaded := load(out, "timing.csv")) is None:
        return engine.untestable(claim, cell, "no timing.csv: run `python -m noneuclid.evaluate timing` on quiet cores")
    timing, = loaded
    if set(timing.device) != {"cpu"} or timing.threads.nunique() != 1 or not set(cell.arms) <= set(timing.arm):
        return engine.untestable(claim, cell, f"{claim.precondition}: timing.csv has devices "
                                 f"{sorted(set(timing.device))}, threads {sorted(set(timing.threads))}, "
                                 f"arms {sorted(set(timing.arm))}")
    per_round = timing.pivot(index="repeat", columns="arm", values="seconds_per_step")  # round x arm
    a, b = (list(per_round[arm] / per_round[cell.arms[1]].mean()) for arm in cell.arms)
    return engine.judge(claim, cell, a, b, paired=cell.paired)


def timing_summary(timing: pd.DataFrame, base: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(data, shown): per arm, seconds per step (mean, s.d.), per epoch and the ratio to `base`'s mean."""
    data = (timing.groupby("arm", sort=False)
            .agg(rounds=("repeat", "nunique"), steps=("steps", "first"), steps_per_epoch=("steps_per_epoch", "first"),
                 seconds_per_step_mean=("seconds_per_step", "mean"), seconds_per_step_sd=("seconds_per_step", "std"))
            .reset_index())
    data["seconds_per_epoch"] = data.seconds_per_step_mean * data.steps_per_epoch
    base_mean = float(data.loc[data.arm == base, "seconds_per_step_mean"].iloc[0])
    data["ratio_to_base"] = data.seconds_per_step_mean / base_mean
    shown = pd.DataFrame({"arm": data.arm, "rounds": data.rounds, "steps per block": data.steps,
                          "s / step": [plus_minus(m, s, fmt=".3f") for m, s in zip(data.seconds_per_step_mean,
                                                                                   data.seconds_per_step_sd)],
                          "s / epoch": data.seconds_per_epoch.map("{:.1f}".format),
                          f"ratio to {base}": data.ratio_to_base.map("{:.3f}".format)})
    return data, shown


def timing_section(out: Path) -> str:
    """Write timing_summary in `out` from timing.csv; its part of summary.md ("" without timing.csv)."""
    if (loaded := load(out, "timing.csv")) is None:
        return ""
    timing, = loaded
    caption = text("timing_caption", rounds=timing.repeat.nunique(), threads=timing.threads.iloc[0],
                   processor=timing.processor.iloc[0])
    return tables.section(out, "timing_summary", *timing_summary(timing, "adam_euclidean"), text("timing_title"),
                          caption)
