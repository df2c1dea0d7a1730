"""Ganea et al.'s claims file as the reports read it (its labels; the paper's Table 1 in the cells of its
Table 1 claim), Table 1's claims judged on our seeds, and the health of the runs behind them."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from noneuclid.claims import data as claims_data, engine
from noneuclid.config import sweep_values
from noneuclid.report import prose
from noneuclid.runs import table as run_table

CLAIMS = claims_data.load("hnn")
ROWS = CLAIMS.labels["models"]  # configs/variant/hnn/<name>.yaml -> Table 1's row
DATASETS = CLAIMS.labels["datasets"]  # data=<name> -> Table 1's column
CLASSIFIERS = CLAIMS.labels["classifiers"]  # Table 2's: model.geometry -> its column
ON_PAR_OR_BETTER, GAIN = "table1_hyperbolic_on_par_or_better", "prefix_gain_grows_with_tree_likeness"
GEOMETRIES = ("euclidean", "hyperbolic_eucl_mlr", "hyperbolic")  # a run's model.geometry
CHANCE = 0.52  # below this, a balanced 2-class model has learnt nothing yet
SATURATED = 0.5  # share of sentence states within 1e-3 of the ball's boundary that marks an encoder stuck there


def row_of(geometry: str, cell: str) -> str:
    """The ROWS key of a model.geometry and model.cell ('hyperbolic_eucl_mlr', 'gru' -> 'hyperbolic_gru_eucl_mlr')."""
    return f"hyperbolic_{cell}_eucl_mlr" if geometry == "hyperbolic_eucl_mlr" else f"{geometry}_{cell}"


GEOMETRY_CELL = {row_of(g, c): (g, c) for c in ("rnn", "gru") for g in GEOMETRIES}  # ROWS key -> (geometry, cell)


def variants(experiment: str) -> list[str]:
    """The ROWS keys of the models that `experiment` (e.g. hnn/seeds) sweeps."""
    return [v.removeprefix("hnn/") for v in sweep_values(experiment, "variant")]


def table1_cell(data: str, cell: str) -> claims_data.Cell:
    """The Table 1 claim's cell of a dataset and cell kind ('prefix10', 'rnn': 'PREFIX-10, RNN')."""
    return CLAIMS[ON_PAR_OR_BETTER].cell(f"{DATASETS[data].rstrip('%')}, {cell.upper()}")


def paper_accuracy(row: str, data: str) -> float:
    """The paper's Table 1 test accuracy % of model `row` on `data`."""
    geometry, cell = GEOMETRY_CELL[row]
    return table1_cell(data, cell).paper[geometry]


def verdicts(finished: pd.DataFrame, datasets=tuple(DATASETS)) -> list[engine.Verdict]:
    """Table 1's claims on our seeds, for the cells on `datasets`: the better hyperbolic model against the
    Euclidean one (test accuracy % at best dev, Welch); the hyperbolic gain per seed of a PREFIX dataset
    against another's. Not testable: a cell without runs or whose models all stayed at chance."""
    rows = []
    claim = CLAIMS[ON_PAR_OR_BETTER]
    for cell in claim.cells:
        name, kind = cell.name.split(", ")
        data = next(d for d, label in DATASETS.items() if label.rstrip("%") == name)
        if data in datasets:
            arms = [_accuracies(finished, data, kind.lower(), g) for g in cell.arms]
            rows.append(engine.judged(claim, cell, arms, _untestable(finished, data, kind.lower(), cell)))
    claim = CLAIMS[GAIN]
    for cell in claim.cells:
        kind = cell.name.split(", ")[0].lower()
        cell = replace(cell, paper=paper_gains(cell.arms, kind), paper_source="Table 1 (hyperbolic minus Euclidean)")
        if set(cell.arms) <= set(datasets):
            arms = [_gains(finished, data, kind) for data in cell.arms]
            why = "; ".join(w for w in (_untestable(finished, data, kind) for data in cell.arms) if w)
            rows.append(engine.judged(claim, cell, arms, why, models=_models(finished, cell.arms, kind)))
    return rows


def paper_gains(datasets, cell: str) -> dict[str, float]:
    """dataset -> the paper's gain there: its Table 1 accuracy of the cell kind's better hyperbolic model
    minus the Euclidean one's."""
    return {data: round(table1_cell(data, cell).paper[table1_cell(data, cell).arms[0]]
                        - table1_cell(data, cell).paper["euclidean"], 2) for data in datasets}


