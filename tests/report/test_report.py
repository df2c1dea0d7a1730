"""Aggregation and Brantner's tables and figures, from real (tiny) run folders."""

from __future__ import annotations

import io
import math

import pandas as pd
import pytest

from noneuclid.claims import engine
from noneuclid.config import sweep_values
from noneuclid.report import brantner, brantner_claims
from noneuclid.runs import table as run_table
from noneuclid.train import train

VARIANTS = ["adam_euclidean", "adam_stiefel", "gd_stiefel", "momentum_stiefel"]


@pytest.fixture
def four_runs(make_cfg, tmp_path):
    for v in VARIANTS:
        train(make_cfg(f"variant=brantner/{v}", "model.depth=1"))
    return tmp_path / "runs"


def test_run_table_reads_every_run_folder(four_runs):
    runs = run_table.runs([four_runs])
    assert len(runs) == 4 and set(runs.status) == {"done"}
    assert {"cfg.optim.name", "cfg.model.stiefel", "final_train_loss", "env.torch"} <= set(runs.columns)
    curves = run_table.curves([four_runs])
    assert len(curves) == 4 * 2 and {"run", "epoch", "train_loss"} <= set(curves.columns)


def test_brantner_results_are_written(four_runs, tmp_path):
    out = tmp_path / "results"
    brantner.make(four_runs, "smoke", out, overrides=["model.depth=1"])
    for name in (
        "fig3a.png",
        "fig3a.pdf",
        "fig3b.png",
        "fig3b.pdf",
        "table2.csv",
        "table2.md",
        "table2.tex",
        "accuracy.csv",
        "accuracy.md",
        "accuracy.tex",
        "summary.md",
        "claims.csv",
        "claims.md",
        "claims.tex",
        "runs.csv",
    ):
        assert (out / name).stat().st_size > 0, name
    # every table says its budget against the paper's and where its numbers come from
    assert "epochs of the paper's 500" in (out / "accuracy.md").read_text()
    assert "The authors' run: their GeometricMachineLearning.jl" in (out / "table2.tex").read_text()
    t2 = pd.read_csv(out / "table2.csv")
    assert list(t2.label) == ["Adam", "Adam + Stiefel", "Gradient + Stiefel", "Momentum + Stiefel"]
    assert t2.ratio_to_base.iloc[0] == 1.0 and t2.cpu_min.tolist() == [2783, 2855, 2370, 2369]
    assert t2.cpu_ratio_to_base.iloc[1] == pytest.approx(2855 / 2783)
    assert "| ratio to Adam (ours)" in (out / "table2.md").read_text()
    summary = (out / "summary.md").read_text()
    assert "Euclidean Adam plateaus" in summary and "## The paper's claims" in summary
    assert "fewer than 2 seeds" in summary  # one seed per setup: no interval, no verdict
    assert "## Test accuracy (the authors' run: " in summary and "the paper's numbers" not in summary


def _runs_and_curves() -> tuple[pd.DataFrame, pd.DataFrame]:
    """One finished run per setup as brantner.load gives them (Euclidean Adam collapsed on class 8), and
    their mean training curves."""
    runs = pd.DataFrame(
        [
            {
                "setup": s,
                "seed": 0,
                "epochs": 2,
                "median_seconds_per_epoch": 1.0 + i,
                "final_test_accuracy": 0.0974 if s == "adam_euclidean" else 0.5,
                "final_train_loss": 1.3436 - 0.3 * i,
                "final_test_top_class": 8,
                "final_test_top_class_share": 1.0 if s == "adam_euclidean" else 0.2,
                "max_orthonormality_error": 1e-15,
            }
            for i, s in enumerate(VARIANTS)
        ]
    )
    curves = pd.DataFrame([{"setup": s, "epoch": e, "train_loss": 1.4 - 0.1 * e} for s in VARIANTS for e in (1, 2)])
    return runs, curves


