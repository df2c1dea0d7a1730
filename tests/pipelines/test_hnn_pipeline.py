"""Ganea et al.'s sentence-pair pipeline at smoke scale: all six Table 1 rows train on PREFIX,
evaluate on dev and test every few steps and select the test accuracy at the best dev accuracy."""

import pandas as pd
import pytest

from noneuclid.config import compose, experiment_value
from noneuclid.report import run_table
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
    assert summary["nonfinite_events"] == 0
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
    init_epochs = f"trainer.epochs={experiment_value('hnn/init', 'ablation.epochs')}"
    for scale in ("1.0", "100.0"):
        train(compose([*common, "variant=hnn/euclidean_gru", init_epochs, f"model.embedding_init_scale={scale}"],
                      experiment_name="hnn/init"))
    out = tmp_path / "results"
    overrides = [f"paths.generated_dir={tmp_path}/gen", "data.train_size=128", "data.dev_size=64", "data.test_size=64"]
    hnn.make(tmp_path / "runs", "smoke", out, seeds=(0,), overrides=overrides)
    table = (out / "table1.md").read_text()
    assert "n=1" in table and "97.14" in table and (out / "fig_prefix10_dev.png").exists()
    assert "not run (data missing)" in table or "SNLI" in table
    init = (out / "init.md").read_text()
    summary = (out / "summary.md").read_text()
    assert "x100" in init and "states at the boundary" in init and "## The paper's claims" in summary
    assert "`python -m noneuclid.train -m experiment=hnn/table1 profile=smoke 'stack.seed=[0]'" in summary


def test_report_of_a_smaller_experiment_shows_its_models_and_datasets_only(tmp_path):
    """Runs of experiment=hnn/compensated (the hyperbolic models on PREFIX-10): the report's table and
    run counts cover that experiment's grid, not Table 1's six models and four datasets; an earlier
    report's ablation tables, whose runs are not found now, are removed."""
    from noneuclid.report import hnn
    data = [f"paths.generated_dir={tmp_path}/gen", "data.train_size=128", "data.dev_size=64", "data.test_size=64"]
    train(compose(["experiment=hnn/compensated", "profile=smoke", f"paths.runs_dir={tmp_path}/runs",
                   "variant=hnn/hyperbolic_rnn_eucl_mlr", "data=prefix10", "trainer.progress=false", *data],
                  experiment_name="hnn/compensated"))
    out = tmp_path / "results"
    out.mkdir()
    (out / "init.md").write_text("an earlier report's table")
    hnn.make(tmp_path / "runs", "smoke", out, seeds=(0,), overrides=[*data, "optim.compensated=true"])
    assert not (out / "init.md").exists()
    table = pd.read_csv(out / "table1.csv")
    assert set(table.dataset) == {"PREFIX-10%"} and table.n.tolist() == [1, 0, 0, 0]
    assert "fully Euclidean RNN" not in set(table.model) and len(table) == 4
    summary = (out / "summary.md").read_text()
    assert "experiment=hnn/compensated" in summary and "1 of 4 PREFIX runs finished" in summary
    assert "SNLI" not in summary and "PREFIX-30" not in summary  # the claims of its grid only
    assert "not testable here" in summary  # no Euclidean model


def _ended(tmp_path) -> run_table.Runs:
    """The ended smoke runs of Ganea et al. under tmp_path/runs."""
    return run_table.Runs(*run_table.ended_runs(tmp_path / "runs", "hnn", "smoke"))


def _pairs(n_first, n_second, label):
    return [[1 + i % 3 for i in range(n_first)]], [[1 + i % 3 for i in range(n_second)]], [label]


def test_bad_sentences_get_defined_behaviour():
    """Empty sentences become one unknown token (id 0); ids 0 (unknown/padding) are embedded like any
    word; sentences far longer than any seen in training are encoded (the recurrence has no maximum
    length) and stay in the ball."""
    import torch

    from noneuclid.models.sentence_pair import SentencePairModel
    from noneuclid.train.tasks import SentencePairs

    task = SentencePairs({"train": ([[1, 2], []], [[], [0, 0, 3]], [1, 0]),
                          "dev": _pairs(3, 2, 1), "test": _pairs(200, 150, 0)}, vocab_size=4, batch_size=2, seed=0)
    t1, l1, t2, l2, _ = (t[0] for t in task.splits["train"])  # run 0 of the task's stack of one
    assert l1.tolist() == [2, 1] and t1[1, :2].tolist() == [0, 0] and l2.tolist() == [1, 3]
    assert t1.shape[-1] == 200  # every split padded to the longest sentence of all
    torch.manual_seed(0)
    for geometry in ("euclidean", "hyperbolic_eucl_mlr", "hyperbolic"):
        model = SentencePairModel(4, "gru", geometry).double()
        row, = task.evaluate(model, "test")  # 200 / 150 tokens; training sentences had at most 3
        assert row["test_nonfinite"] == 0 and 0 <= row["test_accuracy"] <= 1
        if geometry != "euclidean":
            states = model.encode(*task.splits["test"][:4])
            assert all(bool((s.norm(dim=-1) < 1).all()) for s in states)


