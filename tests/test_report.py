"""Aggregation and Brantner's tables and figures, from real (tiny) run folders."""

from __future__ import annotations

import pandas as pd
import pytest

from noneuclid.report import aggregate, brantner
from noneuclid.train import train

VARIANTS = ["adam_euclidean", "adam_stiefel", "gd_stiefel", "momentum_stiefel"]


@pytest.fixture
def four_runs(make_cfg, tmp_path):
    for v in VARIANTS:
        train(make_cfg(f"variant=brantner/{v}", "model.depth=1"))
    return tmp_path / "runs"


def test_aggregate_reads_every_run(four_runs):
    runs = aggregate.runs([four_runs])
    assert len(runs) == 4 and set(runs.status) == {"done"}
    assert {"cfg.optim.name", "cfg.model.stiefel", "final_train_loss", "env.torch"} <= set(runs.columns)
    curves = aggregate.curves([four_runs])
    assert len(curves) == 4 * 2 and {"run", "epoch", "train_loss"} <= set(curves.columns)


def test_brantner_results_are_written(four_runs, tmp_path):
    out = tmp_path / "results"
    brantner.make(four_runs, "smoke", out, overrides=["model.depth=1"])
    for name in ("fig3a.png", "fig3a.pdf", "fig3b.png", "fig3b.pdf", "table2.csv", "table2.md",
                 "accuracy.csv", "accuracy.md", "summary.md"):
        assert (out / name).stat().st_size > 0, name
    t2 = pd.read_csv(out / "table2.csv")
    assert list(t2.optimizer) == ["Adam", "Adam + Stiefel", "Gradient + Stiefel", "Momentum + Stiefel"]
    assert t2["ratio to Adam (ours)"].iloc[0] == 1.0
    assert t2["paper CPU min"].tolist() == [2783, 2855, 2370, 2369]
    summary = (out / "summary.md").read_text()
    assert "Euclidean Adam plateaus" in summary and "Adam beats Momentum beats GD" in summary


def test_runs_with_other_settings_are_not_mixed_in(four_runs, make_cfg, tmp_path):
    train(make_cfg("variant=brantner/adam_stiefel", "model.depth=1", "optim.lr=0.5"))
    runs, _ = brantner.load(four_runs, "smoke", overrides=["model.depth=1"])
    assert sorted(runs.setup) == sorted(brantner.SETUPS) and set(runs.seeds) == {1}
    assert runs.set_index("setup").loc["adam_stiefel", "epochs"] == 2


def test_report_without_runs_says_what_to_run(tmp_path):
    with pytest.raises(FileNotFoundError, match="make reproduce-brantner"):
        brantner.make(tmp_path / "nothing", "cpu", tmp_path / "out")


def test_readme_block_is_replaced_with_relative_links(tmp_path):
    from noneuclid.report import readme
    folder = tmp_path / "results" / "brantner" / "cpu"
    folder.mkdir(parents=True)
    (folder / "summary.md").write_text("# Title\n\n![fig3a](fig3a.png) [x](https://example.org)\n")
    md = tmp_path / "README.md"
    md.write_text("intro\n<!-- results:brantner:start -->\nold\n<!-- results:brantner:end -->\nrest\n")
    assert readme.update(md, folder, "brantner")
    text = md.read_text()
    assert "old" not in text and "### Title" in text and text.endswith("rest\n")
    assert "](results/brantner/cpu/fig3a.png)" in text and "](https://example.org)" in text
