"""Brantner's figures: the training curves of Fig. 3a/3b beside the authors' and the drift of the Stiefel
projections from orthonormality, drawn from the frames report.brantner and report.brantner_evaluated make.
The setups' labels and colours are claims/brantner.yaml's (reference: setups)."""

from __future__ import annotations

import functools
import math
from pathlib import Path

import numpy as np
import pandas as pd

from noneuclid import figures, prose
from noneuclid.claims import data as claims_data

CLAIMS = claims_data.load("brantner")
SETUPS = CLAIMS.reference["setups"]  # the paper's four runs -> label, colour, Table 2's minutes, the authors' run
OPTIMIZERS = {name.removesuffix("_stiefel"): {**setup, "label": setup["label"].removesuffix(" + Stiefel")}
              for name, setup in SETUPS.items() if name.endswith("_stiefel")}  # adam, momentum, gd
BOUND = next(c.bound for c in CLAIMS["orthonormality_to_machine_precision"].cells if c.arms[0].startswith("drift_"))
STYLES = {"geodesic": "-", "cayley": "--"}  # retraction -> line style
UNIFORM_LOSS = math.sqrt(0.9)  # every class 1/10
text = functools.partial(prose.fill, "brantner")


def fig3(runs, curves, setups, title: str, out: Path, theirs: dict | None = None) -> None:
    """Our training curves and, when given, the authors' (dashed, log epoch axis, our epochs shaded)."""
    with figures.axes(out, (6.2, 4.0)) as ax:
        for setup in (s for s in setups if (runs.setup == s).any()):
            c, ref = curves[curves.setup == setup], SETUPS[setup]
            ax.plot(c.epoch, c.train_loss, label=text("fig3_ours", label=ref["label"]), color=ref["color"])
        for setup in setups if theirs else ():
            ax.plot(np.arange(1, len(theirs[setup]) + 1), theirs[setup], ls="--", lw=1, color=SETUPS[setup]["color"],
                    label=text("fig3_authors", label=SETUPS[setup]["label"]))
        if theirs:
            ax.axvspan(1, int(runs[runs.setup.isin(setups)].epochs.max()), color="grey", alpha=0.12, lw=0,
                       label=text("fig3_epochs_run"))
            ax.set_xscale("log")
        ax.axhline(UNIFORM_LOSS, ls=":", color="grey", lw=1)
        ax.text(ax.get_xlim()[0], UNIFORM_LOSS, text("fig3_uniform"), va="bottom", fontsize=7, color="grey")
        ax.set(xlabel=text("fig3_epoch_log" if theirs else "fig3_epoch"), ylabel=text("fig3_loss"), title=title)
        ax.legend(fontsize=7)


def drift(ours: pd.DataFrame, authors: pd.DataFrame, stem: Path) -> None:
    """max_dev against steps (log y): ours per optimizer and retraction (mean over seeds, their range
    shaded), the authors' networks as stars, the claim's bound dotted."""
    with figures.axes(stem, (6.4, 4.2)) as ax:
        for (name, retraction), runs in ours.groupby(["optimizer", "retraction"], sort=False):
            by_step, seeds, optimizer = runs.groupby("step").max_dev, runs.seed.nunique(), OPTIMIZERS[name]
            ax.plot(by_step.mean().index, by_step.mean(), STYLES[retraction], color=optimizer["color"], lw=1.2,
                    label=text("drift_ours", **optimizer, retraction=retraction, seeds=seeds, s="s" * (seeds > 1)))
            if seeds > 1:
                ax.fill_between(by_step.min().index, by_step.min(), by_step.max(), color=optimizer["color"],
                                alpha=0.15, lw=0)
        for row in authors.itertuples():
            optimizer = OPTIMIZERS[row.optimizer]
            ax.plot(row.step, row.max_dev, "*", ms=11, color=optimizer["color"], markeredgecolor="black",
                    label=text("drift_authors", **optimizer, file=row.file))
        ax.axhline(BOUND, ls=":", color="black", lw=1)
        ax.text(0, BOUND, text("drift_bound", bound=BOUND), va="bottom", fontsize=7)
        ax.set(yscale="log", xlabel=text("drift_step"), ylabel=text("drift_dev"), title=text("drift_figure_title"))
        ax.legend(fontsize=6.5, loc="upper left")