def test_the_authors_run_is_labelled_theirs_and_the_papers_numbers_carry_their_table_or_figure():
    """9.74 / 86.13 / 55.18 / 63.51 % and the final losses 1.3436 / 0.254 / 0.766 / 0.694 are the authors'
    GeometricMachineLearning.jl documentation run, not the paper's; the paper's numbers (Table 2's
    minutes, Fig. 3a's loss of 1.34) name where the paper has them."""
    from noneuclid.report import table_engine

    runs, curves = _runs_and_curves()
    made = {name: brantner_claims.summarised(name, runs) for name in ("accuracy", "table2")}
    accuracy = table_engine.displayed("brantner", "accuracy", made["accuracy"]).set_index("run")
    assert accuracy.loc["Adam + Stiefel", "authors' run test accuracy % (500 epochs)"] == "86.13"
    assert accuracy.loc["Momentum + Stiefel", "authors' run final train loss"] == "0.694"
    assert accuracy.loc["Adam", "predicts one class"] == "1 of 1 seeds (class 8)"
    assert accuracy.loc["Adam + Stiefel", "predicts one class"] == "no"
    table2 = table_engine.displayed("brantner", "table2", made["table2"])
    assert list(table2["ratio to Adam (ours)"]) == ["1.0", "2.0", "3.0", "4.0"]
    assert list(table2["min / 500 epochs (ours, extrapolated)"]) == ["8.3", "16.7", "25.0", "33.3"]
    columns = [*accuracy.columns, *table2.columns]
    assert all("Table 2" in c for c in columns if "paper" in c or "published" in c)
    assert "the paper's 1.34 (Fig. 3a, appendix D)" in brantner.observations(made["accuracy"], curves)


def test_runs_with_other_settings_are_not_mixed_in(four_runs, make_cfg, tmp_path):
    train(make_cfg("variant=brantner/adam_stiefel", "model.depth=1", "optim.lr=0.5"))
    from noneuclid.runs import table as run_table

    run_table.export(four_runs, "brantner", "smoke", tmp_path / "out")
    runs, _ = brantner.load(tmp_path / "out", "smoke", overrides=["model.depth=1"])
    # at smoke the section experiment's random arm is Adam + Stiefel itself: the same run serves both
    assert sorted(runs.setup) == sorted([*brantner.SETUPS, "section_random"])  # one run each
    assert runs.set_index("setup").loc["adam_stiefel", "epochs"] == 2


def test_brantner_claims_are_judged_by_the_engine_over_seeds():
    """Three seeds per setup: Stiefel Adam's lower loss reproduces, the orthonormality bound holds, the
    timing claims are not testable without their timing files (timing.csv, timing_gpu.csv), and Adam against
    Momentum within the seeds' spread and far inside the claim's delta contradicts it (no effect as large as
    the paper's), never 'reproduces'."""
    from noneuclid.claims import engine

    loss = {"adam_euclidean": 1.34, "adam_stiefel": 0.70, "momentum_stiefel": 0.71, "gd_stiefel": 0.90}
    per_seed = pd.DataFrame(
        [
            {
                "setup": s,
                "seed": k,
                "final_train_loss": v + 0.05 * (k - 1) * (-1) ** i,
                "max_orthonormality_error": 1e-7 * (1 + k),
            }
            for i, (s, v) in enumerate(loss.items())
            for k in range(3)
        ]
    )
    rows = {(v.claim, v.cell): v for v in brantner_claims.verdicts(per_seed)}
    assert rows[("stiefel_adam_below_euclidean", "MNIST, 16 blocks")].verdict == engine.REPRODUCES
    momentum = rows[("stiefel_adam_beats_momentum_and_gd", "Adam vs Momentum, Stiefel")]
    assert momentum.verdict == engine.CONTRADICTS and momentum.p_value > 0.05 and momentum.p_delta < 0.05
    assert (
        rows[("orthonormality_to_machine_precision", "Adam + Stiefel, our training runs")].verdict == engine.REPRODUCES
    )
    gpu = rows[("stiefel_epoch_time_gap_gpu", "GPU, Adam vs Adam + Stiefel")]
    assert gpu.verdict == engine.NOT_TESTABLE and "timing_gpu.csv" in gpu.reason and "--device cuda" in gpu.reason
    cpu = rows[("stiefel_epoch_time_on_par_cpu", "CPU, Adam + Stiefel vs Adam")]  # no timing.csv given
    assert cpu.verdict == engine.NOT_TESTABLE and "noneuclid.evaluate timing" in cpu.reason


def test_report_without_runs_says_what_to_run(tmp_path):
    with pytest.raises(FileNotFoundError, match="make reproduce-brantner"):
        brantner.make(tmp_path / "nothing", "cpu", tmp_path / "out")


def test_report_seeds_take_lists_and_ranges():
    from noneuclid.runs.cli import seed_list

    assert seed_list("0,2,5-7") == [0, 2, 5, 6, 7] and seed_list("3") == [3]
    for text in ("0-x", "5-3"):  # not a number; a range that names no seed (not: every seed)
        with pytest.raises(Exception, match="ranges a-b"):
            seed_list(text)


