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


def by_model(finished: pd.DataFrame) -> dict[tuple[str, str, str], pd.DataFrame]:
    """(dataset, model.geometry, model.cell) -> its finished runs' test accuracy % at best dev (`test`) and
    best dev accuracy (`dev`), indexed by seed in order."""
    if finished.empty:
        return {}
    columns = {"cfg.seed": "seed", "test_accuracy_at_best_dev": "test", "best_dev_accuracy": "dev"}
    found = finished[[*KEYS, *columns]].rename(columns=columns).assign(test=lambda f: 100 * f.test)
    return {key: runs.set_index("seed")[["test", "dev"]].sort_index() for key, runs in found.groupby(KEYS)}


NO_RUNS = pd.DataFrame({"test": [], "dev": []}, index=pd.Index([], name="seed"))  # a model without runs in by_model


def selected(seeds: pd.DataFrame) -> pd.Series:
    """Test accuracy % of the seed with the best dev accuracy (of those tied, the lowest), as the paper picks,
    indexed by that seed; empty without runs. `seeds`: a value of by_model."""
    return seeds.test[seeds.dev == seeds.dev.max()].head(1)


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
    models, rows = by_model(finished), []
    data_of = {label.rstrip("%"): data for data, label in DATASETS.items()}
    claim = CLAIMS[ON_PAR_OR_BETTER]
    for cell in claim.cells:
        name, kind = cell.name.split(", ")
        if data_of[name] in datasets:
            arms = [models.get((data_of[name], g, kind.lower()), NO_RUNS).test for g in cell.arms]
            why = _untestable(models, data_of[name], kind.lower(), cell.precondition)
            rows.append(engine.judged(claim, cell, arms, why))
    claim = CLAIMS[GAIN]
    for cell in claim.cells:
        kind = cell.name.split(", ")[0].lower()
        cell = replace(cell, paper=paper_gains(cell.arms, kind), paper_source=prose.fill("hnn", "gain_source"))
        if set(cell.arms) <= set(datasets):
            arms = {data: [models.get((data, g, kind), NO_RUNS) for g in table1_cell(data, kind).arms]
                    for data in cell.arms}  # dataset -> the seeds of its cell's hyperbolic and Euclidean model
            gains = [(hyperbolic.test - euclidean.test).dropna().tolist() for hyperbolic, euclidean in arms.values()]
            why = "; ".join(filter(None, (_untestable(models, data, kind) for data in cell.arms)))
            learned = {f"{DATASETS[data]} {MODELS[g, kind]}": (selected(seeds).tolist(), table1_cell(data, kind).paper[g])
                       for data in cell.arms for g, seeds in zip(table1_cell(data, kind).arms, arms[data])}
            rows.append(engine.judged(claim, cell, gains, why, models=learned))
    return rows


def _untestable(models: dict, data: str, cell: str, precondition: str | None = None) -> str:
    """Why a Table 1 cell cannot be tested here ('' where it can): no runs (its claim cell's `precondition`
    not met, where it has one), or every model at chance. `models`: by_model."""
    tests = [seeds.test for (d, _, c), seeds in models.items() if (d, c) == (data, cell)]
    if not tests:
        return prose.fill("hnn", "precondition" if precondition else "no_runs", precondition=precondition,
                          cell=f"{DATASETS[data]} {cell.upper()}")
    if pd.concat(tests).max() < 100 * CHANCE:
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
