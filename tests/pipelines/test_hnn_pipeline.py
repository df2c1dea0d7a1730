"""Ganea et al.'s sentence-pair pipeline at smoke scale: all six Table 1 rows train on PREFIX,
evaluate on dev and test every few steps and select the test accuracy at the best dev accuracy."""

from pathlib import Path

import pandas as pd
import pytest

from noneuclid.config import compose
from noneuclid.train import train

ROWS = [
    "euclidean_rnn",
    "hyperbolic_rnn_eucl_mlr",
    "hyperbolic_rnn",
    "euclidean_gru",
    "hyperbolic_gru_eucl_mlr",
    "hyperbolic_gru",
]


@pytest.mark.parametrize("row", ROWS)
def test_table1_row_trains_on_prefix(row, tmp_path):
    cfg = compose(
        [
            "experiment=hnn/table1",
            "profile=smoke",
            f"variant=hnn/{row}",
            "data=prefix30",
            f"paths.runs_dir={tmp_path}/runs",
            f"paths.generated_dir={tmp_path}/gen",
            "trainer.progress=false",
            "data.train_size=128",
            "data.dev_size=64",
            "data.test_size=64",
        ],
        experiment_name="hnn/table1",
    )
    summary = train(cfg)
    assert 0.0 <= summary["test_accuracy_at_best_dev"] <= 1.0
    assert summary["final_train_loss"] == summary["final_train_loss"]  # not NaN
    assert summary["nonfinite_events"] == 0
    assert (tmp_path / "gen" / "prefix30" / "dev-64.tsv").exists()


def test_snli_without_train_split_fails_before_training(tmp_path):
    from noneuclid.data import DataError

    cfg = compose(
        [
            "experiment=hnn/table1",
            "profile=smoke",
            "data=snli",
            f"paths.data_dir={tmp_path}",
            f"paths.runs_dir={tmp_path}/runs",
        ]
    )
    with pytest.raises(DataError, match="snli_1.0_train"):
        train(cfg)
    assert not (tmp_path / "runs").exists()


def test_table1_report_from_runs(tmp_path):
    from noneuclid.data import snli
    from noneuclid.report import hnn
    from noneuclid.report.hnn_claims import CLAIMS, DATASETS

    common = [
        "experiment=hnn/table1",
        "profile=smoke",
        f"paths.runs_dir={tmp_path}/runs",
        f"paths.generated_dir={tmp_path}/gen",
        "trainer.progress=false",
        "data.train_size=128",
        "data.dev_size=64",
        "data.test_size=64",
    ]
    trained = {
        row: train(compose([*common, f"variant=hnn/{row}"], experiment_name="hnn/table1"))
        for row in ("euclidean_gru", "hyperbolic_gru")
    }
    out = tmp_path / "results"
    overrides = [f"paths.generated_dir={tmp_path}/gen", "data.train_size=128", "data.dev_size=64", "data.test_size=64"]
    hnn.make(tmp_path / "runs", "smoke", out, seeds=(0,), overrides=overrides)
    table = (out / "table1.md").read_text()
    assert "n=1" in table and (out / "fig_prefix10_dev.png").exists()
    # our cells: the two GRUs trained on PREFIX-10 (the default data), seed 0, the test accuracy of their run
    cells = pd.read_csv(out / "table1.csv").set_index(["model", "dataset"])
    for row, summary in trained.items():
        cell = cells.loc[(CLAIMS.labels["models"][row], DATASETS["prefix10"])]
        assert (cell.n, cell.selected_seed) == (1, 0)
        assert cell.selected == pytest.approx(100 * summary["test_accuracy_at_best_dev"])
    assert cells.n.sum() == 2
    # SNLI's column says "data missing" exactly when its train split is missing where the report looks
    missing = not snli.split_files(Path(compose(["experiment=hnn/table1"]).paths.data_dir) / "snli", "train")
    assert ("not run (data missing)" in table) == missing
    summary = (out / "summary.md").read_text()
    assert "## The paper's claims" in summary
    assert "`python -m noneuclid.train -m experiment=hnn/table1 profile=smoke 'stack.seed=[0]'" in summary