def _models(finished: pd.DataFrame, datasets, cell: str) -> dict[str, tuple[list[float], float]]:
    """The models a gain cell involves -> [the test accuracy % of the seed with the best dev accuracy, the
    paper's selection] and the paper's value (the claim's `learned`)."""
    return {f"{DATASETS[data]} {ROWS[row_of(geometry, cell)]}":
            (_best_of_seeds(finished, data, cell, geometry), table1_cell(data, cell).paper[geometry])
            for data in datasets for geometry in table1_cell(data, cell).arms}


def _best_of_seeds(finished: pd.DataFrame, data: str, cell: str, geometry: str) -> list[float]:
    """[test accuracy % at best dev of the seed with the best dev accuracy], [] without runs."""
    runs = _runs_of(finished, data, cell, geometry)
    return [] if runs.empty else [100 * runs.loc[runs.best_dev_accuracy.idxmax(), "test_accuracy_at_best_dev"]]


def _accuracies(finished: pd.DataFrame, data: str, cell: str, geometry: str) -> pd.Series:
    """Test accuracy % at best dev per seed (indexed by seed) of one model on one dataset."""
    runs = _runs_of(finished, data, cell, geometry)
    if runs.empty:
        return pd.Series(dtype=float)
    return (100 * runs.set_index("cfg.seed").test_accuracy_at_best_dev).sort_index()


def _runs_of(finished: pd.DataFrame, data: str, cell: str, geometry: str) -> pd.DataFrame:
    """The finished runs of one model on one dataset."""
    return finished[(finished["cfg.data.label"] == data) & (finished["cfg.model.cell"] == cell)
                    & (finished["cfg.model.geometry"] == geometry)] if len(finished) else finished


def _gains(finished: pd.DataFrame, data: str, cell: str) -> list[float]:
    """Per seed with both: the Table 1 cell's hyperbolic model minus its Euclidean model (points)."""
    hyperbolic = table1_cell(data, cell).arms[0]
    gain = _accuracies(finished, data, cell, hyperbolic) - _accuracies(finished, data, cell, "euclidean")
    return gain.dropna().tolist()


def _untestable(finished: pd.DataFrame, data: str, cell: str, claim_cell=None) -> str:
    """Why a Table 1 cell cannot be tested here ('' where it can): no runs, or every model at chance."""
    accs = [_accuracies(finished, data, cell, g) for g in GEOMETRIES]
    if all(a.empty for a in accs):
        return (f"precondition not met: {claim_cell.precondition}" if claim_cell is not None and claim_cell.precondition
                else f"no finished runs of {DATASETS[data]} {cell.upper()}")
    if max(a.max() for a in accs if not a.empty) < 100 * CHANCE:
        return f"no model of {DATASETS[data]} {cell.upper()} left chance level at this training budget"
    return ""


def health(finished: pd.DataFrame, runs: run_table.Runs) -> list[str]:
    """PREFIX-10 runs below 80 %, runs still at chance when training stopped, and runs at chance whose
    encoders sit on the ball's boundary (templates/hnn.md's health_*)."""
    lines = []
    keys = ["cfg.data.label", "cfg.model.geometry", "cfg.model.cell"]
    totals = finished.groupby(keys).size()  # finished runs per dataset and model
    p10 = finished[finished["cfg.data.label"] == "prefix10"]
    if len(p10):
        low = p10[p10.test_accuracy_at_best_dev < 0.8]
        below = [f"{ROWS[row_of(*key[1:])]}: {n} of {totals[key]}" for key, n in low.groupby(keys).size().items()]
        lines.append(prose.fill("hnn", "health_prefix10", reached=len(p10) - len(low), runs=len(p10))
                     + (prose.fill("hnn", "health_below", below=", ".join(below)) if below else "."))
    at_chance = finished[finished.final_test_accuracy < CHANCE].groupby(keys).size()
    if len(at_chance):
        lines.append(prose.fill("hnn", "health_chance", chance=100 * CHANCE, runs=", ".join(
            f"{DATASETS[data]} {ROWS[row_of(geometry, cell)]} {n} of {totals[(data, geometry, cell)]}"
            for (data, geometry, cell), n in at_chance.items())))
    stuck = []
    for name in finished.run:
        rows = [r for r in runs.metrics(name) if "test_boundary_share_s1" in r]
        if rows and rows[-1]["test_accuracy"] < CHANCE and max(rows[-1][f"test_boundary_share_s{k}"] for k in (1, 2)) > SATURATED:
            stuck.append(name)
    if stuck:
        lines.append(prose.fill("hnn", "health_saturated", share=SATURATED, runs=", ".join(stuck)))
    return lines
