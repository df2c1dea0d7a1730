"""PHYDI's Tables 1 and 2 (PHResNets on CIFAR-10 by init) from each finished run's validation accuracy per
epoch, beside the paper's numbers, and their claims judged by the claims engine.

Per run:  M1 epochs to accuracy >= 80 % (numbers.m1_accuracy); M1 at X % the same at X = 0.9 x the lowest best
          accuracy of any run of the cell, rounded down to a percent (a level every run reaches); AUC the
          mean accuracy over the epochs run.
Per cell: M2 (ours) the first epoch PHYDI's mean curve is above the other init's by more than their combined
          s.e. (estimates.compare).
Claims <table>_m1 (at 80 % where every run of the cell reaches it, else at X %), _auc and _m2 (accuracy after
the paper's M2 epochs' training images): PHYDI vs standard and vs WKP, per seed;
table1_lead_grows_with_depth: PHYDI's M1 lead, 152 vs 18 layers.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace

import pandas as pd

from noneuclid.claims import data as claims_data, engine
from noneuclid.claims.estimates import Estimate, compare, estimate, plus_minus
from noneuclid.report.phydi_runs import CLAIMS, NAMES, NUMBERS, Curves, epochs_to, pivot

M1_ACCURACY, IMAGES = NUMBERS["m1_accuracy"], int(NUMBERS["cifar10_train_images"])
M1_LEVEL = f"{round(100 * M1_ACCURACY)} %"  # as the tables and claims show it
INITS = ("standard", "wkp", "phydi")
LABELS = {"standard": "PHResNet{d}", "wkp": "+ WKP", "phydi": "+ PHYDI"}
TABLES = {"table1": ["model.depth", "model.n"], "table2": ["model.depth", "model.n", "optim.lr"]}  # cell keys
M2_BEYOND = ("the runs end before the epoch that has seen the paper's M2 training images (the level column: "
             "that epoch; the epochs run: the table's)")
CELL = re.compile(r"PHResNet(?P<depth>\d+), n = (?P<n>\d+)(?:, lr (?P<lr>[\d.]+))?, vs \w+")


def paper_table(table: str) -> dict[tuple, dict[str, tuple[float, float, float | None]]]:
    """The paper's Table 1 or 2 from claims/phydi.yaml: (depth, n[, lr]) -> init -> (M1 mean, s.e., M2 or None)."""
    rows = {}
    for cell in CLAIMS[f"{table}_m1"].cells:
        match = CELL.fullmatch(cell.name)
        key = (int(match["depth"]), int(match["n"])) + ((float(match["lr"]),) if match["lr"] else ())
        other = next(arm for arm in cell.arms if arm != "phydi")
        m2 = CLAIMS[f"{table}_m2"].cell(cell.name).paper["M2"]
        rows.setdefault(key, {})["phydi"] = (cell.paper["phydi"], cell.paper_se["phydi"], None)
        rows[key][other] = (cell.paper[other], cell.paper_se[other], m2)
    return rows


PAPER_TABLE1, PAPER_TABLE2 = paper_table("table1"), paper_table("table2")


def threshold_x(curves: dict[str, Curves]) -> float:
    """X of 'M1 at X %' for a cell (init -> curves)."""
    lowest = min(float(c.max().min()) for c in curves.values())
    return math.floor(100 * NUMBERS["x_fraction"] * lowest) / 100


def auc(curve: pd.Series) -> float:
    """The area under the curve per epoch: the mean over epochs 1..E."""
    return float(curve.mean())


def beats_from(phydi: Curves, other: Curves) -> float:
    """Our M2 of PHYDI against `other`; inf if never."""
    for epoch in phydi.index.intersection(other.index):
        a, b = estimate(phydi.loc[epoch].dropna()), estimate(other.loc[epoch].dropna())
        if compare(a, b, lower_is_better=False) == "better":
            return float(epoch)
    return math.inf


def m1_level(curves: dict[str, Curves], x: float) -> float:
    """The accuracy level of a cell's M1: 80 % where every run of the cell reaches it, else X."""
    every_run = all(not math.isinf(epochs_to(c[s].dropna(), M1_ACCURACY)) for c in curves.values() for s in c)
    return M1_ACCURACY if every_run else x


def m2_epoch(paper_m2: float, images: int) -> int:
    """Our epoch that has seen the training images of the paper's M2 epochs: ceil(M2 x 50,000 / images)."""
    return math.ceil(paper_m2 * IMAGES / images)


