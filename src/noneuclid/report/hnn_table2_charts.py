"""Table 2's hyperbolic MLR on the Poincare ball and on the hyperboloid (model.chart), in float64 and float32:
experiment=hnn/table2 with model.chart and trainer.dtype set, beside Table 2's own runs (the ball in float64),
every run by Table 2's protocol but for those two settings. The table table2_charts_f1 (per subtree and
dimension, each chart and precision: test F1 % mean +- s.e., the unstable runs) and the two claims of ours on
it (table2_charts_claims), paired by seed as report.hnn_charts pairs Table 1's."""

from __future__ import annotations

from pathlib import Path

from noneuclid.report import hnn_charts, table_engine
from noneuclid.report.hnn_claims import text
from noneuclid.runs import hnn_table2 as table2_runs, table as run_table
from noneuclid.runs.hnn_table2 import CHART

TABLE = "table2_charts_f1"
CLAIM_IDS = ("table2_lorentz_mlr_on_par_with_ball", "table2_float32_mlr_on_par_with_float64")


def make(runs_dir: Path, profile: str, out: Path) -> list[Path]:
    """Write table2_charts_f1, table2_charts_claims and the page table2_charts.md into `out`; returns their paths."""
    runs, _ = run_table.load(runs_dir, "hnn", profile, out)
    hyperbolic = table2_runs.protocols(profile)["hyperbolic"]  # without its chart and precision: the columns
    values = table2_runs.f1_values(runs, {"hyperbolic": {k: v for k, v in hyperbolic.items() if k not in CHART}})
    if values[(values.chart != "poincare") | (values.dtype != "float64")].empty:  # Table 2's own runs alone
        raise FileNotFoundError(text("table2_charts_no_runs", out=out, profile=profile))
    data = table_engine.data("hnn", TABLE, values, table_engine.cells("hnn", TABLE))
    judged = hnn_charts.verdicts(values, CLAIM_IDS, "f1")  # test F1 %, paired by seed
    return hnn_charts.page(out, profile, "table2_charts", TABLE, data, judged, runs)
