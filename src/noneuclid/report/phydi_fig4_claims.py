"""PHYDI's Fig. 4 claims judged by the claims engine, cell by cell, from the per-seed scores of
report.phydi_fig4 (epochs to a perplexity threshold, best perplexity, failed runs)."""

from __future__ import annotations

import math
from dataclasses import replace

import pandas as pd

from noneuclid.claims import engine
from noneuclid.claims.significance import ALPHA
from noneuclid.report.phydi_fig4 import scores, threshold_of
from noneuclid.runs import select
from noneuclid.runs.phydi import CLAIMS, NAMES, NUMBERS, fill, no_runs

METRICS = ("failed", "best_ppl", "epochs_to_ppl", "phydi_lead")


def fig4_verdicts(runs: pd.DataFrame, unigram: dict[int, float], ratio: float | None = None) -> list[engine.Verdict]:
    """Every cell of the Fig. 4 claims from the per-seed values of lm_runs' runs: failed (1 or 0,
    engine.judge_shares), best ppl, epochs to ppl <= T_r (T without a ratio), PHYDI's lead over PreNorm in
    them (same seed); not testable without runs or values, where every run compared is at the first
    evaluation (the metric's floor), or where an arm is at that floor and the cell would be decided by
    "no effect as large as delta" (a threshold every run of an arm reaches at once cannot show that)."""
    rows, runs = [], scores(runs, unigram, ratio)
    for claim, cell in ((c, cell) for c in CLAIMS.claims if c.metric in METRICS for cell in c.cells):
        n = cell.select[cell.arms[0]]["model.n"]
        threshold, name = threshold_of(unigram[n], ratio) if n in unigram else (math.nan, "T")
        values = [_values(claim.metric, runs, cell.select[arm]) for arm in cell.arms]
        reads = [seeds for arm in cell.arms for seeds in _reads(runs, cell.select[arm]).values()]
        at_floor = [
            claim.metric in ("epochs_to_ppl", "phydi_lead")
            and all(isinstance(v, list) for v in values)
            and (seeds["first"] == 1).all()
            for seeds in reads
        ]
        read = [name for seeds in reads for name in seeds.get("run", ())]
        reason = fill("at_floor") if at_floor and all(at_floor) else ""
        row = engine.judged(claim, cell, values, reason, shares=claim.metric == "failed", runs=read)
        if any(at_floor) and row.verdict == engine.CONTRADICTS and not row.p_value < ALPHA:
            row = engine.untestable(claim, cell, fill("arm_at_floor"), row.n_a, row.n_b, read)
        stuck = NUMBERS["stuck_fraction"] * unigram.get(n, math.nan)  # a failed run's best ppl at least
        label = {"failed": f"failed (diverged, or best ppl >= {stuck:.0f})", "best_ppl": claim.metric}.get(
            claim.metric, f"{claim.metric} at ppl <= {name} = {threshold:.0f}"
        )
        label = claim.metric if math.isnan(threshold) else label
        rows.append(replace(row, level=threshold, label=label))
    return rows


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