def test_unknown_words_map_to_id_zero(tmp_path):
    """SNLI words never seen in training get id 0 (the unknown/padding embedding)."""
    from omegaconf import OmegaConf

    from noneuclid.data import snli
    from noneuclid.train.tasks import sentence_pairs

    splits = {"train": ([["a", "cat"]], [["a", "dog"]], [1]), "dev": ([["a", "zebra"]], [["cat"]], [0]),
              "test": ([["unseen"]], [["a"]], [1])}
    original = snli.load
    snli.load = lambda root, split: splits[split]
    try:
        ids, vocab = sentence_pairs.sentence_pair_splits(OmegaConf.create({"data": {"name": "snli"}, "paths": {"data_dir": "x"}}))
    finally:
        snli.load = original
    assert vocab == 4  # padding/unknown + a, cat, dog
    assert ids["dev"][0] == [[1, 0]] and ids["test"][0] == [[0]]


def test_budget_ablation_from_runs(tmp_path):
    """experiment=hnn/budget's table: a GRU at the profile's epochs beside the same GRU trained longer."""
    from noneuclid.report import hnn_ablations
    common = ["experiment=hnn/table1", "profile=smoke", f"paths.runs_dir={tmp_path}/runs", "variant=hnn/euclidean_gru",
              f"paths.generated_dir={tmp_path}/gen", "trainer.progress=false", "data.train_size=128",
              "data.dev_size=64", "data.test_size=64"]
    for extra in ([], ["trainer.epochs=2"]):
        train(compose([*common, *extra], experiment_name="hnn/budget"))
    overrides = [f"paths.generated_dir={tmp_path}/gen", "data.train_size=128", "data.dev_size=64", "data.test_size=64"]
    table = hnn_ablations.ablation(_ended(tmp_path), "smoke", (0,), overrides, "budget", epochs=2)
    assert list(table["budget"]) == ["profile (Table 1)", "2 epochs"] and set(table["seeds"]) == {1}
    assert table.columns[-1] == "seeds" and "batches to 60 % / 80 % dev (per seed)" in table.columns


def test_cell_check_compares_the_papers_hyperbolic_model_not_our_better_one():
    """PREFIX-10 RNN: the paper's best hyperbolic model is the fully hyperbolic one (96.91 > 96.36), so
    ours is judged on our fully hyperbolic RNN even where our hyperbolic + Eucl. MLR is higher."""
    from noneuclid.report import hnn_claims
    acc = {"euclidean": (80.0, 81.0, 82.0), "hyperbolic_eucl_mlr": (95.0, 96.0, 97.0), "hyperbolic": (70.0, 71.0, 72.0)}
    finished = pd.DataFrame([{"cfg.data.label": "prefix10", "cfg.model.cell": "rnn", "cfg.model.geometry": g,
                              "cfg.seed": k, "test_accuracy_at_best_dev": a / 100,
                              "best_dev_accuracy": a / 100}
                             for g, accs in acc.items() for k, a in enumerate(accs)])
    cell, = [v for v in hnn_claims.verdicts(finished) if v.cell == "PREFIX-10, RNN"]
    assert (cell.arm_a, cell.paper_a, cell.paper_b) == ("hyperbolic", 96.91, 89.62)
    assert (cell.mean_a, cell.mean_b, cell.verdict) == (71.0, 81.0, "contradicts")


@pytest.mark.parametrize("low, high, shows", [(-3.0, 1.0, "none the seeds can tell (the interval holds 0)"),
                                               (-5.0, -0.5, "float32 lower (the interval excludes 0)"),
                                               (0.2, 4.0, "float32 higher (the interval excludes 0)")])
