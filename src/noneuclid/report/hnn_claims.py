"""Ganea et al.'s claims file as the reports read it (its labels; the paper's Table 1 in the cells of its
Table 1 claim), Table 1's claims judged on our seeds, and the health of the runs behind them."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from noneuclid.claims import data as claims_data, engine
from noneuclid.report import prose
from noneuclid.runs import table as run_table

CLAIMS = claims_data.load("hnn")
ROWS = CLAIMS.labels["models"]  # configs/variant/hnn/<name>.yaml -> Table 1's row
DATASETS = CLAIMS.labels["datasets"]  # data=<name> -> Table 1's column
CLASSIFIERS = CLAIMS.labels["classifiers"]  # Table 2's: model.geometry -> its column
ON_PAR_OR_BETTER, GAIN = "table1_hyperbolic_on_par_or_better", "prefix_gain_grows_with_tree_likeness"
KEYS = ["cfg.data.label", "cfg.model.geometry", "cfg.model.cell"]  # a run's dataset and model
CHANCE = 0.52  # below this, a balanced 2-class model has learnt nothing yet
SATURATED = 0.5  # share of sentence states within 1e-3 of the ball's boundary that marks an encoder stuck there


def model_of(row: str) -> tuple[str, str]:
    """(model.geometry, model.cell) of a ROWS key: 'hyperbolic_gru_eucl_mlr' -> ('hyperbolic_eucl_mlr', 'gru')."""
    geometry, cell, *mlr = row.split("_")
    return "_".join([geometry, *mlr]), cell


MODELS = {model_of(row): label for row, label in ROWS.items()}  # (model.geometry, model.cell) -> Table 1's row


def table1_cell(data: str, cell: str) -> claims_data.Cell:
    """The Table 1 claim's cell of a dataset and cell kind ('prefix10', 'rnn': 'PREFIX-10, RNN')."""
    return CLAIMS[ON_PAR_OR_BETTER].cell(f"{DATASETS[data].rstrip('%')}, {cell.upper()}")


def best_seed(runs: pd.DataFrame) -> pd.Series | None:
    """The run with the best dev accuracy (of those tied, the lowest seed), as the paper picks; None without runs."""
    if runs.empty:
        return None
    ordered = runs.sort_values("cfg.seed", kind="stable")
    return ordered.loc[ordered.best_dev_accuracy.idxmax()]


def _runs_of(finished: pd.DataFrame, data: str, cell: str, geometry: str | None = None) -> pd.DataFrame:
    """The finished runs on one dataset of one cell kind (and geometry, where given)."""
    if finished.empty:
        return finished
    found = (finished["cfg.data.label"] == data) & (finished["cfg.model.cell"] == cell)
    return finished[found & (finished["cfg.model.geometry"] == geometry if geometry else found)]


def _selected(finished: pd.DataFrame, data: str, cell: str, geometry: str) -> list[float]:
    """[test accuracy % at best dev of the seed with the best dev accuracy], [] without runs."""
    best = best_seed(_runs_of(finished, data, cell, geometry))
    return [] if best is None else [100 * best.test_accuracy_at_best_dev]


def _accuracies(finished: pd.DataFrame, data: str, cell: str, geometry: str) -> pd.Series:
    """Test accuracy % at best dev per seed (indexed by seed) of one model on one dataset."""
    runs = _runs_of(finished, data, cell, geometry)
    return (100 * runs.set_index("cfg.seed").test_accuracy_at_best_dev).sort_index() if len(runs) else pd.Series(dtype=float)


def paper_gains(datasets, cell: str) -> dict[str, float]:
    """dataset -> the paper's gain there: its Table 1 accuracy of the cell kind's better hyperbolic model
    minus the Euclidean one's."""
    cells = {data: table1_cell(data, cell) for data in datasets}
    return {data: round(c.paper[c.arms[0]] - c.paper["euclidean"], 2) for data, c in cells.items()}


