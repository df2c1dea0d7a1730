"""What Ganea et al.'s report modules share: Table 1's models and datasets and Table 2's classifiers
(labels in claims/hnn.yaml), the paper's Table 1 numbers (the cells of its Table 1 claim, which hold the
full grid), and the claims engine's verdict of a cell from per-seed values."""

from __future__ import annotations

import pandas as pd

from noneuclid.claims import data as claims_data, engine

CLAIMS = claims_data.load("hnn")
ROWS = CLAIMS.labels["models"]  # configs/variant/hnn/<name>.yaml -> Table 1's row
DATASETS = CLAIMS.labels["datasets"]  # data=<name> -> Table 1's column
CLASSIFIERS = CLAIMS.labels["classifiers"]  # Table 2's: model.geometry -> its column
ON_PAR_OR_BETTER, GAIN = "table1_hyperbolic_on_par_or_better", "prefix_gain_grows_with_tree_likeness"
GEOMETRIES = ("euclidean", "hyperbolic_eucl_mlr", "hyperbolic")  # a run's model.geometry


def row_of(geometry: str, cell: str) -> str:
    """The ROWS key of a run's model.geometry and model.cell ('hyperbolic_eucl_mlr', 'gru' ->
    'hyperbolic_gru_eucl_mlr')."""
    return f"hyperbolic_{cell}_eucl_mlr" if geometry == "hyperbolic_eucl_mlr" else f"{geometry}_{cell}"


GEOMETRY_CELL = {row_of(g, c): (g, c) for c in ("rnn", "gru") for g in GEOMETRIES}  # ROWS key -> (geometry, cell)


def table1_cell(data: str, cell: str) -> claims_data.Cell:
    """The Table 1 claim's cell of a dataset and cell kind ('prefix10', 'rnn': 'PREFIX-10, RNN'), with the
    paper's accuracies % of its three models."""
    return CLAIMS[ON_PAR_OR_BETTER].cell(f"{DATASETS[data].rstrip('%')}, {cell.upper()}")


def paper_accuracy(row: str, data: str) -> float:
    """The paper's Table 1 test accuracy % of model `row` on `data` (printed there with 2 decimals)."""
    geometry, cell = GEOMETRY_CELL[row]
    return table1_cell(data, cell).paper[geometry]


def mean_sd(values) -> str:
    """'91.99 ± 6.38': mean ± standard deviation over seeds (0 for one seed)."""
    s = pd.Series(list(values), dtype=float)
    return f"{s.mean():.2f} ± {s.std(ddof=1) if len(s) > 1 else 0:.2f}"


def judged(claim, cell, arms, reason: str, models=None) -> engine.Verdict:
    """engine.judge of the arms' per-seed values (and the models a gain involves), or not testable for
    `reason`."""
    if reason:
        return engine.untestable(claim, cell, reason, *map(len, arms))
    return engine.judge(claim, cell, *(list(a) for a in arms), models=models)
