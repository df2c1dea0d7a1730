"""Figures of the evaluations' tables (python -m noneuclid.evaluate): the claims engine's validation
(results/engine/) as power curves and the geometry's float32 errors (results/geometry/); they draw the
tables, never run a model."""

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib import colormaps

from noneuclid.figures import axes

STYLES = {  # the float32 atlas: (implementation, chart) -> (colour, line style)
    ("ours", "poincare"): ("C0", "-"),
    ("ours", "lorentz"): ("C1", "-"),
    ("geoopt", "poincare"): ("C0", ":"),
    ("geoopt", "lorentz"): ("C1", ":"),
    ("hypll", "poincare"): ("C2", "-."),
}


def float32_atlas(table: pd.DataFrame, stem: Path, threshold: float) -> None:
    """One panel per operation: the larger of the value's and the gradient's float32 error against r
    (log scale; inf drawn at the top), a line per implementation and chart, the threshold dashed."""
    ops = list(dict.fromkeys(table.op))
    columns = (len(ops) + 1) // 2
    with axes(stem, (3.2 * columns, 6), 2, columns, sharex=True, sharey=True) as grid:
        for ax, op in zip(grid.flat, ops):
            for (impl, chart), rows in table[table.op == op].groupby(["implementation", "chart"], sort=False):
                err = np.fmax(rows.value_error, rows.grad_error).clip(1e-17, 1e3)  # fmax: nan only if both are
                color, line = STYLES[(impl, chart)]
                ax.semilogy(rows.r, err, color=color, linestyle=line, label=f"{impl} {chart}")
            ax.axhline(threshold, color="grey", linestyle="--", linewidth=0.8)
            ax.set_title(op, fontsize=9)
        grid.flat[0].set_ylim(1e-9, 1e4)
        for ax in grid.flat[len(ops) :]:
            ax.axis("off")
        grid.flat[0].legend(fontsize=7)
        for ax in grid[-1]:
            ax.set_xlabel("r (distance from the origin, curvature -1)")
        for ax in grid[:, 0]:
            ax.set_ylabel("float32 error (max of value, gradient)")


def power(rows: pd.DataFrame, stem: Path) -> None:
    """stem.png and .pdf: per kind of interval, the share of validation.csv's single superiority cells that
    reproduce (solid) and contradict (dashed) by true difference, one line per seeds per arm (and per number
    of looks: seeds added where the look before left the cell undecided)."""
    cells = rows[(rows.relation == "better") & (rows.family == 1)]
    kinds = list(dict.fromkeys(cells.kind))
    keys = sorted(set(zip(cells.n, cells.looks)))
    colors = {key: colormaps["tab20"](i % 20) for i, key in enumerate(keys)}  # same in every panel, each its own
    with axes(stem, (3.2 * len(kinds), 3.2), 1, len(kinds), sharey=True) as grid:
        for ax, kind in zip(grid, kinds):
            for (n, looks, up_to), g in cells[cells.kind == kind].groupby(["n", "looks", "look_up_to"]):
                label = f"n = {n}" + (f", {looks} looks up to {up_to}" if looks > 1 else "")
                g, color = g.sort_values("difference_in_delta"), colors[n, looks]
                ax.plot(g.difference_in_delta, g.rate_reproduces, color=color, marker="o", ms=3, label=label)
                ax.plot(g.difference_in_delta, g.rate_contradicts, color=color, ls="--", marker="x", ms=3)
            ax.axhline(0.025, color="grey", lw=0.8, ls=":")
            ax.set(title=kind, xlabel="true difference / delta")
            ax.legend(fontsize=7)
        grid[0].set_ylabel("share of cells\n(solid: reproduces, dashed: contradicts)", fontsize=8)
