"""Ganea et al.'s Table 2 claims judged cell by cell on the classifier runs' values (runs.hnn_table2.f1_values):
a cell is judged where its embedding has finished and no run it reads is `flagged`; a reason names runs or
classifiers, never numbers (those are table2_f1.csv's columns)."""

from __future__ import annotations

import pandas as pd

from noneuclid.claims import engine
from noneuclid.report.hnn_claims import CLAIMS, CLASSIFIERS, text
from noneuclid.runs import select
from noneuclid.runs.hnn_table2 import DIMS, GEOMETRIES

OUTPERFORMS, LOW_DIMENSIONS = "table2_hyperbolic_mlr_outperforms", "table2_margin_largest_in_low_dimensions"
REFERENCE_GAP = CLAIMS.numbers["reference_gap"]  # F1 points from scikit-learn's beyond which an MLR has not converged


def reference_gaps(reference: pd.DataFrame) -> dict[tuple[str, int, str], float]:
    """(subtree, dim, classifier) -> our mean F1 minus scikit-learn's, from the rows of table2_reference.csv
    (`reference`: `python -m noneuclid.evaluate table2-reference`'s) of the natural-mix runs; empty without."""
    if reference.empty:
        return {}
    natural = reference.query("sampling == 'natural'")
    return dict(zip(zip(natural.subtree, natural.dim.astype(int), natural.classifier), natural.difference))


def flagged(values: pd.DataFrame, gaps: dict) -> pd.DataFrame:
    """`values` with the flags that keep a run's cells from being judged: not_learned (final training loss
    at or above its chance level, the loss of a constant guess on its batches: ln 2 on balanced ones),
    unconverged (its Euclidean MLR further than REFERENCE_GAP from scikit-learn's: `gaps`), unstable."""
    gap = [abs(gaps.get(cell, 0.0)) > REFERENCE_GAP for cell in zip(values.subtree, values.dim, values.geometry)]
    return values.assign(
        not_learned=values.train_loss >= values.chance_loss,
        unconverged=pd.Series(gap, values.index, bool),
        unstable=values.get("unstable", False),
    )


def _flagged_reason(read: pd.DataFrame, flags) -> str:
    """Why a cell is not testable ('' where it is): the first of `flags` (columns `flagged` adds) that some of
    the runs it reads have (templates/hnn.md), naming them by dimension and classifier (and seed, for
    not_learned)."""
    for flag in flags if len(read) else ():
        hit = read[read[flag].astype(bool)].sort_values(["dim", "geometry", "seed"])
        seed = " seed {}" if flag == "not_learned" else ""
        named = dict.fromkeys(f"{r.dim}-D {CLASSIFIERS[r.geometry]}{seed.format(r.seed)}" for r in hit.itertuples())
        if named:
            return text(flag, runs=", ".join(named))
    return ""


def verdicts(values: pd.DataFrame, emb_map: dict[int, float], gaps: dict | None = None) -> list[engine.Verdict]:
    """The two Table 2 claims, cell by cell, their runs selected by the cells' settings (Cell.select): test
    F1 per seed of the hyperbolic MLR against each Euclidean one (Welch; not where neither finds the
    subtree, F1 zero on every seed of both); the margin per seed (`_margins`) in a low dimension against
    10-D, judged where every classifier learned. Not testable without a finished embedding (`emb_map`: dim ->
    its MAP), with runs `flagged` (`gaps`: reference_gaps) or fewer than 2 seeds an arm."""
    why = {dim: "" if dim in emb_map else text("no_embedding") for dim in DIMS}  # MAP: no level of ours
    values, rows = flagged(values, gaps or {}), []
    for claim in (CLAIMS[OUTPERFORMS], CLAIMS[LOW_DIMENSIONS]):
        for cell in claim.cells:
            read = values[select.any_of(values, cell.select.values())]
            arms = [values[select.chosen(values, cell.select[arm])] for arm in cell.arms]
            if claim.id == OUTPERFORMS:
                arms = [100 * arm.f1.to_numpy() for arm in arms]
                none_found = all(len(a) and not a.any() for a in arms) and text("none_found")
                reason = why[cell.where["data.dim"]] or _flagged_reason(read, ("unconverged", "unstable"))
                reason = reason or none_found
            else:
                arms, dims = [_margins(arm) for arm in arms], [cell.select[arm]["data.dim"] for arm in cell.arms]
                reason = "; ".join(f"{d}-D: {why[d]}" for d in dims if why[d])
                reason = reason or _flagged_reason(read, ("not_learned", "unconverged", "unstable"))
            too_few = min(map(len, arms)) < 2 and text("too_few", a=len(arms[0]), b=len(arms[1]))
            rows.append(engine.judged(claim, cell, arms, reason or too_few or "", runs=list(read.run)))
    return rows


def _margins(values: pd.DataFrame) -> list[float]:
    """Per seed with all three classifiers of `values` (one subtree and dimension): F1 points of the
    hyperbolic MLR minus the Euclidean MLR whose mean is the higher."""
    f1 = values.pivot_table("f1", "seed", "geometry")
    if f1.empty or not set(GEOMETRIES) <= set(f1.columns):
        return []
    f1 = 100 * f1.dropna()
    better = max((g for g in GEOMETRIES if g != "hyperbolic"), key=lambda g: f1[g].mean())  # the Euclidean MLRs
    return list(f1["hyperbolic"] - f1[better])
