"""PHYDI's Tables 1 and 2 (PHResNets on CIFAR-10 by init) from each finished run's validation accuracy per
epoch, beside the paper's numbers (shown as claims/phydi_tables.yaml's resnet; their claims judged by
phydi_resnet_claims). The metrics (M1, M1 at X %, AUC, M2) are those of claims/phydi.yaml's units; M2
(ours) is the first epoch PHYDI's mean curve is above the other init's by more than their combined s.e.
(estimates.compare)."""

from __future__ import annotations

import math

import pandas as pd

from noneuclid.claims.estimates import compare, estimate
from noneuclid.config import sweep_values
from noneuclid.runs import select
from noneuclid.runs.curves import epochs_to, with_curves
from noneuclid.runs.phydi import CLAIMS, MODELS, NAMES, NUMBERS, fill

M1_ACCURACY, IMAGES = NUMBERS["m1_accuracy"], int(NUMBERS["cifar10_train_images"])
M1_LEVEL = f"{round(100 * M1_ACCURACY)} %"  # as the tables and claims show it
INITS = tuple(sweep_values("phydi/table1", "model.init"))  # standard, wkp, phydi: the rows of a cell
RESNET = MODELS["phresnet"]  # the paper's name, e.g. PHResNet18 with its depth
TABLES = {t: list(CLAIMS[f"{t}_m1"].cells[0].where) for t in ("table1", "table2")}  # the settings of a cell


def cell_key(settings: dict, table: str) -> tuple:
    """(depth, n[, lr]): the settings of TABLES[table] among a claim cell's or arm's (config key -> value)."""
    return tuple(settings[k] for k in TABLES[table])


def paper_table(table: str) -> dict[tuple, dict[str, tuple[float, float, float | None]]]:
    """The paper's Table 1 or 2 from claims/phydi.yaml: (depth, n[, lr]) -> init -> (M1 mean, s.e., M2 or None)."""
    rows = {}
    for cell in CLAIMS[f"{table}_m1"].cells:
        m2 = CLAIMS[f"{table}_m2"].cell(cell.name).paper["M2"]
        for arm in cell.arms:
            m2_arm = None if arm == "phydi" else m2
            rows.setdefault(cell_key(cell.where, table), {})[arm] = (cell.paper[arm], cell.paper_se[arm], m2_arm)
    return rows


PAPER = {table: paper_table(table) for table in TABLES}


def resnet_runs(runs: pd.DataFrame, curves: pd.DataFrame, table: str) -> pd.DataFrame:
    """The finished runs of the table's sweep, one row each with its settings and validation accuracy by
    epoch (curve), scored."""
    return scores(with_curves(select.finished(runs), curves, "val_accuracy", [*TABLES[table], "model.init"]), table)


def scores(runs: pd.DataFrame, table: str) -> pd.DataFrame:
    """The runs (settings cfg.*, curve) with their cell's X of 'M1 at X %' (x) and M1 level (level: 80 %
    where every run of the cell reaches it, else X), and their M1 at that level (m1) and AUC % (auc)."""
    scored = []
    for _, cell in select.by_settings(runs, TABLES[table]):
        x = threshold_x(cell)
        level = M1_ACCURACY if all(epochs_to(c, M1_ACCURACY) < math.inf for c in cell.curve) else x
        m1, area = [epochs_to(c, level) for c in cell.curve], [100 * auc(c) for c in cell.curve]
        scored.append(cell.assign(x=x, level=level, m1=m1, auc=area))
    return pd.concat(scored) if scored else runs.assign(x=math.nan, level=math.nan, m1=math.nan, auc=math.nan)


def cells(runs: pd.DataFrame, table: str) -> set[tuple]:
    """The (depth, n[, lr]) settings of the runs' cells."""
    return {cell_key(settings, table) for settings, _ in select.by_settings(runs, TABLES[table])}


def threshold_x(cell: pd.DataFrame) -> float:
    """X of 'M1 at X %' for a cell's runs (their curves)."""
    return math.floor(100 * NUMBERS["x_fraction"] * cell.curve.map(pd.Series.max).min()) / 100


