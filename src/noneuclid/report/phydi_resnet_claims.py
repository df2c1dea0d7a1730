"""PHYDI's Tables 1 and 2 judged: the claims <table>_m1, _auc and _m2 cell by cell, and
table1_lead_grows_with_depth, by the claims engine from the scored runs of report.phydi_resnet."""

from __future__ import annotations

import math
from dataclasses import replace

import pandas as pd

from noneuclid.claims import engine
from noneuclid.report.phydi_resnet import IMAGES, M1_ACCURACY, M1_LEVEL, RESNET, cell_key, cells, paper_leads
from noneuclid.runs import select
from noneuclid.runs.curves import epochs_to
from noneuclid.runs.phydi import CLAIMS, fill, no_runs

M2_BEYOND = fill("m2_beyond")
METRICS = ("m1", "auc", "m2")  # a table's claims: <table>_<metric>


def images(runs: pd.DataFrame, where: dict) -> int:
    """Training images per epoch of the runs of a cell (data.train_size; null: all of CIFAR-10's)."""
    sizes = select.arm_values(runs, where, "cfg.data.train_size") if "cfg.data.train_size" in runs else []
    return int(pd.Series(sizes, dtype=float).fillna(IMAGES).max()) if len(sizes) else IMAGES


def resnet_claims(runs: pd.DataFrame, table: str) -> list[engine.Verdict]:
    """The verdicts of <table>_m1, _auc and _m2 on the cells that have runs (by cell, then metric) from every
    scored run of their arms; M2 read after the paper's training images (`images`)."""
    rows, have = [], cells(runs, table)
    claims = [(metric, CLAIMS[f"{table}_{metric}"], c) for metric in METRICS for c in CLAIMS[f"{table}_{metric}"].cells]
    for metric, claim, cell in sorted(claims, key=lambda c: cell_key(c[2].where, table)):
        if cell_key(cell.where, table) not in have:
            continue
        level = select.arm_values(runs, cell.where, "level").iloc[0]
        epoch = math.ceil(cell.paper.get("M2", 0) * IMAGES / images(runs, cell.where))
        read = runs.assign(m2=[100 * c.get(epoch, math.nan) for c in runs.curve])  # the accuracy % at the epoch
        values = [list(select.arm_values(read, cell.select[arm], metric)) for arm in cell.arms]
        why = no_runs(dict(zip(cell.arms, values))) or (M2_BEYOND if any(map(math.isnan, sum(values, []))) else "")
        m1 = f"m1 at {round(100 * level)} %" + ("" if level == M1_ACCURACY else f" ({M1_LEVEL} out of reach)")
        at, label = {"m1": (100 * level, m1), "m2": (epoch, f"accuracy at epoch {epoch}")}.get(metric, (math.nan, ""))
        rows.append(replace(engine.judged(claim, cell, values, why), level=at, label=label))
    return rows


def lead_verdicts(runs: pd.DataFrame) -> list[engine.Verdict]:
    """table1_lead_grows_with_depth per n from Table 1's scored runs: standard's M1 minus PHYDI's per seed,
    152 vs 18 layers, both at the lower of the two cells' M1 levels."""
    claim, rows = CLAIMS["table1_lead_grows_with_depth"], []
    for cell in claim.cells:
        cell = replace(cell, paper=paper_leads(cell), paper_source=fill("lead_source"))
        arms = [
            {i: select.arm_values(runs, {**cell.select[arm], "model.init": i}, "curve") for i in ("standard", "phydi")}
            for arm in cell.arms
        ]
        missing = [
            f"{why} in {RESNET}{cell.select[arm]['model.depth']}, n = {cell.where['model.n']}"
            for arm, inits in zip(cell.arms, arms)
            if (why := no_runs(inits))
        ]
        if missing:
            rows.append(engine.untestable(claim, cell, "; ".join(missing)))
            continue
        level = min(select.arm_values(runs, cell.select[arm], "level").iloc[0] for arm in cell.arms)
        first = [{i: c.map(lambda s, level=level: epochs_to(s, level)) for i, c in inits.items()} for inits in arms]
        leads = [list((f["standard"] - f["phydi"]).dropna()) for f in first]
        judged = engine.judge(claim, cell, *leads)
        rows.append(replace(judged, level=100 * level, label=f"m1_lead at {round(100 * level)} %"))
    return rows