def _claims_csv(path, claim="c", verdict=engine.REPRODUCES, cell="a cell"):
    """A claims table of one cell, as the reports write it (claims.render)."""
    from noneuclid.claims import render

    nan = float("nan")
    row = engine.Verdict(
        claim,
        "paper",
        cell,
        "Table 1",
        "acc",
        "%",
        "a",
        "b",
        "better",
        0.5,
        False,
        engine.WELCH,
        3,
        3,
        2.0,
        1.0,
        1.0,
        0.5,
        1.5,
        0.01,
        0.9,
        verdict,
        nan,
        "",
        nan,
        nan,
        nan,
        nan,
        "",
        "",
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render.to_csv([row]))


def test_docs_block_is_the_claims_digest_with_links_relative_to_the_report(tmp_path):
    from noneuclid.report import docs

    folder = tmp_path / "results" / "hnn" / "cpu"
    _claims_csv(folder / "claims.csv", "table1_hyperbolic_on_par_or_better")
    _claims_csv(folder / "table2_claims.csv", "table2_hyperbolic_mlr_outperforms", engine.INCONCLUSIVE)
    (tmp_path / "docs").mkdir()
    md = tmp_path / "docs" / "hnn.md"
    md.write_text("intro\n<!-- results:hnn:start -->\nSTALE\n<!-- results:hnn:end -->\nrest\n")
    assert docs.update(md, folder, "hnn")
    text = md.read_text()
    assert "STALE" not in text and text.startswith("intro\n<!-- results:hnn:start -->\n") and text.endswith("rest\n")
    assert '"On these tasks, we found that hyperbolic RNN' in text  # the claim in the paper's words (claims/hnn.yaml)
    counts = next(line for line in text.splitlines() if line.startswith("| all of the paper "))
    assert [c.strip() for c in counts.split("|")[5:-1]] == ["2", "1", "0", "1", "0", "0", "0", "0"]  # cells, ..., flags
    assert "| +1 [+0.5, +1.5]" in text and text.count("| reproduces ") == 1  # only the decided cell is listed
    assert "](../results/hnn/cpu/claims.md)" in text and "](../results/hnn/cpu/table2_claims.md)" in text
    assert "](../results/hnn/cpu/summary.md)" in text and "](../results/hnn/cpu/table2.md)" in text
    assert (md.parent / "../results/hnn/cpu/claims.md").resolve() == (folder / "claims.md").resolve()


def test_docs_block_stays_where_the_results_have_no_claims_table(tmp_path):
    from noneuclid.report import docs

    folder = tmp_path / "results" / "brantner" / "cpu"
    folder.mkdir(parents=True)
    (folder / "summary.md").write_text("# Title\n")
    (tmp_path / "docs").mkdir()
    md = tmp_path / "docs" / "brantner.md"
    md.write_text("<!-- results:brantner:start -->\nold 1\n<!-- results:brantner:end -->\nprose\n")
    assert not docs.update(tmp_path / "docs" / "brantner.md", folder, "brantner")  # no claims table: the block stays
    assert "old 1" in md.read_text()


def test_docs_update_leaves_a_report_without_the_block_or_a_missing_report_alone(tmp_path):
    from noneuclid.report import docs

    folder = tmp_path / "results" / "phydi" / "cpu"
    _claims_csv(folder / "table1_claims.csv")
    (tmp_path / "docs").mkdir()
    assert not docs.update(tmp_path / "docs" / "phydi.md", folder, "phydi")  # no docs/phydi.md
    assert not (tmp_path / "docs" / "phydi.md").exists()
    md = tmp_path / "docs" / "phydi.md"
    md.write_text("a report without markers\n")
    assert not docs.update(tmp_path / "docs" / "phydi.md", folder, "phydi")
    assert md.read_text() == "a report without markers\n"


def test_report_command_refreshes_the_papers_docs_block_when_asked_but_not_for_smoke(monkeypatch, tmp_path):
    from noneuclid.report import __main__ as cli

    def make(runs_dir, profile, out, overrides=(), **_):
        _claims_csv(out / "table1_claims.csv", cell=f"{profile} cell")
        return [out / "table1_claims.csv"]

    from noneuclid.report import phydi

    monkeypatch.setattr(phydi, "make", make)
    (tmp_path / "docs").mkdir()
    md = tmp_path / "docs" / "phydi.md"
    md.write_text("<!-- results:phydi:start -->\nSTALE\n<!-- results:phydi:end -->\n")
    common = [
        "phydi",
        "--runs",
        str(tmp_path / "runs"),
        "--results",
        str(tmp_path / "results"),
        "--docs-dir",
        str(tmp_path / "docs"),
    ]
    assert cli.main([*common, "--profile", "smoke", "--docs"]) == 0
    assert "STALE" in md.read_text()
    assert cli.main([*common, "--profile", "cpu"]) == 0  # not asked to
    assert "STALE" in md.read_text()
    assert cli.main([*common, "--profile", "cpu", "--docs"]) == 0
    assert "| cpu cell " in md.read_text() and "STALE" not in md.read_text()


