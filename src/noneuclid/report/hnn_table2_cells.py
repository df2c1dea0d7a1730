"""Why a cell of Ganea et al.'s Table 2 can or cannot be judged here: the embedding's reconstruction
(MIN_EMBEDDING_MAP), the Euclidean MLRs' convergence against scikit-learn's (REFERENCE_GAP), the stability
of each run's training, that the classifiers learned and found the subtree, and enough seeds. Each check
returns why a cell is not testable ('' where it is), naming runs or classifiers, never numbers (those
are table2_f1.csv's columns)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from noneuclid.report.hnn_claims import CLASSIFIERS
from noneuclid.report.hnn_embeddings import DIMS

# a dimension whose embedding's MAP (all nouns) is below this, or was not evaluated, has its cells
# "not testable here": Table 2 tests the classifiers only on embeddings that reconstruct the hierarchy
MIN_EMBEDDING_MAP = 0.5
# a Euclidean MLR whose mean test F1 is further than this (points) from scikit-learn's logistic regression on
# the same points and splits (table2_reference.csv) has not converged: its cells are not testable here
REFERENCE_GAP = 1.0


def unstable(values: pd.DataFrame, runs: pd.DataFrame) -> pd.Series:
    """Whether each run's training loss rose to its chance level or above after its lowest one (runs.csv:
    train_loss_rebound): a step too large for it, so its final numbers are not a converged classifier's."""
    rebound = runs.set_index("run").get("train_loss_rebound", pd.Series(dtype=float))
    return values.run.map(rebound).ge(values.chance_loss).fillna(False).astype(bool)


def untestable(emb_map: dict[int, float]) -> dict[int, str]:
    """dim -> why its cells cannot be tested ('' where they can), from the embedding's MAP."""
    return {dim: "" if emb_map.get(dim, 0.0) >= MIN_EMBEDDING_MAP else
            "embedding MAP below the precondition (table2_f1.csv: embedding_map)" if dim in emb_map else
            "no finished embedding" for dim in DIMS}


def reference_gaps(out: Path) -> dict[tuple[str, int, str], float]:
    """(subtree, dim, classifier) -> our mean F1 minus scikit-learn's, from out/table2_reference.csv (the
    natural-mix runs of `python -m noneuclid.evaluate table2-reference`); empty without the file."""
    path = Path(out) / "table2_reference.csv"
    if not path.is_file():
        return {}
    ref = pd.read_csv(path)
    ref = ref[ref.sampling == "natural"]
    return dict(zip(zip(ref.subtree, ref.dim.astype(int), ref.classifier), ref.difference))


def unconverged(gaps: dict, subtree: str, dims, geometries) -> str:
    """Why cells of these classifiers are not testable ('' where they are): a Euclidean MLR further than
    REFERENCE_GAP from scikit-learn's optimum."""
    off = [f"{dim}-D {CLASSIFIERS[g]}" for dim in dims for g in geometries
           if abs(gaps.get((subtree, dim, g), 0.0)) > REFERENCE_GAP]
    return ("not converged: our F1 misses scikit-learn's logistic regression on the same points by more than "
            f"REFERENCE_GAP (table2_reference.csv: difference): {', '.join(off)}") if off else ""


def not_learned(values: pd.DataFrame, subtree: str, dims: list[int]) -> str:
    """Why a comparison across dimensions is not testable ('' where it is): a classifier of the cell whose
    final training loss is at or above its chance level (the loss of a constant guess on its batches: ln 2
    on balanced ones) has not learned."""
    cell = values[(values.subtree == subtree) & values.dim.isin(dims)]
    failed = cell[cell.train_loss >= cell.chance_loss].sort_values(["dim", "geometry", "seed"])
    if failed.empty:
        return ""
    named = ", ".join(f"{r.dim}-D {CLASSIFIERS[r.geometry]} seed {r.seed}" for r in failed.itertuples())
    return f"not every classifier learned (final training loss at or above its chance level; table2_f1.csv: " \
           f"not_learned, train_loss_max): {named}"


def unsteady(values: pd.DataFrame, subtree: str, dims, geometries) -> str:
    """Why cells of these classifiers are not testable ('' where they are): runs whose training was
    unstable (`unstable`), named by dimension and classifier."""
    if "unstable" not in values:
        return ""
    cell = values[(values.subtree == subtree) & values.dim.isin(dims) & values.geometry.isin(geometries)]
    off = sorted({(r.dim, r.geometry) for r in cell[cell.unstable].itertuples()})
    return ("training unstable: the loss of some runs rose to its chance level after their best epoch "
            f"(table2_f1.csv: unstable): {', '.join(f'{d}-D {CLASSIFIERS[g]}' for d, g in off)}") if off else ""


def none_found(arms) -> str:
    """Why arms that never predict the subtree are not compared ('' where one does): test F1 zero on every
    seed of both is no evidence of one classifier being as good as the other."""
    return "neither classifier predicts the subtree (test F1 zero on every seed of both)" \
        if all(len(a) and not any(a) for a in arms) else ""


def too_few(arms) -> str:
    """Why arms of fewer than 2 seeds each are not judged ('' where they are not)."""
    return f"fewer than 2 finished seeds in an arm ({len(arms[0])}, {len(arms[1])})" if min(map(len, arms)) < 2 else ""