def verdicts(finished: pd.DataFrame, datasets=tuple(DATASETS)) -> list[engine.Verdict]:
    """Table 1's claims on our seeds, for the cells on `datasets`: the better hyperbolic model against the
    Euclidean one (test accuracy % at best dev, Welch); the hyperbolic gain per seed of a PREFIX dataset
    against another's, judged where each model of the cell learned (`learned`: its seed with the best dev
    accuracy against the paper's). Not testable: a cell without runs or whose models all stayed at chance."""
    data_of, rows = {label.rstrip("%"): data for data, label in DATASETS.items()}, []
    claim = CLAIMS[ON_PAR_OR_BETTER]
    for cell in claim.cells:
        name, kind = cell.name.split(", ")
        if data_of[name] in datasets:
            arms = [_accuracies(finished, data_of[name], kind.lower(), g) for g in cell.arms]
            why = _untestable(finished, data_of[name], kind.lower(), cell.precondition)
            rows.append(engine.judged(claim, cell, arms, why))
    claim = CLAIMS[GAIN]
    for cell in claim.cells:
        kind = cell.name.split(", ")[0].lower()
        cell = replace(cell, paper=paper_gains(cell.arms, kind), paper_source="Table 1 (hyperbolic minus Euclidean)")
        if set(cell.arms) <= set(datasets):
            gains = [(_accuracies(finished, data, kind, table1_cell(data, kind).arms[0])
                      - _accuracies(finished, data, kind, "euclidean")).dropna().tolist() for data in cell.arms]
            why = "; ".join(filter(None, (_untestable(finished, data, kind) for data in cell.arms)))
            learned = {f"{DATASETS[data]} {MODELS[g, kind]}": (_selected(finished, data, kind, g),
                                                                table1_cell(data, kind).paper[g])
                       for data in cell.arms for g in table1_cell(data, kind).arms}
            rows.append(engine.judged(claim, cell, gains, why, models=learned))
    return rows


def _untestable(finished: pd.DataFrame, data: str, cell: str, precondition: str | None = None) -> str:
    """Why a Table 1 cell cannot be tested here ('' where it can): no runs (its claim cell's `precondition`
    not met, where it has one), or every model at chance."""
    runs = _runs_of(finished, data, cell)
    if runs.empty:
        return prose.fill("hnn", "precondition" if precondition else "no_runs", precondition=precondition,
                          cell=f"{DATASETS[data]} {cell.upper()}")
    if runs.test_accuracy_at_best_dev.max() < CHANCE:
        return prose.fill("hnn", "at_chance", cell=f"{DATASETS[data]} {cell.upper()}")
    return ""


def health(finished: pd.DataFrame, runs: run_table.Runs) -> list[str]:
    """PREFIX-10 runs below 80 %, runs still at chance when training stopped, and runs at chance whose
    encoders sit on the ball's boundary (templates/hnn.md's health_*)."""
    lines, totals = [], finished.groupby(KEYS).size()  # finished runs per dataset and model
    p10 = finished[finished["cfg.data.label"] == "prefix10"]
    if len(p10):
        low = p10[p10.test_accuracy_at_best_dev < 0.8].groupby(KEYS).size()
        below = ", ".join(f"{MODELS[key[1:]]}: {n} of {totals[key]}" for key, n in low.items())
        lines.append(prose.fill("hnn", "health_prefix10", reached=len(p10) - low.sum(), runs=len(p10))
                     + (prose.fill("hnn", "health_below", below=below) if below else "."))
    at_chance = finished[finished.final_test_accuracy < CHANCE].groupby(KEYS).size()
    if len(at_chance):
        lines.append(prose.fill("hnn", "health_chance", chance=100 * CHANCE, runs=", ".join(
            f"{DATASETS[key[0]]} {MODELS[key[1:]]} {n} of {totals[key]}" for key, n in at_chance.items())))
    last = {name: next((r for r in reversed(runs.metrics(name)) if "test_boundary_share_s1" in r), None)
            for name in finished.run}
    stuck = [name for name, r in last.items() if r and r["test_accuracy"] < CHANCE
             and max(r["test_boundary_share_s1"], r["test_boundary_share_s2"]) > SATURATED]
    if stuck:
        lines.append(prose.fill("hnn", "health_saturated", share=SATURATED, runs=", ".join(stuck)))
    return lines