def test_table2_report_refreshes_the_hnn_digest(monkeypatch, tmp_path):
    from noneuclid.report import hnn_table2

    def make(runs_dir, profile, out):
        _claims_csv(out / "table2_claims.csv", "table2_hyperbolic_mlr_outperforms", cell=f"{profile} cell")
        return [out / "table2_claims.csv"]

    monkeypatch.setattr(hnn_table2, "make", make)
    (tmp_path / "docs").mkdir()
    md = tmp_path / "docs" / "hnn.md"
    md.write_text("<!-- results:hnn:start -->\nSTALE\n<!-- results:hnn:end -->\n")
    from noneuclid.report.__main__ import main

    common = [
        "hnn",
        "table2",
        "--runs",
        str(tmp_path / "runs"),
        "--results",
        str(tmp_path / "results"),
        "--docs",
        "--docs-dir",
        str(tmp_path / "docs"),
    ]
    assert main([*common, "--profile", "smoke"]) == 0
    assert "STALE" in md.read_text()
    assert main([*common, "--profile", "cpu"]) == 0
    text = md.read_text()
    assert "| cpu cell " in text and "STALE" not in text and "table2_claims.md" in text


def _authors_metadata(folder, epochs: int = 500):
    """A tiny mnist_metadata.h5 as the authors store it: loss_array<k> (one value per epoch), accuracy_score<k>."""
    import h5py
    import numpy as np

    folder.mkdir(parents=True)
    curves = {k: np.linspace(1.0, 0.1 * k, epochs) for k in range(1, 5)}
    with h5py.File(folder / "mnist_metadata.h5", "w") as f:
        for k, c in curves.items():
            f[f"loss_array{k}"], f[f"accuracy_score{k}"] = c, 0.1 * k
    return curves


def test_brantner_figures_and_table_show_the_authors_curves(four_runs, tmp_path):
    theirs = _authors_metadata(tmp_path / "gml")
    out = tmp_path / "results"
    brantner.make(four_runs, "smoke", out, overrides=["model.depth=1"], reference=tmp_path / "gml")
    table = pd.read_csv(out / "authors_curves.csv")
    assert len(pd.read_csv(out / "curves.csv.gz")) == 4 * 2  # the per-run curves beside it (4 runs, 2 epochs)
    assert sorted(set(table.label)) == sorted(brantner.SETUPS.values())
    adam = table[table.label == "Adam + Stiefel"].set_index("epoch")
    assert list(adam.index) == [1, 2, 5, 10, 25]  # the compared epochs (brantner_tables.yaml) and our last (2 in smoke)
    assert adam.loc[25, "authors_train_loss"] == pytest.approx(theirs[2][24])
    assert adam.last_epoch.tolist() == [False, True, False, False, False] and pd.isna(adam.loc[25, "train_loss"])
    rows = [[c.strip() for c in r.split("|")[1:-1]] for r in (out / "authors_curves.md").read_text().splitlines()]
    last = next(r for r in rows if r[:2] == ["Adam + Stiefel", "2"])  # ours and theirs to 4 digits
    assert last[3:] == [f"{round(theirs[2][1], 4)}", "yes"] and len(last[2].split(".")[1]) <= 4
    assert ["Adam + Stiefel", "25", "-", f"{round(theirs[2][24], 4)}", ""] in rows  # beyond our epochs: '-'
    assert "the authors' 500-epoch curves dashed" in (out / "summary.md").read_text()


def test_section_runs_are_tabled_and_judged_by_the_claims_engine(four_runs, make_cfg, tmp_path):
    for section in sweep_values("brantner/section", "optim.section"):
        for seed in (0, 1):
            train(make_cfg("experiment=brantner/section", f"optim.section={section}", f"seed={seed}", "model.depth=1"))
    out = tmp_path / "results"
    brantner.make(four_runs, "smoke", out, overrides=["model.depth=1"])
    table = pd.read_csv(out / "section.csv").set_index("section")
    assert list(table.index) == ["householder", "random"] and table.seeds.tolist() == [2, 2]
    assert {"final_train_loss_mean", "final_train_loss_sd", "final_train_loss_se", "test_accuracy_se"} <= set(table)
    assert table.seeds_predicting_one_class.between(0, 2).all()
    assert {"section.md", "section.tex"} <= {p.name for p in out.iterdir()}
    claims = pd.read_csv(out / "claims.csv").set_index("claim")
    assert claims.at["random_section_trains_lower", "verdict"].split(" (")[0] in engine.VERDICTS
    assert (claims.at["random_section_trains_lower", "n_a"], claims.at["random_section_trains_lower", "n_b"]) == (2, 2)
    assert "Beyond the paper: does the section matter?" in (out / "summary.md").read_text()
    only = tmp_path / "only"  # section runs alone: no Fig. 3 to draw, said plainly
    train(make_cfg("experiment=brantner/section", "optim.section=householder", "model.depth=1", runs_dir=only))
    with pytest.raises(FileNotFoundError, match="no finished Fig. 3 / Table 2 runs"):
        brantner.make(only, "smoke", tmp_path / "only-results", overrides=["model.depth=1"])


