"""Table 1's four hyperbolic models on the Poincare ball and on the hyperboloid (model.chart), in float64 and
float32: experiment=hnn/charts beside Table 1's own runs (the ball in float64). Per dataset the table
table1_charts (each chart and precision: the test accuracy % of the seed with the best dev accuracy, mean
+- s.e., the runs that met a non-finite loss) and the two claims of ours on it (charts_claims)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from noneuclid import tables
from noneuclid.claims import engine
from noneuclid.config import experiment_value
from noneuclid.report import provenance, table_engine
from noneuclid.report.hnn_claims import CLAIMS, text
from noneuclid.runs import select, table as run_table

EXPERIMENT, TABLE = "hnn/charts", "table1_charts"
CLAIM_IDS = ("lorentz_chart_on_par_with_poincare_ball", "float32_on_par_with_float64")


def verdicts(finished: pd.DataFrame, claim_ids=CLAIM_IDS, metric="test_accuracy_at_best_dev") -> list[engine.Verdict]:
    """The cells of claims `claim_ids`, each arm's `metric` % per seed (default: Table 1's test accuracy at the
    best dev accuracy), paired by seed."""
    rows, no_pair = [], text("charts_no_pair")
    for claim, cell in ((CLAIMS[c], cell) for c in claim_ids for cell in CLAIMS[c].cells):
        a, b = (100 * select.arm_values(finished, cell.select[arm], metric) for arm in cell.arms)
        seeds, runs = a.index.intersection(b.index), select.cell_runs(finished, cell)
        if seeds.empty:
            rows.append(engine.untestable(claim, cell, no_pair, len(a), len(b), runs))
        else:
            rows.append(engine.judge(claim, cell, list(a[seeds]), list(b[seeds]), paired=True, runs=runs))
    return rows


def page(out: Path, profile: str, name: str, table: str, data: pd.DataFrame, judged, runs) -> list[Path]:
    """Table `table` of `data` (templates/hnn.md's <table>_*), the claims table <name>_claims of the verdicts
    `judged` (with the provenance of `runs`) and the page <name>.md of both written into `out`; their paths."""
    section = table_engine.section("hnn", out, table, data, table_engine.shown("hnn", table, data))
    claims = provenance.write(out, f"{name}_claims", judged, runs, "hnn")
    (out / f"{name}.md").write_text(text(f"{name}_page", profile=profile, table=section, claims=claims) + "\n")
    return tables.files(out, (table, f"{name}_claims"), name)


def make(runs_dir: Path, profile: str, out: Path) -> list[Path]:
    """Write table1_charts, charts_claims and the page charts.md into `out`; returns their paths."""
    runs, _ = run_table.load(runs_dir, "hnn", profile, out)
    # the finished runs of its settings at the profile (its ball in float64: Table 1's runs), of its seeds
    found = select.swept(runs, EXPERIMENT, [f"profile={profile}"], experiment_value(EXPERIMENT, "stack.data"))
    finished = found[found["cfg.seed"].isin(experiment_value(EXPERIMENT, "stack.seed"))] if len(found) else found
    if finished.empty or not (finished["cfg.experiment_name"] == EXPERIMENT).any():
        raise FileNotFoundError(text("charts_no_runs", out=out, profile=profile))
    flagged = finished.assign(nonfinite=finished.nonfinite_events > 0)
    data = table_engine.data("hnn", TABLE, flagged, table_engine.cells("hnn", TABLE))  # a page per dataset
    data = data[[*data.columns.drop("nonfinite_runs"), "nonfinite_runs"]]  # the runs that met a non-finite loss last
    return page(out, profile, "charts", TABLE, data, verdicts(finished), finished)
