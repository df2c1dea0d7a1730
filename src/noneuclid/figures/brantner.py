"""Brantner's figures: the training curves of Fig. 3a/3b beside the authors' and the drift of the Stiefel
projections from orthonormality, drawn from the frames report.brantner and report.brantner_evaluated make,
with the setups' labels and colours and the claim's bound they pass (claims/brantner.yaml's)."""

from __future__ import annotations

import functools
import math
from pathlib import Path

import numpy as np
import pandas as pd

from noneuclid import figures, prose

STYLES = {"geodesic": "-", "cayley": "--"}  # retraction -> line style
UNIFORM_LOSS = math.sqrt(0.9)  # every class 1/10
text = functools.partial(prose.fill, "brantner")


def fig3(runs, curves, setups: dict, title: str, out: Path, theirs: dict | None = None) -> None:
    """Our training curves of `setups` (name -> its label and color) and, when given, the authors' (dashed,
    log epoch axis, our epochs shaded)."""
    with figures.axes(out, (6.2, 4.0)) as ax:
        for setup in (s for s in setups if (runs.setup == s).any()):
            c, ref = curves[curves.setup == setup], setups[setup]
            ax.plot(c.epoch, c.train_loss, label=text("fig3_ours", **ref), color=ref["color"])
        for ref, curve in ((setups[s], theirs[s]) for s in setups if theirs):
            x = np.arange(1, len(curve) + 1)
            ax.plot(x, curve, ls="--", lw=1, color=ref["color"], label=text("fig3_authors", **ref))
        if theirs:
            ran = int(runs[runs.setup.isin(setups)].epochs.max())
            ax.axvspan(1, ran, color="grey", alpha=0.12, lw=0, label=text("fig3_epochs_run"))
            ax.set_xscale("log")
        ax.axhline(UNIFORM_LOSS, ls=":", color="grey", lw=1)
        ax.text(ax.get_xlim()[0], UNIFORM_LOSS, text("fig3_uniform"), va="bottom", fontsize=7, color="grey")
        ax.set(xlabel=text("fig3_epoch_log" if theirs else "fig3_epoch"), ylabel=text("fig3_loss"), title=title)
        ax.legend(fontsize=7)


def drift(ours: pd.DataFrame, authors: pd.DataFrame, stem: Path, optimizers: dict, bound: float) -> None:
    """max_dev against steps (log y): ours per optimizer (`optimizers`: name -> its label and color) and
    retraction (mean over seeds, their range shaded), the authors' networks as stars, the claim's `bound`
    dotted."""
    with figures.axes(stem, (6.4, 4.2)) as ax:
        for (name, retraction), runs in ours.groupby(["optimizer", "retraction"], sort=False):
            by_step, seeds, optimizer = runs.groupby("step").max_dev, runs.seed.nunique(), optimizers[name]
            label = text("drift_ours", **optimizer, retraction=retraction, seeds=seeds, s="s" * (seeds > 1))
            ax.plot(
                by_step.mean().index, by_step.mean(), STYLES[retraction], color=optimizer["color"], lw=1.2, label=label
            )
            if seeds > 1:
                ax.fill_between(
                    by_step.min().index, by_step.min(), by_step.max(), color=optimizer["color"], alpha=0.15, lw=0
                )
        for row in authors.itertuples():
            optimizer = optimizers[row.optimizer]
            label = text("drift_authors", **optimizer, file=row.file)
            ax.plot(row.step, row.max_dev, "*", ms=11, color=optimizer["color"], markeredgecolor="black", label=label)
        ax.axhline(bound, ls=":", color="black", lw=1)
        ax.text(0, bound, text("drift_bound", bound=bound), va="bottom", fontsize=7)
        ax.set(yscale="log", xlabel=text("drift_step"), ylabel=text("drift_dev"), title=text("drift_figure_title"))
        ax.legend(fontsize=6.5, loc="upper left")