def test_student_t_intervals_of_a_mean_and_of_a_difference():
    import math

    from noneuclid.claims.estimates import Estimate, difference_interval, t975

    # t at the exact (fractional) degrees of freedom (scipy.stats.t.ppf(0.975, df) for the values)
    assert math.isclose(t975(2), 4.302652729749464) and math.isclose(t975(2.9), 3.245438062433112)
    assert math.isclose(t975(34), 2.0322445093177186) and math.isclose(t975(math.inf), 1.959963984540054)
    # equal spreads, 18 values each: Welch-Satterthwaite df = 34, half-width t_{0.975, 34} sqrt(2)
    low, high = difference_interval(Estimate(10.0, 1.0, 18), Estimate(8.0, 1.0, 18))
    half = 2.0322445093177186 * math.sqrt(2)
    assert math.isclose(low, 2 - half) and math.isclose(high, 2 + half)
    # one spread dominates: df near that side's n - 1 (here 2.0000444), a wider interval
    low, high = difference_interval(Estimate(0.0, 3.0, 3), Estimate(0.0, 0.01, 18))
    assert math.isclose(high, 4.302561106070841 * math.hypot(3.0, 0.01))
    assert all(map(math.isnan, difference_interval(Estimate(1.0, 0.0, 1), Estimate(0.0, 1.0, 5))))


def test_run_table_is_merged_and_rewritten_byte_identical(four_runs, tmp_path):
    """runs.csv and curves.csv.gz from the run folders; a run whose folder is gone keeps its rows; writing
    again what was read gives the same bytes."""
    import shutil

    from noneuclid.runs import table as run_table

    out = tmp_path / "results"
    written = run_table.export(four_runs, "brantner", "smoke", out)
    assert [p.name for p in written] == ["runs.csv", "curves.csv.gz"]
    runs = pd.read_csv(out / "runs.csv")
    assert len(runs) == 4 and list(runs.columns[:6]) == run_table.LEADING
    assert {"final_train_loss", "env.git_commit", "env.torch", "env.torch_threads", "cfg.optim.name"} <= set(
        runs.columns
    )
    assert not any(c.startswith("cfg.paths.") for c in runs.columns)
    assert len(pd.read_csv(out / "curves.csv.gz")) == 4 * 2
    first = {name: (out / name).read_bytes() for name in ("runs.csv", "curves.csv.gz")}
    gone = next(p for p in (four_runs / "brantner" / "smoke").iterdir() if p.is_dir())
    shutil.rmtree(gone)
    run_table.export(four_runs, "brantner", "smoke", out)
    assert {name: (out / name).read_bytes() for name in first} == first


def test_summarized_curves_keep_their_evaluated_epochs_and_give_their_rebound():
    """The curves of an experiment a paper summarizes become runs.csv's train_loss_rebound (the largest loss
    after the lowest, from every epoch) and keep, in curves.csv.gz, their evaluated epochs only, in the
    chosen columns, to 6 significant digits; the other experiments' curves stay whole."""
    from noneuclid.runs import table as run_table

    runs = pd.DataFrame({"run": ["a", "b", "c"], "experiment": ["hnn/table2", "hnn/table2", "hnn/table1"]})
    curves = pd.DataFrame(
        {
            "run": ["a"] * 3 + ["b"] * 2 + ["c"] * 2,
            "step": range(7),
            "epoch": [1, 2, 3, 1, 2, 1, 2],
            "train_loss": [0.5, 0.1, 0.3, 0.5, 0.2123456789, 0.4, 0.3],
            "train_seconds": [1.0] * 7,
            "test_f1": [None, 0.9, 0.8, None, 0.95, None, 0.5],
            "test_loss": [None, 0.2, 0.3, None, 0.1, None, 0.6],
        }
    )
    table, kept = run_table.summarized(runs, curves, ["hnn/table2"], ("train_loss", "test_f1"))
    assert table.set_index("run").train_loss_rebound.to_dict() == pytest.approx(
        {"a": 0.3, "b": float("nan"), "c": float("nan")}, nan_ok=True
    )
    whole, thin = kept[kept.run == "c"], kept[kept.run != "c"]
    pd.testing.assert_frame_equal(whole.reset_index(drop=True), curves[curves.run == "c"].reset_index(drop=True))
    assert thin.dropna(axis=1, how="all").to_dict("list") == {
        "run": ["a", "a", "b"],
        "step": [1, 2, 4],
        "epoch": [2, 3, 2],
        "train_loss": [0.1, 0.3, 0.212346],
        "test_f1": [0.9, 0.8, 0.95],
    }