def auc(curve: pd.Series) -> float:
    """The area under the curve per epoch: the mean over epochs 1..E."""
    return float(curve.mean())


def beats_from(phydi: list[pd.Series], other: list[pd.Series]) -> float:
    """Our M2 of PHYDI's curves (one per seed) against `other`'s; inf if never."""
    phydi, other = (pd.concat(curves, axis=1).sort_index() for curves in (phydi, other))
    for epoch in phydi.index.intersection(other.index):
        a, b = estimate(phydi.loc[epoch].dropna()), estimate(other.loc[epoch].dropna())
        if compare(a, b, lower_is_better=False) == "better":
            return float(epoch)
    return math.inf


def numbers(runs: pd.DataFrame, table: str) -> pd.DataFrame:
    """A row per cell and init of the table's scored runs: M1 over the seeds that reach 80 %, M1 at X %, AUC
    and best accuracy (mean and s.e. over seeds), M2 (inf: never), beside the paper's M1 (mean, s.e.) and M2.
    claims/phydi_tables.yaml's resnet shows them."""
    rows = []
    for settings, cell in select.by_settings(runs, TABLES[table]):
        curves = {init: list(select.arm_values(cell, {"model.init": init}, "curve")) for init in INITS}
        paper = PAPER[table].get(cell_key(settings, table), {})
        keys = {key.split(".")[-1]: value for key, value in settings.items()}  # depth, n[, lr]
        for init in (i for i in INITS if curves[i]):
            m2 = math.nan if init == "phydi" or not curves["phydi"] else beats_from(curves["phydi"], curves[init])
            model = f"{RESNET}{settings['model.depth']}" if init == INITS[0] else f"+ {NAMES[init]}"
            theirs = dict(zip(("paper_m1_mean", "paper_m1_se", "paper_m2"), paper.get(init, [None] * 3)))
            rows.append({**keys, "model": model, **_numbers(curves[init], cell.x.iloc[0], m2), **theirs})
    return pd.DataFrame(rows)


def _numbers(curves: list[pd.Series], x: float, m2: float) -> dict:
    """One init's numbers of a cell (`numbers`) from its curves, one per seed."""
    reached = [m for m in (epochs_to(s, M1_ACCURACY) for s in curves) if m < math.inf]
    return {
        "seeds": len(curves),
        **_mean_se(m1=reached),
        "m1_reached": len(reached),
        "x_percent": round(100 * x),
        **_mean_se(
            m1_at_x=[epochs_to(s, x) for s in curves],
            auc=[100 * auc(s) for s in curves],
            best_val_acc=[100 * s.max() for s in curves],
        ),
        "m2": m2,
        "epochs": max(len(s) for s in curves),
    }


def _mean_se(**values: list[float]) -> dict[str, float]:
    """<name>_mean and <name>_se of each name's per-seed values (estimates.estimate)."""
    return {f"{name}_{part}": getattr(estimate(v), part) for name, v in values.items() for part in ("mean", "se")}


def paper_leads(cell) -> dict[str, float]:
    """arm -> the paper's M1 lead at its settings (table1_lead_grows_with_depth's cell): its Table 1 M1 of
    standard minus PHYDI's."""
    paper = {arm: PAPER["table1"][cell_key(cell.select[arm], "table1")] for arm in cell.arms}
    return {arm: round(p["standard"][0] - p["phydi"][0], 2) for arm, p in paper.items()}


def not_run(have, paper: dict) -> str:
    """The paper's cells without finished runs here (not in `have`) by n, e.g. 'n = 2: PHResNet18 (1 of the
    paper's 9 cells)'."""
    missing = [k for k in paper if k not in have]
    by_n = {
        n: [f"{RESNET}{k[0]}" + (f" (lr {k[2]:g})" if len(k) > 2 else "") for k in missing if k[1] == n]
        for n in sorted({k[1] for k in missing})
    }
    named = "; ".join(f"n = {n}: {', '.join(names)}" for n, names in by_n.items())
    return fill("not_run", named=named, missing=len(missing), cells=len(paper)) if missing else ""
