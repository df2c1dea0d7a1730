"""Ganea et al.'s sentence-pair pipeline at smoke scale: all six Table 1 rows train on PREFIX,
evaluate on dev and test every few steps and select the test accuracy at the best dev accuracy."""

import pytest

from noneuclid.config import compose
from noneuclid.train import train

ROWS = ["euclidean_rnn", "hyperbolic_rnn_eucl_mlr", "hyperbolic_rnn", "euclidean_gru",
        "hyperbolic_gru_eucl_mlr", "hyperbolic_gru"]


@pytest.mark.parametrize("row", ROWS)
def test_table1_row_trains_on_prefix(row, tmp_path):
    cfg = compose(["experiment=hnn/table1", "profile=smoke", f"variant=hnn/{row}", "data=prefix30",
                   f"paths.runs_dir={tmp_path}/runs", f"paths.generated_dir={tmp_path}/gen",
                   "trainer.progress=false", "data.train_size=128", "data.dev_size=64", "data.test_size=64"],
                  experiment_name="hnn/table1")
    summary = train(cfg)
    assert 0.0 <= summary["test_accuracy_at_best_dev"] <= 1.0
    assert summary["final_train_loss"] == summary["final_train_loss"]  # not NaN
    assert (tmp_path / "gen" / "prefix30" / "dev-64.tsv").exists()


def test_snli_without_train_split_fails_before_training(tmp_path):
    from noneuclid.data import DataError
    cfg = compose(["experiment=hnn/table1", "profile=smoke", "data=snli", f"paths.data_dir={tmp_path}",
                   f"paths.runs_dir={tmp_path}/runs"])
    with pytest.raises(DataError, match="snli_1.0_train"):
        train(cfg)
    assert not (tmp_path / "runs").exists()


def test_table1_report_from_runs(tmp_path):
    from noneuclid.report import hnn
    common = ["experiment=hnn/table1", "profile=smoke", f"paths.runs_dir={tmp_path}/runs",
              f"paths.generated_dir={tmp_path}/gen", "trainer.progress=false", "data.train_size=128",
              "data.dev_size=64", "data.test_size=64"]
    for row in ("euclidean_gru", "hyperbolic_gru"):
        train(compose([*common, f"variant=hnn/{row}"], experiment_name="hnn/table1"))
    out = tmp_path / "results"
    overrides = [f"paths.generated_dir={tmp_path}/gen", "data.train_size=128", "data.dev_size=64", "data.test_size=64"]
    hnn.make(tmp_path / "runs", "smoke", out, seeds=(0,), overrides=overrides)
    table = (out / "table1.md").read_text()
    assert "n=1" in table and "97.14" in table and (out / "fig_prefix10_dev.png").exists()
    assert "not run (data missing)" in table or "SNLI" in table