def test_merging_runs_that_leave_a_numeric_setting_null_writes_numbers():
    """A float column of the committed runs merged with new runs where that setting is null stays a column of
    numbers, so the merged runs.csv writes the same bytes when read and written again."""
    from noneuclid.runs import table as run_table

    old = pd.DataFrame({"run": ["a"], "cfg.trainer.eval_every_steps": [2000.0]})
    new = pd.DataFrame({"run": ["b"], "cfg.trainer.eval_every_steps": [None]})
    table = run_table.merged(old, new, ["run"])
    written = table.to_csv(index=False, float_format=run_table.FLOAT_FORMAT)
    assert "2000.0" not in written
    assert pd.read_csv(io.StringIO(written)).to_csv(index=False, float_format=run_table.FLOAT_FORMAT) == written


@pytest.mark.slow  # a subset of test_results.py's byte-for-byte test, which .ci/run runs (make test-slow)
def test_report_all_redraws_from_the_committed_per_run_data_alone(tmp_path):
    """A clean clone (no run folders): `report all` redraws the PHYDI and Brantner tables and claims from
    results/<paper>/cpu/runs.csv and curves.csv.gz byte for byte, leaves a paper without per-run data
    (Ganea et al.'s here) as it is (exit 0), and `report hnn <part>` names the parts there are (every
    paper's every file, deleted first: test_results.py, slow)."""
    import shutil
    from pathlib import Path

    from noneuclid.report.__main__ import main

    committed = Path(__file__).resolve().parents[2] / "results"
    results = tmp_path / "results"
    for paper in ("phydi", "brantner"):
        shutil.copytree(committed / paper / "cpu", results / paper / "cpu")
    args = ["--runs", str(tmp_path / "no-runs"), "--profile", "cpu", "--results", str(results)]
    assert main(["all", *args]) == 0
    tables = {
        "phydi": ("table1", "table2", "table1_claims", "table2_claims", "fig4_claims", "speed", "compute"),
        "brantner": ("claims", "table2", "accuracy"),
    }
    for paper, names in tables.items():
        for name in names:
            for ext in ("csv", "md", "tex"):
                assert (results / paper / "cpu" / f"{name}.{ext}").read_bytes() == (
                    committed / paper / "cpu" / f"{name}.{ext}"
                ).read_bytes(), f"{paper}/{name}.{ext}"
    assert (results / "index.html").is_file()
    assert main(["hnn", "nosuch", *args]) == 2


def test_a_report_of_ablations_without_runs_leaves_its_results_unless_named(tmp_path, capsys, monkeypatch):
    """`report hnn` (as `make reproduce-hnn` runs it) exits 0 where a part of ablations no stage trains (hnn
    charts: Report.ablation) finds no runs, saying so; the part named, or another report without runs, is an
    error (exit 1)."""
    import importlib

    from noneuclid.report.__main__ import main

    def no_runs(*args, **options):
        raise FileNotFoundError("no finished runs of experiment=hnn/charts")

    modules = {m: importlib.import_module(f"noneuclid.report.{m}") for m in ("hnn", "hnn_table2", "hnn_table2_charts")}
    for module in modules.values():
        monkeypatch.setattr(module, "make", lambda *a, **k: [])
    monkeypatch.setattr(importlib.import_module("noneuclid.report.hnn_charts"), "make", no_runs)
    args = ["--runs", str(tmp_path / "runs"), "--results", str(tmp_path / "results"), "--profile", "smoke"]
    assert main(["hnn", *args]) == 0 and "its results are left as they are" in capsys.readouterr().out
    assert main(["hnn", "charts", *args]) == 1 and "experiment=hnn/charts" in capsys.readouterr().err
    for name in ("hnn", "hnn_table2"):  # the paper's own tables
        monkeypatch.setattr(modules[name], "make", no_runs)
        assert main(["hnn", *args]) == 1
        monkeypatch.setattr(modules[name], "make", lambda *a, **k: [])