def test_dtype_difference_is_read_from_its_95_percent_interval(low, high, shows):
    from noneuclid.report import hnn_ablations
    assert hnn_ablations._interval_verdict(low, high) == shows


def test_float32_against_float64_from_runs(tmp_path):
    """A float32 report's comparison: the same model in both dtypes, the difference and what its 95 %
    interval shows."""
    from noneuclid.report import hnn_ablations
    data = [f"paths.generated_dir={tmp_path}/gen", "data.train_size=128", "data.dev_size=64", "data.test_size=64"]
    common = ["experiment=hnn/table1", "profile=smoke", f"paths.runs_dir={tmp_path}/runs", "variant=hnn/euclidean_rnn",
              "trainer.progress=false", *data]
    for dtype in ("float64", "float32"):
        train(compose([*common, f"trainer.dtype={dtype}"], experiment_name="hnn/table1"))
    assert hnn_ablations.dtype_comparison(_ended(tmp_path), "smoke", (0,), data) is None  # not a float32 report
    table = hnn_ablations.dtype_comparison(_ended(tmp_path), "smoke", (0,), [*data, "trainer.dtype=float32"])
    row, = table.to_dict("records")
    assert row["dataset"] == "PREFIX-10%" and row["model"] == "fully Euclidean RNN" and row["float32"].endswith("(n=1)")
    assert row["combined s.e."] == 0  # one seed: no spread
    assert row["95 % interval"] == "[nan, nan]"  # one seed: no interval, so nothing to tell
    assert row["difference"] == "not tested: fewer than 2 seeds in a dtype"
    assert row["runs >= 80 % (float32, float64)"] in {f"{a} of 1, {b} of 1" for a in (0, 1) for b in (0, 1)}
    assert row["same share, Fisher's p"] == 1.0  # one run each: no two shares of one run each can differ


def test_more_seeds_compare_the_seeds_experiments_models_over_all_seeds(tmp_path):
    """experiment=hnn/seeds' runs (seed 3 here) join Table 1's seed in the float32 report's more-seeds
    comparison (none when the report has them already), and stay out of Table 1 (whose seeds are 0, 1, 2)."""
    from noneuclid.report import hnn_ablations
    from noneuclid.runs.lookup import table1_seeds
    from noneuclid.train.loop import train_stacked
    data = [f"paths.generated_dir={tmp_path}/gen", "data.train_size=128", "data.dev_size=64", "data.test_size=64"]
    for dtype in ("float64", "float32"):
        train_stacked([compose(["experiment=hnn/seeds", "profile=smoke", f"paths.runs_dir={tmp_path}/runs",
                                "variant=hnn/hyperbolic_rnn_eucl_mlr", "data=prefix10", f"seed={seed}",
                                f"trainer.dtype={dtype}", "trainer.progress=false", *data], experiment_name="hnn/seeds")
                       for seed in (0, 3)])
    assert table1_seeds(run_table.runs([tmp_path / "runs" / "hnn" / "smoke"])) == (0,)
    row, = hnn_ablations.more_seeds(_ended(tmp_path), "smoke", (0,), [*data, "trainer.dtype=float32"]).to_dict("records")
    assert row["model"] == "hyperbolic RNN + FFNN, Eucl. MLR" and row["dataset"] == "PREFIX-10%"
    assert row["float32"].endswith("(n=2)") and row["float64"].endswith("(n=2)")
    all_seeds = (0, 1, 2, *experiment_value("hnn/seeds", "stack.seed"))
    assert hnn_ablations.more_seeds(_ended(tmp_path), "smoke", all_seeds, ["trainer.dtype=float32"]) is None


def test_same_init_pairs_each_float32_run_with_the_float64_run_of_its_seed(tmp_path):
    """experiment=hnn/same_init's float32 runs (from the float64 runs' initial weights) against the
    float64 runs of their seeds: a Euclidean RNN, whose float32 arithmetic is exact to about 1e-6,
    gives each seed the same accuracy in both dtypes after two batches."""
    from noneuclid.report import hnn_ablations
    from noneuclid.train.loop import train_stacked
    data = [f"paths.generated_dir={tmp_path}/gen", "data.train_size=128", "data.dev_size=64", "data.test_size=64"]
    common = ["profile=smoke", f"paths.runs_dir={tmp_path}/runs", "variant=hnn/euclidean_rnn", "data=prefix10",
              "trainer.progress=false", *data]
    for experiment in ("hnn/table1", "hnn/same_init"):  # float64; float32 from float64's initial weights
        train_stacked([compose([f"experiment={experiment}", *common, f"seed={seed}"], experiment_name=experiment)
                       for seed in (0, 1)])
    assert hnn_ablations.same_init(_ended(tmp_path), "smoke", data) is None  # not a float32 report
    row, = hnn_ablations.same_init(_ended(tmp_path), "smoke", [*data, "trainer.dtype=float32"]).to_dict("records")
    assert row["model"] == "fully Euclidean RNN" and row["float32"].endswith("(n=2)")
    assert row["float32 - float64, paired"] == 0 and row["seeds within 2 points"] == "2 of 2"
    assert row["60 % dev at the same batch"] == "2 of 2"


