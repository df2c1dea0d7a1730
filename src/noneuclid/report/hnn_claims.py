"""Ganea et al.'s claims file as the reports read it (its labels; the paper's Table 1 in the cells of its
Table 1 claim), Table 1's claims judged on our seeds, and the health of the runs behind them."""

from __future__ import annotations

import functools
from dataclasses import replace

import pandas as pd

from noneuclid import prose
from noneuclid.claims import data as claims_data, engine
from noneuclid.report import table_engine
from noneuclid.runs import select, table as run_table

CLAIMS = claims_data.load("hnn")
SETTINGS = table_engine.axis(table_engine.load("hnn")["table1"]["rows"])  # configs/variant/hnn/<row> -> its settings
DATASETS = CLAIMS.labels["datasets"]  # data=<name> -> Table 1's column
CLASSIFIERS = CLAIMS.labels["classifiers"]  # Table 2's: model.geometry -> its column
ON_PAR_OR_BETTER, GAIN = "table1_hyperbolic_on_par_or_better", "prefix_gain_grows_with_tree_likeness"
KEYS = ["cfg.data.label", "cfg.model.geometry", "cfg.model.cell"]  # a run's dataset and model
CHANCE, SATURATED = CLAIMS.numbers["chance"], CLAIMS.numbers["saturated"]  # rules of ours (claims/hnn.yaml, numbers)
text = functools.partial(prose.fill, "hnn")  # a section of templates/hnn.md, its fields filled in

MODELS = {  # (model.geometry, model.cell) -> Table 1's row
    (s["model.geometry"], s["model.cell"]): CLAIMS.labels["models"][row] for row, s in SETTINGS.items()
}
TABLE1 = {
    (c.where["data.label"], c.where["model.cell"]): c  # (dataset, cell kind) -> the Table 1 claim's cell
    for c in CLAIMS[ON_PAR_OR_BETTER].cells
}


def tests(finished: pd.DataFrame, selector: dict) -> pd.Series:
    """seed -> the test accuracy % at best dev of the finished runs whose settings are the selector's (a
    Cell.select arm's: one model on one dataset), in seed order."""
    return 100 * select.arm_values(finished, selector, "test_accuracy_at_best_dev")


def paper_gains(datasets, cell: str) -> dict[str, float]:
    """dataset -> the paper's gain there: its Table 1 accuracy of the cell kind's better hyperbolic model
    minus the Euclidean one's."""
    cells = {data: TABLE1[data, cell] for data in datasets}
    return {data: round(c.paper[c.arms[0]] - c.paper["euclidean"], 2) for data, c in cells.items()}


def verdicts(finished: pd.DataFrame, datasets=tuple(DATASETS)) -> list[engine.Verdict]:
    """Table 1's claims on our seeds, for the cells on `datasets`: the better hyperbolic model against the
    Euclidean one (test accuracy % at best dev, Welch); the hyperbolic gain per seed of a PREFIX dataset
    against another's, judged where each model of the cell learned (`learned`: its seed with the best dev
    accuracy against the paper's). Not testable: a cell without runs or whose models all stayed at chance."""
    table1, gain = CLAIMS[ON_PAR_OR_BETTER], CLAIMS[GAIN]
    rows = [
        engine.judged(table1, cell, [tests(finished, cell.select[g]) for g in cell.arms], _untestable(finished, cell))
        for cell in table1.cells
        if cell.where["data.label"] in datasets
    ]
    return rows + [_gain_verdict(gain, cell, finished) for cell in gain.cells if set(cell.arms) <= set(datasets)]


def _gain_verdict(claim: claims_data.Claim, cell: claims_data.Cell, finished: pd.DataFrame) -> engine.Verdict:
    """The gain claim's verdict of a cell (its arms datasets; the paper's gains from its Table 1): per dataset
    and seed, the Table 1 cell's hyperbolic model's test accuracy % minus the Euclidean one's, judged where
    each of those models learned on the seeds the gains are judged on (their mean within `learned.within`)."""
    kind = cell.where["model.cell"]
    cell = replace(cell, paper=paper_gains(cell.arms, kind), paper_source=text("gain_source"))
    cells = [TABLE1[data, kind] for data in cell.arms]  # each dataset's Table 1 cell
    gains, learned = [], {}
    for data, table1 in zip(cell.arms, cells):
        arms = {g: tests(finished, table1.select[g]) for g in table1.arms}  # hyperbolic, euclidean
        gain = (arms[table1.arms[0]] - arms[table1.arms[1]]).dropna()
        gains.append(gain.tolist())  # the seeds the gain is judged on:
        learned |= {
            f"{DATASETS[data]} {MODELS[g, kind]}": (t.loc[gain.index].tolist(), table1.paper[g])
            for g, t in arms.items()
        }
    why = "; ".join(filter(None, (_untestable(finished, table1) for table1 in cells)))
    return engine.judged(claim, cell, gains, why, models=learned)


def _untestable(finished: pd.DataFrame, cell: claims_data.Cell) -> str:
    """Why a cell of the Table 1 claim cannot be tested here ('' where it can): no runs (its `precondition`
    not met, where it has one), or every model of its dataset and cell kind at chance."""
    found = tests(finished, cell.where)
    name = f"{DATASETS[cell.where['data.label']]} {cell.where['model.cell'].upper()}"
    if found.empty:
        return text("precondition" if cell.precondition else "no_runs", precondition=cell.precondition, cell=name)
    if found.max() < 100 * CHANCE:
        return text("at_chance", cell=name)
    return ""


def health(finished: pd.DataFrame, runs: run_table.Runs) -> list[str]:
    """PREFIX-10 runs below 80 %, runs still at chance when training stopped, and runs at chance whose
    encoders sit on the ball's boundary (templates/hnn.md's health_*)."""
    lines, totals = [], finished.groupby(KEYS).size()  # finished runs per dataset and model
    p10 = finished[select.chosen(finished, {"data.label": "prefix10"})]
    if len(p10):
        low = p10[p10.test_accuracy_at_best_dev < 0.8].groupby(KEYS).size()
        below = ", ".join(f"{MODELS[key[1:]]}: {n} of {totals[key]}" for key, n in low.items())
        lines.append(
            text("health_prefix10", reached=len(p10) - low.sum(), runs=len(p10))
            + (text("health_below", below=below) if below else ".")
        )
    at_chance = finished[finished.final_test_accuracy < CHANCE].groupby(KEYS).size()
    chance = ", ".join(f"{DATASETS[key[0]]} {MODELS[key[1:]]} {n} of {totals[key]}" for key, n in at_chance.items())
    lines += [text("health_chance", chance=100 * CHANCE, runs=chance)] * bool(chance)
    last = {n: r[-1] for n in finished.run if (r := [m for m in runs.metrics(n) if "test_boundary_share_s1" in m])}
    boundary = {n: max(r["test_boundary_share_s1"], r["test_boundary_share_s2"]) for n, r in last.items()}
    stuck = [n for n, r in last.items() if r["test_accuracy"] < CHANCE and boundary[n] > SATURATED]  # on the boundary
    return lines + [text("health_saturated", share=SATURATED, runs=", ".join(stuck))] * bool(stuck)