def test_an_unknown_report_part_writes_nothing(tmp_path, capsys, monkeypatch):
    """The part is checked before the runs are exported: a typo leaves results/ as it was."""
    from noneuclid.report import __main__ as cli

    exported = []
    monkeypatch.setattr(run_table, "export", lambda *a: exported.append(a) or [])
    assert cli.main(["hnn", "nosuch", "--runs", str(tmp_path / "runs"), "--results", str(tmp_path / "results")]) == 2
    assert "its parts: hnn, table2" in capsys.readouterr().err and exported == []


def test_options_go_to_the_reports_that_take_them_and_are_refused_where_none_does(tmp_path, capsys, monkeypatch):
    """`report hnn --seeds` runs Table 1's report alone and says which it left out; `report hnn table2 --seeds`
    and `report html --out` are errors, before anything is read or written."""
    from noneuclid.report import __main__ as cli, hnn, hnn_table2

    ran = []
    monkeypatch.setattr(hnn, "make", lambda *a, **k: ran.append(("hnn", k)) or [])
    monkeypatch.setattr(hnn_table2, "make", lambda *a, **k: ran.append(("table2", k)) or [])
    common = ["--runs", str(tmp_path / "runs"), "--results", str(tmp_path / "results"), "--profile", "cpu"]
    assert cli.main(["hnn", "--seeds", "0-1", *common]) == 0
    assert ran == [("hnn", {"overrides": [], "seeds": [0, 1]})]
    assert "table2, charts, table2_charts left out" in capsys.readouterr().out
    for argv in (["hnn", "table2", "--seeds", "0-1"], ["html", "--out", str(tmp_path)], ["html", "--docs"]):
        with pytest.raises(SystemExit):
            cli.main([*argv, *common])
        assert "error:" in capsys.readouterr().err
    assert len(ran) == 1


def test_docs_asked_for_but_not_refreshed_is_an_error(tmp_path, capsys, monkeypatch):
    from noneuclid.report import __main__ as cli, phydi

    monkeypatch.setattr(phydi, "make", lambda runs_dir, profile, out, **_: _claims_csv(out / "t_claims.csv") or [])
    common = ["--runs", str(tmp_path / "runs"), "--results", str(tmp_path / "results"), "--profile", "cpu", "--docs"]
    assert cli.main(["phydi", *common, "--docs-dir", str(tmp_path / "nodocs")]) == 1
    assert "not refreshed (no such file" in capsys.readouterr().err