def test_report_of_a_smaller_experiment_shows_its_models_and_datasets_only(tmp_path):
    """Runs of experiment=hnn/compensated (the hyperbolic models on PREFIX-10): the report's table and
    run counts cover that experiment's grid, not Table 1's six models and four datasets."""
    from noneuclid.report import hnn

    data = [f"paths.generated_dir={tmp_path}/gen", "data.train_size=128", "data.dev_size=64", "data.test_size=64"]
    train(
        compose(
            [
                "experiment=hnn/compensated",
                "profile=smoke",
                f"paths.runs_dir={tmp_path}/runs",
                "variant=hnn/hyperbolic_rnn_eucl_mlr",
                "data=prefix10",
                "trainer.progress=false",
                *data,
            ],
            experiment_name="hnn/compensated",
        )
    )
    out = tmp_path / "results"
    hnn.make(tmp_path / "runs", "smoke", out, seeds=(0,), overrides=[*data, "optim.compensated=true"])
    table = pd.read_csv(out / "table1.csv")
    assert set(table.dataset) == {"PREFIX-10%"} and table.n.tolist() == [1, 0, 0, 0]
    assert "fully Euclidean RNN" not in set(table.model) and len(table) == 4
    summary = (out / "summary.md").read_text()
    assert "experiment=hnn/compensated" in summary and "1 of 4 PREFIX runs finished" in summary
    assert "SNLI" not in summary and "PREFIX-30" not in summary  # the claims of its grid only
    assert "not testable here" in summary  # no Euclidean model


def _pairs(n_first, n_second, label):
    return [[1 + i % 3 for i in range(n_first)]], [[1 + i % 3 for i in range(n_second)]], [label]


def test_bad_sentences_get_defined_behaviour():
    """Empty sentences become one unknown token (id 0); ids 0 (unknown/padding) are embedded like any
    word; sentences far longer than any seen in training are encoded (the recurrence has no maximum
    length) and stay in the ball."""
    import torch

    from noneuclid.models.sentence_pair import SentencePairModel
    from noneuclid.train.tasks import SentencePairs

    task = SentencePairs(
        {"train": ([[1, 2], []], [[], [0, 0, 3]], [1, 0]), "dev": _pairs(3, 2, 1), "test": _pairs(200, 150, 0)},
        vocab_size=4,
        batch_size=2,
        seed=0,
    )
    t1, l1, t2, l2, _ = (t[0] for t in task.splits["train"])  # run 0 of the task's stack of one
    assert l1.tolist() == [2, 1] and t1[1, :2].tolist() == [0, 0] and l2.tolist() == [1, 3]
    assert t1.shape[-1] == 200  # every split padded to the longest sentence of all
    torch.manual_seed(0)
    for geometry in ("euclidean", "hyperbolic_eucl_mlr", "hyperbolic"):
        model = SentencePairModel(4, "gru", geometry).double()
        (row,) = task.evaluate(model, "test")  # 200 / 150 tokens; training sentences had at most 3
        assert row["test_nonfinite"] == 0 and 0 <= row["test_accuracy"] <= 1
        if geometry != "euclidean":
            states = model.encode(*task.splits["test"][:4])
            assert all(bool((s.norm(dim=-1) < 1).all()) for s in states)


def test_unknown_words_map_to_id_zero(tmp_path):
    """SNLI words never seen in training get id 0 (the unknown/padding embedding)."""
    from omegaconf import OmegaConf

    from noneuclid.data import snli
    from noneuclid.train.tasks import sentence_pairs

    splits = {
        "train": ([["a", "cat"]], [["a", "dog"]], [1]),
        "dev": ([["a", "zebra"]], [["cat"]], [0]),
        "test": ([["unseen"]], [["a"]], [1]),
    }
    original = snli.load
    snli.load = lambda root, split: splits[split]
    try:
        ids, vocab = sentence_pairs.sentence_pair_splits(
            OmegaConf.create({"data": {"name": "snli"}, "paths": {"data_dir": "x"}})
        )
    finally:
        snli.load = original
    assert vocab == 4  # padding/unknown + a, cat, dog
    assert ids["dev"][0] == [[1, 0]] and ids["test"][0] == [[0]]