def resnet_rows(curves: dict[str, Curves], paper: dict, x: float) -> dict[str, dict]:
    """init -> our numbers for one cell beside the paper's (mean and s.e. over seeds; inf: never; NaN: none)."""
    rows = {}
    for init in (i for i in INITS if i in curves):
        cols = [curves[init][s].dropna() for s in curves[init]]
        m1_paper, se_paper, m2_paper = paper.get(init, (math.nan, math.nan, None))
        reached = [m for m in (epochs_to(s, M1_ACCURACY) for s in cols) if not math.isinf(m)]
        m1, m1_x = estimate(reached), estimate(epochs_to(s, x) for s in cols)
        area, best = estimate(100 * auc(s) for s in cols), estimate(100 * s.max() for s in cols)
        rows[init] = {
            "seeds": len(cols), "m1_mean": m1.mean, "m1_se": m1.se, "m1_reached": len(reached),
            "x_percent": round(100 * x), "m1_at_x_mean": m1_x.mean, "m1_at_x_se": m1_x.se,
            "auc_mean": area.mean, "auc_se": area.se, "best_val_acc_mean": best.mean, "best_val_acc_se": best.se,
            "m2": math.nan if init == "phydi" or "phydi" not in curves else beats_from(curves["phydi"], curves[init]),
            "epochs": max(len(s) for s in cols), "paper_m1_mean": m1_paper, "paper_m1_se": se_paper,
            "paper_m2": math.nan if m2_paper is None else m2_paper}
    return rows