def _files(root) -> dict[str, bytes]:
    """{path under root: contents} of every file under root."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_report_command_after_a_smoke_run_writes_its_profile_only_and_names_what_it_left_out(
    four_runs, tmp_path, monkeypatch, capsys
):
    """`python -m noneuclid.report brantner` after smoke runs, in a checkout with the committed cpu results:
    reports the smoke profile (the one with finished run folders), changes nothing but
    results/brantner/smoke/ (docs/ and the README untouched), and names each table it left out with what
    it needs (the authors' curves and networks are not in this data root) and the file an earlier
    report left. A folder an earlier report drew with the authors' curves it stops at, changing nothing."""
    import shutil
    from pathlib import Path

    from noneuclid.report.__main__ import main

    repo, checkout = Path(__file__).resolve().parents[2], tmp_path / "checkout"
    shutil.copytree(repo / "results" / "brantner" / "cpu", checkout / "results" / "brantner" / "cpu")
    shutil.copytree(repo / "docs", checkout / "docs")
    shutil.copy(repo / "README.md", checkout / "README.md")
    smoke = checkout / "results" / "brantner" / "smoke"
    smoke.mkdir()
    (smoke / "authors_curves.csv").write_text("drawn with the authors' curves\n")
    before = _files(checkout)
    monkeypatch.chdir(checkout)
    monkeypatch.setenv("NONEUCLID_RUNS_DIR", str(four_runs))
    monkeypatch.setenv("NONEUCLID_DATA_DIR", str(tmp_path / "data"))
    assert main(["brantner", "model.depth=1"]) == 1
    assert _files(checkout) == before and "set NONEUCLID_DATA_DIR" in capsys.readouterr().err
    (smoke / "authors_curves.csv").unlink()
    (smoke / "drift_summary.csv").write_text("an earlier report's table\n")
    before = _files(checkout)
    assert main(["brantner", "model.depth=1"]) == 0
    after = _files(checkout)
    changed = {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
    assert "results/brantner/smoke/summary.md" in changed
    assert all(p.startswith("results/brantner/smoke/") for p in changed), changed
    out = capsys.readouterr().out
    assert f"authors_curves: needs the authors' training curves, {tmp_path / 'data'}/reference" in out
    assert "(drift_summary.csv: an earlier report's, not this one's)" in out
    assert "  - section:" not in out  # drawn: Adam + Stiefel's run is the section experiment's householder arm
    assert "authors_networks: needs `python -m noneuclid.evaluate authors-networks" in out


def test_report_profile_is_the_one_whose_runs_are_there_else_it_stops_naming_them(tmp_path, capsys):
    """--profile wins; else the profile with finished run folders; else the one with committed per-run
    data; none or several: the command stops, writing nothing, and names what it found."""
    from argparse import Namespace

    from noneuclid.report.__main__ import main
    from noneuclid.runs.cli import ProfileError, chosen_profile

    runs, results = tmp_path / "runs", tmp_path / "results"
    args = Namespace(profile=None, runs=runs, results=results)
    with pytest.raises(ProfileError, match="no finished runs of brantner under .* --profile"):
        chosen_profile(args, ["brantner"])
    (results / "brantner" / "cpu").mkdir(parents=True)
    (results / "brantner" / "cpu" / "runs.csv").write_text("run\n")
    assert chosen_profile(args, ["brantner"]) == "cpu"  # a fresh clone: the committed per-run data
    (runs / "brantner" / "smoke" / "a-s0-0000abcd").mkdir(parents=True)
    assert chosen_profile(args, ["brantner"]) == "cpu"  # an unfinished run does not count
    (runs / "brantner" / "smoke" / "a-s0-0000abcd" / "DONE").touch()
    assert chosen_profile(args, ["brantner"]) == "smoke"  # the runs just made
    assert chosen_profile(Namespace(profile="cpu", runs=runs, results=results), ["brantner"]) == "cpu"
    (runs / "brantner" / "paper" / "b-s0-0000abcd").mkdir(parents=True)
    (runs / "brantner" / "paper" / "b-s0-0000abcd" / "DONE").touch()
    assert main(["brantner", "--runs", str(runs), "--results", str(results)]) == 2
    err = capsys.readouterr().err
    assert "runs of several profiles" in err and "--profile paper|smoke" in err
    assert sorted(p.name for p in (results / "brantner").iterdir()) == ["cpu"]


def test_the_report_command_only_reports(capsys):
    """Exporting the per-run data and tabling run folders are `python -m noneuclid.runs export|table`."""
    from noneuclid.report.__main__ import main

    for argv in (["export", "brantner"], ["runs", "runs"]):
        with pytest.raises(SystemExit):
            main(argv)
        assert "invalid choice" in capsys.readouterr().err


def test_every_table_a_report_may_leave_out_is_one_of_its_papers():
    from noneuclid.papers import PAPERS

    for paper in PAPERS.values():
        for extra in paper.extras:
            assert extra.report in {r.module for r in paper.reports}, extra
            assert extra.needs.format(profile="cpu", runs="runs", data="data")


def test_summary_gives_the_t_interval_of_per_seed_values_and_plus_minus_shows_it():
    from noneuclid.claims.estimates import plus_minus, summary

    s = summary(pd.Series([1.0, 2.0, 3.0]), "f1_")
    assert (s["n"], s["f1_mean"], s["f1_sd"]) == (3, 2.0, 1.0)
    assert s["f1_se"] == pytest.approx(1 / 3**0.5)
    assert s["f1_ci_high"] - s["f1_mean"] == pytest.approx(4.302652729749464 / 3**0.5)  # t_{0.975, 2} se
    one = summary([5.0])
    assert one["n"] == 1 and one["mean"] == 5.0 and all(math.isnan(one[k]) for k in ("sd", "se", "ci_low"))
    assert plus_minus(2.0, one["se"], 1) == "2.00 (n=1)" and plus_minus(2.0, 0.5, 3, ".3f") == "2.000 ± 0.500 (n=3)"


def test_commits_names_runs_made_outside_git():
    from noneuclid.runs import table as run_table

    runs = pd.DataFrame({"env.git_commit": [None, "abcdef1234", "abcdef1299"]})
    assert run_table.commits(runs) == "abcdef1, no commit" and run_table.commits(runs.iloc[:0]) == "-"


def test_a_claims_table_from_before_todays_columns_is_named_with_the_command_that_redraws_it(tmp_path):
    from noneuclid.report import docs

    folder = tmp_path / "results" / "hnn" / "cpu"
    _claims_csv(folder / "claims.csv", "table1_hyperbolic_on_par_or_better")
    stale = pd.read_csv(folder / "claims.csv").drop(columns=["looks", "beyond_validated_looks"])
    stale.to_csv(folder / "table2_claims.csv", index=False)
    with pytest.raises(ValueError, match="table2_claims.csv lacks looks, beyond_validated_looks: redraw it"):
        docs.status(tmp_path / "results")
