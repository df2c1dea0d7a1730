"""PHYDI's Fig. 4 (PHTransformers by depth on WikiText-2: PostNorm, PreNorm, PHYDI) from each run's validation
perplexity per epoch: its table and its claims judged by the claims engine (figures.phydi draws it).

Per run: epochs to ppl <= T = 200 x U / U_paper (numbers.fig4_perplexity, .paper_unigram_perplexity; U the
unigram perplexity of the runs' data: the paper's threshold at the same ratio to knowing only word
frequencies), and to T_r = report.fig4_threshold x U, the profile's reachable threshold. A run ends diverged
(loss NaN/inf), stuck (best ppl >= 0.95 U, numbers.stuck_fraction), slow (above the threshold at its last
epoch) or reached; it fails when diverged or stuck.
"""

from __future__ import annotations

import math

import pandas as pd

from noneuclid.claims.estimates import estimate
from noneuclid.runs import select
from noneuclid.runs.curves import epochs_to
from noneuclid.runs.phydi import CELL, NUMBERS, fill


def scaled_threshold(unigram: float) -> float:
    """T = fig4_perplexity x U / paper_unigram_perplexity."""
    return NUMBERS["fig4_perplexity"] * unigram / NUMBERS["paper_unigram_perplexity"]


def threshold_ratio(runs: pd.DataFrame) -> float | None:
    """report.fig4_threshold the runs were configured with (T_r = it x U); None where none is set."""
    values = runs["cfg.report.fig4_threshold"].dropna().unique() if "cfg.report.fig4_threshold" in runs else []
    if len(values) > 1:
        raise ValueError(fill("several_thresholds", values=list(values)))
    return float(values[0]) if len(values) else None


def per_run(runs: pd.DataFrame, threshold: dict[int, float], unigram: dict[int, float]) -> pd.DataFrame:
    """The runs of lm_runs with first: epochs to ppl <= their n's threshold, best: the best ppl, both inf if
    diverged; end: diverged, stuck, reached or slow, as in the module doc; descending: its best ppl is at its
    last epoch (the curve had not stopped improving when training ended)."""
    rows = []
    for n, c, diverged in zip(runs["cfg.model.n"], runs.curve, runs.diverged):
        best = math.inf if diverged or c.empty else float(c.min())
        first = math.inf if math.isinf(best) else epochs_to(c, threshold[n], above=False)
        stuck = best >= NUMBERS["stuck_fraction"] * unigram[n]
        end = "diverged" if math.isinf(best) else "stuck" if stuck else "slow" if math.isinf(first) else "reached"
        rows.append((first, best, end, not math.isinf(best) and c.idxmin() == c.index.max()))
    columns = ["first", "best", "end", "descending"]
    return pd.concat([runs, pd.DataFrame(rows, index=runs.index, columns=columns)], axis=1)


def fig4_rows(runs: pd.DataFrame, unigram: dict[int, float], ratio: float | None = None) -> pd.DataFrame:
    """One row per (n, depth, norm) of lm_runs' runs: seeds, epochs to ppl <= T (mean, s.e. over the seeds
    that reached it, and how many did), best val ppl (mean, s.e.; inf where a seed diverged), diverged, stuck
    and slow seeds, U and T; with the profile's `ratio` also epochs to ppl <= T_r = ratio x U. Shown as
    claims/phydi_tables.yaml's fig4."""
    at_t, ends, rows = scores(runs, unigram), scores(runs, unigram, ratio), []
    for settings, g in select.by_settings(at_t, CELL):
        n, end, best = settings["model.n"], ends.loc[g.index], estimate(g.best)
        row = {
            "n": n,
            "depth": settings["model.depth"],
            "norm": settings["model.norm"],
            "seeds": len(g),
            **_reached(g["first"], "T"),
            "best val ppl mean": best.mean,
            "best val ppl se": best.se,
            **{state: int((end.end == state).sum()) for state in ("diverged", "stuck", "slow")},
            "epochs": max(len(c) for c in g.curve),
            "unigram ppl U": round(unigram[n], 1),
            "T": round(scaled_threshold(unigram[n]), 1),
        }
        if ratio is not None:
            row.update(_reached(end["first"], "T_r"), T_r=round(ratio * unigram[n], 1))
        rows.append(row)
    return pd.DataFrame(rows)


def _reached(first: list[float], name: str) -> dict:
    """How many seeds reached a threshold, and the mean and s.e. of their epochs to it."""
    epochs = estimate([f for f in first if not math.isinf(f)])
    return {
        f"seeds reached {name}": epochs.count,
        f"epochs to {name} mean": epochs.mean,
        f"epochs to {name} se": epochs.se,
    }


def threshold_of(unigram: float, ratio: float | None) -> tuple[float, str]:
    """(the threshold epochs to it count, its name): T_r = ratio x U with the profile's ratio, else T."""
    return (ratio * unigram, "T_r") if ratio is not None else (scaled_threshold(unigram), "T")


def scores(runs: pd.DataFrame, unigram: dict[int, float], ratio: float | None = None) -> pd.DataFrame:
    """lm_runs' runs with per_run's first, best and end at their n's threshold (threshold_of)."""
    return per_run(runs, {n: threshold_of(u, ratio)[0] for n, u in unigram.items()}, unigram)