def resnet_shown(numbers: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """The Tables 1-2 numbers in words: 'mean ± s.e.', 'not reached', 'never', '-' for none."""
    def shown(r) -> dict:
        paper = not math.isnan(r.paper_m1_mean)
        return {**{k.split(".")[-1]: getattr(r, k.split(".")[-1]) for k in keys}, "model": r.model,
                "seeds": r.seeds,
                "M1 (ours)": str(Estimate(r.m1_mean, r.m1_se, r.m1_reached)) if r.m1_reached else "not reached",
                f"reached {M1_LEVEL}": f"{r.m1_reached}/{r.seeds}", "X %": r.x_percent,
                "M1 at X % (ours)": str(Estimate(r.m1_at_x_mean, r.m1_at_x_se, r.seeds)),
                "AUC % (ours)": str(Estimate(r.auc_mean, r.auc_se, r.seeds)),
                "best val acc % (ours)": str(Estimate(r.best_val_acc_mean, r.best_val_acc_se, r.seeds)),
                "M2 (ours)": "-" if math.isnan(r.m2) else "never" if math.isinf(r.m2) else int(r.m2),
                "epochs": r.epochs, "M1 (paper)": plus_minus(r.paper_m1_mean, r.paper_m1_se) if paper else "",
                "M2 (paper)": "" if not paper else "-" if math.isnan(r.paper_m2) else int(r.paper_m2)}
    return pd.DataFrame([shown(r) for r in numbers.itertuples(index=False)])


def claim_cell(key: tuple, other: str) -> str:
    """The claims file's name of a Tables 1-2 cell, e.g. 'PHResNet50, n = 3, lr 0.01, vs WKP'."""
    lr = f", lr {key[2]:g}" if len(key) > 2 else ""
    return f"PHResNet{key[0]}, n = {key[1]}{lr}, vs {NAMES[other]}"


def resnet_claims(curves: dict[str, Curves], table: str, key: tuple, x: float,
                  images: int = IMAGES) -> list[engine.Verdict]:
    """The cell's verdicts on <table>_m1, _auc and _m2 (none where the paper has no such cell); images:
    training images per epoch of its runs."""
    level = m1_level(curves, x)
    label = f"m1 at {round(100 * level)} %" + ("" if level == M1_ACCURACY else f" ({M1_LEVEL} out of reach)")
    per_seed = {"m1": lambda curve, cell: epochs_to(curve, level), "auc": lambda curve, cell: 100 * auc(curve),
                "m2": lambda curve, cell: 100 * curve.get(m2_epoch(cell.paper["M2"], images), math.nan)}
    rows = []
    for metric, value in per_seed.items():
        claim = CLAIMS[f"{table}_{metric}"]
        for cell in (c for other in ("standard", "wkp") for c in claim.cells if c.name == claim_cell(key, other)):
            epoch = m2_epoch(cell.paper.get("M2", 0), images)
            levels = {"m1": (100 * level, label), "m2": (epoch, f"accuracy at epoch {epoch}")}
            row = _resnet_verdict(claim, cell, curves, value)
            at, text = levels.get(metric, (math.nan, ""))
            rows.append(replace(row, level=at, label=text))
    return rows


def _resnet_verdict(claim: claims_data.Claim, cell: claims_data.Cell, curves: dict[str, Curves],
                    value) -> engine.Verdict:
    """A claim cell's verdict from value(curve, cell) of every finished seed of its two inits."""
    missing = [NAMES[a] for a in cell.arms if a not in curves]
    values = [[value(curves[a][s].dropna(), cell) for s in curves.get(a, [])] for a in cell.arms]
    if missing:
        return engine.untestable(claim, cell, f"no finished runs of {', '.join(missing)}", *map(len, values))
    return engine.judged(claim, cell, values, "" if not any(math.isnan(x) for v in values for x in v) else
                         M2_BEYOND)


def resnet_tables(cells: dict[tuple, dict[str, Curves]], keys: list[str], paper: dict, table: str,
                  images: dict[tuple, int] | None = None) -> tuple[pd.DataFrame, list[engine.Verdict]]:
    """(numbers: a row per cell and init, claims: the verdicts of <table>_*) from the cells' curves, keyed by
    the settings of `keys`; images: training images per epoch per cell (default: all of CIFAR-10's)."""
    numbers, claims = [], []
    for cell in sorted(cells):
        x = threshold_x(cells[cell])
        settings = {k.split(".")[-1]: v for k, v in zip(keys, cell)}
        for init, row in resnet_rows(cells[cell], paper.get(cell, {}), x).items():
            numbers.append({**settings, "model": LABELS[init].format(d=settings.get("depth", "")), **row})
        claims += resnet_claims(cells[cell], table, cell, x, (images or {}).get(cell, IMAGES))
    return pd.DataFrame(numbers), claims


def lead_verdicts(cells: dict[tuple, dict[str, Curves]]) -> list[engine.Verdict]:
    """table1_lead_grows_with_depth per n: standard's M1 minus PHYDI's per seed, 152 vs 18 layers, both at
    the lower of the two cells' M1 levels."""
    claim, rows = CLAIMS["table1_lead_grows_with_depth"], []
    for cell in claim.cells:
        n = int(re.search(r"n = (\d+)", cell.name)[1])
        depths = [int(arm.removeprefix("depth")) for arm in cell.arms]
        cell = replace(cell, paper=paper_leads(cell.arms, n), paper_source="Table 1 (standard's M1 minus PHYDI's)")
        absent = {d: [NAMES[i] for i in ("standard", "phydi") if i not in cells.get((d, n), {})] for d in depths}
        missing = [f"no finished runs of {', '.join(a)} in PHResNet{d}, n = {n}" for d, a in absent.items() if a]
        if missing:
            rows.append(engine.untestable(claim, cell, "; ".join(missing)))
            continue
        level = min(m1_level(cells[(d, n)], threshold_x(cells[(d, n)])) for d in depths)
        leads = [_m1_lead(cells[(d, n)], level) for d in depths]
        rows.append(replace(engine.judge(claim, cell, *leads), level=100 * level,
                            label=f"m1_lead at {round(100 * level)} %"))
    return rows


def paper_leads(arms: list[str], n: int) -> dict[str, float]:
    """arm (depth<d>) -> the paper's M1 lead at that depth and n: its Table 1 M1 of standard minus PHYDI's."""
    return {arm: round(PAPER_TABLE1[(d, n)]["standard"][0] - PAPER_TABLE1[(d, n)]["phydi"][0], 2)
            for arm, d in ((arm, int(arm.removeprefix("depth"))) for arm in arms)}


def _m1_lead(curves: dict[str, Curves], level: float) -> list[float]:
    """Standard's M1 minus PHYDI's at `level`, per seed that both inits have, of one Table 1 cell."""
    first = {i: {s: epochs_to(curves[i][s].dropna(), level) for s in curves[i]} for i in ("standard", "phydi")}
    return [first["standard"][s] - first["phydi"][s] for s in first["standard"] if s in first["phydi"]]


def not_run(cells, paper: dict) -> str:
    """The paper's cells without finished runs here by n, e.g. 'n = 2: PHResNet18 (1 of the paper's 9 cells)'."""
    missing = [k for k in paper if k not in cells]
    if not missing:
        return ""
    by_n = {n: [f"PHResNet{k[0]}" + (f" (lr {k[2]:g})" if len(k) > 2 else "") for k in missing if k[1] == n]
            for n in sorted({k[1] for k in missing})}
    return "; ".join(f"n = {n}: {', '.join(names)}" for n, names in by_n.items()) + \
        f" ({len(missing)} of the paper's {len(paper)} cells)"


def resnet_cells(runs: pd.DataFrame, curves: pd.DataFrame, keys: list[str]) -> dict[tuple, dict[str, Curves]]:
    """settings tuple -> init -> val-accuracy curves of the finished runs."""
    done = runs[runs.status == "done"]
    return {tuple(setting): {init: pivot(g, curves, "val_accuracy") for init, g in group.groupby("cfg.model.init")}
            for setting, group in done.groupby([f"cfg.{k}" for k in keys], sort=True)}


def images_per_epoch(runs: pd.DataFrame) -> pd.Series:
    """Each run's training images per epoch (data.train_size; null: all of CIFAR-10's)."""
    return runs["cfg.data.train_size"].fillna(IMAGES)


def resnet_speed(resnets: pd.DataFrame) -> pd.DataFrame:
    """Per depth and n of the finished runs: the median of their median seconds per epoch, images per second."""
    done = resnets[resnets.status == "done"]
    rows = [{"model": f"PHResNet{int(depth)}", "n": int(n), "runs": len(g),
             "threads": ", ".join(str(int(t)) for t in sorted(g["env.torch_threads"].unique())),
             "seconds_per_epoch": g.median_seconds_per_epoch.median(),
             "images_per_second": images_per_epoch(g).median() / g.median_seconds_per_epoch.median()}
            for (depth, n), g in done.groupby(["cfg.model.depth", "cfg.model.n"], sort=True)]
    return pd.DataFrame(rows, columns=["model", "n", "runs", "threads", "seconds_per_epoch", "images_per_second"])
