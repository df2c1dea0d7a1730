"""The claims engine's validation (results/engine/validation.csv) as power curves: per kind of interval, the
share of superiority cells that reproduce (solid) and contradict (dashed) by true difference, one line per
seeds per arm."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from noneuclid import figures


def power(rows: pd.DataFrame, stem: Path) -> None:
    """stem.png and .pdf from validation.csv's single cells of relation better."""
    cells = rows[(rows.relation == "better") & (rows.family == 1)]
    kinds = list(dict.fromkeys(cells.kind))
    with figures.axes(stem, (3.2 * len(kinds), 3.2), 1, len(kinds), sharey=True) as axes:
        for ax, kind in zip(axes, kinds):
            for i, (n, g) in enumerate(cells[cells.kind == kind].groupby("n")):
                g = g.sort_values("difference_in_delta")
                ax.plot(g.difference_in_delta, g.rate_reproduces, color=f"C{i}", marker="o", ms=3, label=f"n = {n}")
                ax.plot(g.difference_in_delta, g.rate_contradicts, color=f"C{i}", ls="--", marker="x", ms=3)
            ax.axhline(0.025, color="grey", lw=0.8, ls=":")
            ax.set(title=kind, xlabel="true difference / delta")
        axes[0].set_ylabel("share of cells (solid: reproduces, dashed: contradicts)")
        axes[0].legend(fontsize=8)
