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
from dataclasses import replace

import pandas as pd

from noneuclid.claims import engine
from noneuclid.claims.estimates import estimate
from noneuclid.claims.significance import ALPHA
from noneuclid.report.phydi_claims import CLAIMS, NAMES, NUMBERS, epochs_to, fill, no_runs
from noneuclid.runs import select
from noneuclid.runs.phydi import CELL

METRICS = ("failed", "best_ppl", "epochs_to_ppl", "phydi_lead")


def scaled_threshold(unigram: float) -> float:
    """T = fig4_perplexity x U / paper_unigram_perplexity."""
    return NUMBERS["fig4_perplexity"] * unigram / NUMBERS["paper_unigram_perplexity"]


def threshold_ratio(runs: pd.DataFrame) -> float | None:
    """report.fig4_threshold the runs were configured with (T_r = it x U); None where none is set."""
    values = runs["cfg.report.fig4_threshold"].dropna().unique() if "cfg.report.fig4_threshold" in runs else []
    if len(values) > 1:
        raise ValueError(f"the transformer runs were configured with several report.fig4_threshold: {list(values)}")
    return float(values[0]) if len(values) else None


def per_run(runs: pd.DataFrame, threshold: dict[int, float], unigram: dict[int, float]) -> pd.DataFrame:
    """The runs of lm_runs with first: epochs to ppl <= their n's threshold, best: the best ppl, both inf if
    diverged; end: diverged, stuck, reached or slow, as in the module doc; descending: its best ppl is at its
    last epoch (the curve had not stopped improving when training ended)."""
    rows = []
    for n, c, diverged in zip(runs["cfg.model.n"], runs.curve, runs.diverged):
        first, best = (
            (math.inf, math.inf) if diverged or c.empty else (epochs_to(c, threshold[n], above=False), float(c.min()))
        )
        end = (
            "diverged"
            if math.isinf(best)
            else "stuck"
            if best >= NUMBERS["stuck_fraction"] * unigram[n]
            else "slow"
            if math.isinf(first)
            else "reached"
        )
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


def fig4_verdicts(runs: pd.DataFrame, unigram: dict[int, float], ratio: float | None = None) -> list[engine.Verdict]:
    """Every cell of the Fig. 4 claims from the per-seed values of lm_runs' runs: failed (1 or 0,
    engine.judge_shares), best ppl, epochs to ppl <= T_r (T without a ratio), PHYDI's lead over PreNorm in
    them (same seed); not testable without runs or values, where every run compared is at the first
    evaluation (the metric's floor), or where an arm is at that floor and the cell would be decided by
    "no effect as large as delta" (a threshold every run of an arm reaches at once cannot show that)."""
    rows, runs = [], scores(runs, unigram, ratio)
    for claim, cell in ((c, cell) for c in CLAIMS.claims if c.metric in METRICS for cell in c.cells):
        n = cell.select[cell.arms[0]]["model.n"]
        threshold, name = _threshold(unigram[n], ratio) if n in unigram else (math.nan, "T")
        values = [_values(claim.metric, runs, cell.select[arm]) for arm in cell.arms]
        reads = [seeds for arm in cell.arms for seeds in _reads(runs, cell.select[arm]).values()]
        at_floor = [
            claim.metric in ("epochs_to_ppl", "phydi_lead")
            and all(isinstance(v, list) for v in values)
            and (seeds["first"] == 1).all()
            for seeds in reads
        ]
        read = [name for seeds in reads for name in seeds.get("run", ())]
        row = engine.judged(
            claim,
            cell,
            values,
            fill("at_floor") if at_floor and all(at_floor) else "",
            shares=claim.metric == "failed",
            runs=read,
        )
        if any(at_floor) and row.verdict == engine.CONTRADICTS and not row.p_value < ALPHA:
            row = engine.untestable(claim, cell, fill("arm_at_floor"), row.n_a, row.n_b, read)
        stuck = NUMBERS["stuck_fraction"] * unigram.get(n, math.nan)  # a failed run's best ppl at least
        label = (
            claim.metric
            if math.isnan(threshold) or claim.metric == "best_ppl"
            else f"failed (diverged, or best ppl >= {stuck:.0f})"
            if claim.metric == "failed"
            else f"{claim.metric} at ppl <= {name} = {threshold:.0f}"
        )
        rows.append(replace(row, level=threshold, label=label))
    return rows


def _threshold(unigram: float, ratio: float | None) -> tuple[float, str]:
    """(the threshold epochs to it count, its name): T_r = ratio x U with the profile's ratio, else T."""
    return (ratio * unigram, "T_r") if ratio is not None else (scaled_threshold(unigram), "T")


def scores(runs: pd.DataFrame, unigram: dict[int, float], ratio: float | None = None) -> pd.DataFrame:
    """lm_runs' runs with per_run's first, best and end at their n's threshold (_threshold)."""
    return per_run(runs, {n: _threshold(u, ratio)[0] for n, u in unigram.items()}, unigram)


def _reads(runs: pd.DataFrame, selector: dict) -> dict[str, pd.DataFrame]:
    """norm -> seed x (first, best, end) of the runs a claim's arm reads: those of its norm, or PreNorm's and
    PHYDI's for an arm without one (PHYDI's lead over PreNorm)."""
    norms = (selector["model.norm"],) if "model.norm" in selector else ("pre", "phydi")
    columns = ["first", "best", "end", "descending"] + ["run"] * ("run" in runs)
    return {m: select.arm_values(runs, {**selector, "model.norm": m}, columns) for m in norms}


def _values(metric: str, runs: pd.DataFrame, selector: dict) -> list[float] | str:
    """Per seed of the arm `selector` picks from the runs' scores: its value of `metric`, or why there is none."""
    seeds, n, depth = _reads(runs, selector), selector["model.n"], selector["model.depth"]
    if why := no_runs(seeds):
        return f"{why} at n = {n}, {depth} layers"
    if metric == "failed":
        return [float(end in ("diverged", "stuck")) for end in next(iter(seeds.values())).end]
    column = "best" if metric == "best_ppl" else "first"
    short = [NAMES[m] for m, s in seeds.items() if s[column].map(math.isinf).any()]
    if short:
        return fill(f"short_{column}", arms=" and ".join(short), n=n, depth=depth)
    descending = [NAMES[m] for m, s in seeds.items() if s.descending.any()]
    if column == "best" and descending:
        return fill("still_descending", arms=" and ".join(descending), n=n, depth=depth)
    if len(seeds) == 1:
        return list(next(iter(seeds.values()))[column])
    return list((seeds["pre"]["first"] - seeds["phydi"]["first"]).dropna())
