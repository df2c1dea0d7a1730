"""Table 2's hyperbolic MLR in two charts and precisions (report.hnn_table2_charts): its table's columns and
its claims' cells paired by seed."""

from __future__ import annotations

import pandas as pd

from noneuclid.report import hnn_charts, hnn_table2_charts, table_engine
from noneuclid.runs import hnn_table2 as table2_runs


def _runs(f1_by_chart: dict[str, list[float]]) -> pd.DataFrame:
    """Finished hyperbolic MLR runs of animal.n.01 in 2-D, float64, one per chart and seed."""
    base = {
        "cfg.model.name": "point_mlr",
        "cfg.data.subtree": "animal.n.01",
        "cfg.data.dim": 2,
        "cfg.model.geometry": "hyperbolic",
        "cfg.trainer.dtype": "float64",
        "final_train_loss": 0.03,
        "embedding_run": "poincare-2d",
    }
    rows = [
        {**base, "cfg.model.chart": chart, "cfg.seed": seed, "final_test_f1": f1, "run": f"{chart}-s{seed}"}
        for chart, values in f1_by_chart.items()
        for seed, f1 in enumerate(values)
    ]
    return pd.DataFrame(rows)


def test_each_chart_is_a_column_and_a_seed_pairs_its_two_charts():
    values = table2_runs.f1_values(_runs({"poincare": [0.90, 0.91, 0.92], "lorentz": [0.901, 0.909, 0.921]}))
    data = table_engine.data("hnn", hnn_table2_charts.TABLE, values, table_engine.cells("hnn", hnn_table2_charts.TABLE))
    cell = data[(data.subtree == "animal.n.01") & (data.dim == 2)].set_index("chart")
    assert cell.n.to_dict() == {
        "ball, float64": 3,
        "ball, float32": 0,
        "hyperboloid, float64": 3,
        "hyperboloid, float32": 0,
    }
    assert cell.loc["hyperboloid, float64", "mean"] == pd.Series([90.1, 90.9, 92.1]).mean()
    judged = {(v.claim, v.cell): v for v in hnn_charts.verdicts(values, hnn_table2_charts.CLAIM_IDS, "f1")}
    on_par = judged["table2_lorentz_mlr_on_par_with_ball", "animal.n.01, 2-D, float64"]
    assert on_par.verdict == "reproduces" and on_par.paired  # within 1 F1 point, seed by seed
    assert judged["table2_lorentz_mlr_on_par_with_ball", "group.n.01, 2-D, float64"].verdict == "not testable here"
