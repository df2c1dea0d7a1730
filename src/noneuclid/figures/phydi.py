"""PHYDI's Fig. 4 drawn from the rows of report.phydi_fig4.fig4_rows: epochs to a perplexity threshold and
the best validation perplexity of the PHTransformers by depth, one line per norm and n. Names:
claims/phydi.yaml (reference: labels)."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
from matplotlib.ticker import MaxNLocator, NullFormatter

from noneuclid import figures
from noneuclid.config import sweep_values
from noneuclid.runs.phydi import NAMES, NUMBERS, fill as text

NORMS = sweep_values("phydi/fig4", "model.norm")  # post, pre, phydi: a colour each


def fig4(rows: pd.DataFrame, out: Path) -> None:
    """out.png, .pdf from fig4_rows. Left: epochs to ppl <= T_r (T where the profile sets none) by depth over
    the seeds that reached it; at the top, x where a seed failed, a hollow v where one was slow, a point
    where none reached it; k/N: k of N seeds did. Right: best validation perplexity (mean +- s.e.) with U, T
    and T_r. Colour: norm; style: n."""
    fig, (ax, bx) = figures.plt.subplots(1, 2, figsize=(10, 4))  # the Agg backend
    ceiling, name = int(rows.epochs.max()) + 1, "T_r" if "T_r" in rows else "T"
    styles = {n: style for n, style in zip(sorted(rows.n.unique()), ("-", "--", ":"))}
    for (norm, n), g in rows.groupby(["norm", "n"]):
        g, colour = g.sort_values("depth"), f"C{NORMS.index(norm)}"
        look = {"color": colour, "ls": styles[n], "label": f"{NAMES[norm]}, n={n}"}
        reached = g[f"seeds reached {name}"]
        first = g[f"epochs to {name} mean"].where(reached > 0, ceiling)
        ax.plot(g.depth, first, marker="o", **look)
        failed, slow = g.diverged + g.stuck > 0, g.slow > 0
        ax.scatter(g.depth[failed], [ceiling] * failed.sum(), marker="x", s=60, color=colour)
        ax.scatter(g.depth[slow], [ceiling - 0.35] * slow.sum(), marker="v", s=40, facecolors="none", edgecolors=colour)
        for depth, y, k, total in zip(g.depth, first, reached, g.seeds):
            if 0 < k < total:
                offset = {"xytext": (4, 4), "textcoords": "offset points"}
                ax.annotate(f"{k}/{total}", (depth, y), **offset, fontsize=7, color=colour)
        finite = g[g["best val ppl mean"] < math.inf]
        mean, se = finite["best val ppl mean"], finite["best val ppl se"]
        bx.errorbar(finite.depth, mean, yerr=se, marker="o", capsize=2, **look)
    _levels(bx, rows, name)
    ylabel, title = text("fig4_epochs_axis", name=name), text("fig4_epochs_title", ceiling=ceiling)
    ax.set(xscale="log", xlabel="layers", ylabel=ylabel, ylim=(0, ceiling + 0.5), title=title)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    if (rows[f"seeds reached {name}"] == 0).all():  # say so, not just a flat line of x
        none = text("fig4_none_reached", name=name, level=rows[name].min(), epochs=ceiling - 1)
        ax.text(0.5, 0.45, none, transform=ax.transAxes, ha="center", va="center")
    bx.set(xscale="log", yscale="log", xlabel="layers", ylabel="best validation perplexity")
    for a in (ax, bx):  # the depths themselves as ticks, not log-scale powers of ten
        a.set_xticks(sorted(rows.depth.unique()), [str(d) for d in sorted(rows.depth.unique())])
        a.xaxis.set_minor_formatter(NullFormatter())
    ax.legend(fontsize=7)
    bx.legend(fontsize=6)
    fig.tight_layout()
    figures.save(fig, out)


def _levels(bx, rows: pd.DataFrame, name: str) -> None:
    """U, T and T_r as horizontal lines of the right panel: once where every n has the same U."""
    levels = rows.drop_duplicates("unigram ppl U")
    for _, row in levels.iterrows():
        tag, u, t = f", n={row.n}" if len(levels) > 1 else "", row["unigram ppl U"], row["T"]
        bx.axhline(u, color="black", lw=0.8, ls="--", label=f"unigram U = {u:.0f}{tag}")
        label = text("fig4_t_line", perplexity=NUMBERS["fig4_perplexity"], t=t, tag=tag)
        bx.axhline(t, color="grey", lw=0.8, ls=":", label=label)
        if name == "T_r":
            bx.axhline(row["T_r"], color="grey", lw=0.8, ls="-.", label=f"T_r = {row['T_r']:.0f}{tag}")
