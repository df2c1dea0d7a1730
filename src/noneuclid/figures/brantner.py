"""Brantner's figures: the training curves of Fig. 3a/3b beside the authors' and the drift of the Stiefel
projections from orthonormality, drawn from the frames report.brantner and report.brantner_evaluated make,
with the setups' labels, the uniform output's loss and the claim's bound they pass (claims/brantner.yaml's),
in the colours of COLORS."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pandas as pd

from noneuclid import figures, prose

STYLES = {"geodesic": "-", "cayley": "--"}  # retraction -> line style
COLORS = {  # setup -> its colour (in Fig. 3a or 3b; the drift figure's optimizer <o> takes that of <o>_stiefel)
    "adam_euclidean": "tab:blue",
    "adam_stiefel": "tab:orange",
    "gd_stiefel": "tab:blue",
    "momentum_stiefel": "tab:green",
}
text = functools.partial(prose.fill, "brantner")


def fig3(runs, curves, setups: dict, title: str, out: Path, uniform: float, theirs: dict | None = None) -> None:
    """Our training curves of `setups` (name -> its label), the loss of the uniform output (`uniform`) dotted
    and, when given, the authors' (dashed, log epoch axis, our epochs shaded)."""
    with figures.axes(out, (6.2, 4.0)) as ax:
        for setup in (s for s in setups if (runs.setup == s).any()):
            c = curves[curves.setup == setup]
            ax.plot(c.epoch, c.train_loss, label=text("fig3_ours", label=setups[setup]), color=COLORS[setup])
        for setup, curve in ((s, theirs[s]) for s in setups if theirs):
            x = np.arange(1, len(curve) + 1)
            ax.plot(x, curve, ls="--", lw=1, color=COLORS[setup], label=text("fig3_authors", label=setups[setup]))
        if theirs:
            ran = int(runs[runs.setup.isin(setups)].epochs.max())
            ax.axvspan(1, ran, color="grey", alpha=0.12, lw=0, label=text("fig3_epochs_run"))
            ax.set_xscale("log")
        ax.axhline(uniform, ls=":", color="grey", lw=1)
        ax.text(ax.get_xlim()[0], uniform, text("fig3_uniform"), va="bottom", fontsize=7, color="grey")
        ax.set(xlabel=text("fig3_epoch_log" if theirs else "fig3_epoch"), ylabel=text("fig3_loss"), title=title)
        ax.legend(fontsize=7)


def drift(ours: pd.DataFrame, authors: pd.DataFrame, stem: Path, optimizers: dict, bound: float) -> None:
    """max_dev against steps (log y): ours per optimizer (`optimizers`: name -> its label) and retraction
    (mean over seeds, their range shaded), the authors' networks as stars, the claim's `bound` dotted."""
    with figures.axes(stem, (6.4, 4.2)) as ax:
        for (name, retraction), runs in ours.groupby(["optimizer", "retraction"], sort=False):
            by_step, seeds, color = runs.groupby("step").max_dev, runs.seed.nunique(), COLORS[f"{name}_stiefel"]
            label = text("drift_ours", label=optimizers[name], retraction=retraction, seeds=seeds, s="s" * (seeds > 1))
            ax.plot(by_step.mean().index, by_step.mean(), STYLES[retraction], color=color, lw=1.2, label=label)
            if seeds > 1:
                ax.fill_between(by_step.min().index, by_step.min(), by_step.max(), color=color, alpha=0.15, lw=0)
        for row in authors.itertuples():
            label = text("drift_authors", label=optimizers[row.optimizer], file=row.file)
            color = COLORS[f"{row.optimizer}_stiefel"]
            ax.plot(row.step, row.max_dev, "*", ms=11, color=color, markeredgecolor="black", label=label)
        ax.axhline(bound, ls=":", color="black", lw=1)
        ax.text(0, bound, text("drift_bound", bound=bound), va="bottom", fontsize=7)
        ax.set(yscale="log", xlabel=text("drift_step"), ylabel=text("drift_dev"), title=text("drift_figure_title"))
        ax.legend(fontsize=6.5, loc="upper left")
