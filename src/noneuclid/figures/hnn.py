"""Ganea et al.'s figures: dev accuracy on PREFIX-10 during training (Table 1's runs), and Table 2's
classifiers in the 2-D Poincare ball (the paper draws none) from the data beside it (evaluate.table2_boundaries
writes them): POINTS (the 2-D embedding's points to 4 decimals, and for each subtree whether a point lies in
it) and GRID (the seed-0 classifiers' logit differences on a grid over the ball, from WEIGHTS). Labels:
claims/hnn.yaml (reference: labels)."""

from __future__ import annotations

import functools
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd

from noneuclid import figures, prose
from noneuclid.claims import data as claims_data
from noneuclid.data import wordnet
from noneuclid.runs import table as run_table

LABELS = claims_data.load("hnn").labels
ROWS, CLASSIFIERS = LABELS["models"], LABELS["classifiers"]  # Table 1's rows; Table 2's: model.geometry -> column
COLORS = {"hyperbolic": "tab:red", "euclidean": "tab:blue", "euclidean_log0": "tab:green"}
BOUNDARIES = "fig_table2_boundaries"  # the stem of Table 2's figure, and of its data:
POINTS, WEIGHTS, GRID = (f"{BOUNDARIES}_{name}" for name in ("points.csv.gz", "classifiers.csv", "grid.csv.gz"))
text = functools.partial(prose.fill, "hnn")  # a section of templates/hnn.md, its fields filled in


def prefix10_dev(runs: run_table.Runs, names: dict, out: Path, seed: int, title: str) -> None:
    """Dev accuracy during training of the PREFIX-10 runs of `seed` (`names`: Table 1's row -> its run), one
    line per model (a note where none has finished), `title` (the profile, dtype and overrides) under the title."""
    with figures.axes(out, (6, 4)) as ax:
        for row, label in ROWS.items():
            c = runs.curve(names.get(row, ""))
            c = c[c.dev_accuracy.notna()].drop_duplicates("step", keep="last") if "dev_accuracy" in c else c.iloc[0:0]
            if not c.empty:
                ax.plot(c.step, 100 * c.dev_accuracy, label=label, ls="-" if "gru" in row else "--")
        ax.set(xlabel="training batches", ylabel="dev accuracy %")
        ax.set_title(f"{text('figure_title', seed=seed)}\n{textwrap.fill(title, 90)}", fontsize=9)
        if ax.lines:
            ax.legend(fontsize=7)
        else:  # say so, not an empty frame
            ax.text(0.5, 0.5, text("figure_empty"), transform=ax.transAxes, ha="center")


def boundaries(points: pd.DataFrame, grid: pd.DataFrame, out: Path) -> None:
    """Per subtree, the 2-D ball with its points and each classifier's decision boundary, the zero contour
    of its column of `grid` (GRID: x, y and a logit difference per classifier, NaN
    outside the ball); the caption (.md) names each classifier without a sign change on the grid (its boundary,
    if any, in the rim beyond the grid's disc, where the embedding's points lie)."""
    xy = points[["x", "y"]].to_numpy()  # [nodes, 2]
    gx, gy = (grid.pivot(index="y", columns="x", values=axis).to_numpy() for axis in ("x", "y"))  # [rows, columns]
    drawn = grid.drop(columns=["x", "y"]).notna().any(axis=1)  # the grid's points inside the ball
    radius = f"{np.sqrt((grid.x**2 + grid.y**2)[drawn].max()):.4f}"  # the drawn disc's
    n = len(wordnet.SUBTREES)
    fig, axes = figures.plt.subplots(1, n, figsize=(4 * n, 4.4), constrained_layout=True)
    outside = []
    for ax, subtree in zip(axes, wordnet.SUBTREES):
        pos = points[subtree].to_numpy() == 1
        ax.add_patch(figures.plt.Circle((0, 0), 1, fill=False, lw=0.8))
        ax.scatter(*xy[~pos].T, s=0.2, c="0.75", rasterized=True, label="other nouns")
        ax.scatter(*xy[pos].T, s=0.5, c="k", rasterized=True, label="subtree")
        for geometry in CLASSIFIERS:
            if f"{subtree} {geometry}" not in grid:
                continue
            margin = grid.pivot(index="y", columns="x", values=f"{subtree} {geometry}").to_numpy()
            inside = margin[~np.isnan(margin)]
            if not (inside > 0).any() or not (inside < 0).any():
                side = "in" if (inside > 0).all() else "out of"
                outside.append(
                    text(
                        "boundary_outside", subtree=subtree, classifier=CLASSIFIERS[geometry], side=side, radius=radius
                    )
                )
            else:
                ax.contour(gx, gy, margin, levels=[0], colors=COLORS[geometry], linewidths=1.2)
            ax.plot([], [], c=COLORS[geometry], label=CLASSIFIERS[geometry])
        ax.set(xlim=(-1.02, 1.02), ylim=(-1.02, 1.02), aspect="equal", title=f"{subtree} (2-D)")
        ax.axis("off")
        ax.legend(fontsize=6, loc="lower left", markerscale=8)
    fig.suptitle(text("boundaries_title"), fontsize=9)
    figures.save(fig, out / BOUNDARIES)
    (out / f"{BOUNDARIES}.md").write_text("".join(f"{line}\n" for line in [text("boundaries_image"), "", *outside]))