def test_cell_check_compares_the_papers_hyperbolic_model_not_our_better_one():
    """PREFIX-10 RNN: the paper's best hyperbolic model is the fully hyperbolic one (96.91 > 96.36), so
    ours is judged on our fully hyperbolic RNN even where our hyperbolic + Eucl. MLR is higher."""
    from noneuclid.report import hnn_claims

    acc = {"euclidean": (80.0, 81.0, 82.0), "hyperbolic_eucl_mlr": (95.0, 96.0, 97.0), "hyperbolic": (70.0, 71.0, 72.0)}
    finished = pd.DataFrame(
        [
            {
                "cfg.data.label": "prefix10",
                "cfg.model.cell": "rnn",
                "cfg.model.geometry": g,
                "cfg.seed": k,
                "test_accuracy_at_best_dev": a / 100,
                "best_dev_accuracy": a / 100,
            }
            for g, accs in acc.items()
            for k, a in enumerate(accs)
        ]
    )
    (cell,) = [v for v in hnn_claims.verdicts(finished) if v.cell == "PREFIX-10, RNN"]
    assert (cell.arm_a, cell.paper_a, cell.paper_b) == ("hyperbolic", 96.91, 89.62)
    assert (cell.mean_a, cell.mean_b, cell.verdict) == (71.0, 81.0, "contradicts")


def test_health_names_runs_still_at_chance_per_dataset_and_model():
    from noneuclid.report import hnn_claims
    from noneuclid.runs import table as run_table

    rows = []
    for i, (data, acc) in enumerate([("prefix10", 0.95), ("prefix30", 0.50), ("prefix30", 0.81), ("prefix50", 0.51)]):
        rows.append(
            {
                "cfg.data.label": data,
                "cfg.model.geometry": "euclidean",
                "cfg.model.cell": "gru",
                "final_test_accuracy": acc,
                "test_accuracy_at_best_dev": acc,
                "run": f"run{i}",
                "status": "done",
            }
        )
    lines = hnn_claims.health(pd.DataFrame(rows), run_table.Runs(pd.DataFrame(rows), pd.DataFrame()))
    assert lines[0] == "PREFIX-10: 1 of 1 finished runs reach 80 % test accuracy."
    assert lines[1] == (
        "Still at chance when training stopped (final test accuracy below 52 %): PREFIX-30% fully "
        "Euclidean GRU 1 of 2, PREFIX-50% fully Euclidean GRU 1 of 1."
    )


def test_cpu_profile_gives_the_rnns_twice_the_gru_epochs_and_the_report_says_so():
    """About equal CPU time per model (a GRU step costs 2.5 RNN steps); the settings line names both."""
    from noneuclid.report import hnn

    epochs = {
        cell: compose(["experiment=hnn/table1", "profile=cpu", f"variant=hnn/euclidean_{cell}"]).trainer.epochs
        for cell in ("rnn", "gru")
    }
    assert epochs["rnn"] == 2 * epochs["gru"]
    runs = pd.DataFrame(
        {
            "cfg.model.cell": ["gru", "rnn"],
            "cfg.trainer.epochs": [epochs["gru"], epochs["rnn"]],
            "cfg.data.label": "prefix10",
            "cfg.data.train_size": 1000,
            "cfg.data.batch_size": 64,
            "cfg.trainer.eval_every_steps": 2000,
            "cfg.trainer.dtype": "float64",
            "nonfinite_events": 0,
        }
    )
    assert (
        f"the GRUs {epochs['gru']} epochs ({epochs['gru'] * 16} batches of 64), "
        f"the RNNs {epochs['rnn']} epochs ({epochs['rnn'] * 16} batches of 64)"
    ) in hnn._settings(runs)