def test_health_names_runs_still_at_chance_per_dataset_and_model():
    from noneuclid.report import hnn_claims, run_table
    rows = []
    for i, (data, acc) in enumerate([("prefix10", 0.95), ("prefix30", 0.50), ("prefix30", 0.81), ("prefix50", 0.51)]):
        rows.append({"cfg.data.label": data, "cfg.model.geometry": "euclidean", "cfg.model.cell": "gru",
                     "final_test_accuracy": acc, "test_accuracy_at_best_dev": acc, "run": f"run{i}", "status": "done"})
    lines = hnn_claims.health(pd.DataFrame(rows), run_table.Runs(pd.DataFrame(rows), pd.DataFrame()))
    assert lines[0] == "PREFIX-10: 1 of 1 finished runs reach 80 % test accuracy."
    assert lines[1] == ("Still at chance when training stopped (final test accuracy below 52 %): PREFIX-30% fully "
                        "Euclidean GRU 1 of 2, PREFIX-50% fully Euclidean GRU 1 of 1.")


def test_cpu_profile_gives_the_rnns_twice_the_gru_epochs_and_the_report_says_so():
    """About equal CPU time per model (a GRU step costs 2.5 RNN steps); the settings line names both."""
    from noneuclid.report import hnn

    epochs = {cell: compose(["experiment=hnn/table1", "profile=cpu", f"variant=hnn/euclidean_{cell}"]).trainer.epochs
              for cell in ("rnn", "gru")}
    assert epochs["rnn"] == 2 * epochs["gru"]
    runs = pd.DataFrame({"cfg.model.cell": ["gru", "rnn"], "cfg.trainer.epochs": [epochs["gru"], epochs["rnn"]],
                         "cfg.data.label": "prefix10",
                         "cfg.data.train_size": 1000, "cfg.data.batch_size": 64, "cfg.trainer.eval_every_steps": 2000,
                         "cfg.trainer.dtype": "float64", "nonfinite_events": 0})
    assert (f"the GRUs {epochs['gru']} epochs ({epochs['gru'] * 16} batches of 64), "
            f"the RNNs {epochs['rnn']} epochs ({epochs['rnn'] * 16} batches of 64)") in hnn._settings(runs)


def test_carry_gaps_ablation_sets_the_runs_with_carried_gaps_beside_table1s(tmp_path):
    """experiment=hnn/carry_gaps (float32, model.carry_gaps) lands in the float32 report's carry_gaps
    table beside Table 1's run of the same model; a float64 report has no such runs."""
    from noneuclid.report import hnn_ablations
    data = [f"paths.generated_dir={tmp_path}/gen", "data.train_size=128", "data.dev_size=64", "data.test_size=64"]
    common = ["profile=smoke", f"paths.runs_dir={tmp_path}/runs", "variant=hnn/hyperbolic_gru", "data=prefix10",
              "trainer.progress=false", *data]
    train(compose(["experiment=hnn/table1", "trainer.dtype=float32", *common], experiment_name="hnn/table1"))
    cfg = compose(["experiment=hnn/carry_gaps", *common], experiment_name="hnn/carry_gaps")
    assert cfg.model.carry_gaps and cfg.trainer.dtype == "float32"
    train(cfg)
    table = hnn_ablations.ablation(_ended(tmp_path), "smoke", (0,), [*data, "trainer.dtype=float32"], "carry_gaps")
    assert list(table["model.carry_gaps"]) == ["off (Table 1)", "on"]
    assert set(table.model) == {"fully hyperbolic GRU"}
    assert hnn_ablations.ablation(_ended(tmp_path), "smoke", (0,), data, "carry_gaps") is None
