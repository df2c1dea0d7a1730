"""The table engine (report/table_engine.py) on a declared table, claims/hnn_tables.yaml's table1: the number of
the seed with the best dev accuracy, mean +- s.d. beside it, and the paper's number from its claim's cell."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from noneuclid.claims import data as claims_data
from noneuclid.report import table_engine


def _runs(dev, test, geometry="euclidean", cell="gru", label="prefix10") -> pd.DataFrame:
    return pd.DataFrame(
        {
            "cfg.model.geometry": geometry,
            "cfg.model.cell": cell,
            "cfg.data.label": label,
            "cfg.seed": range(len(dev)),
            "best_dev_accuracy": dev,
            "test_accuracy_at_best_dev": test,
        }
    )


def test_a_declared_table_picks_the_seed_the_paper_picks_and_puts_the_papers_number_beside_it():
    finished = pd.concat([_runs([0.90, 0.95, 0.95], [0.80, 0.81, 0.88]), _runs([0.5], [0.5], label="prefix30")])
    cells = [("euclidean_gru", "prefix10"), ("hyperbolic_gru", "prefix10")]
    table = table_engine.data("hnn", "table1", finished, cells)
    first, empty = table.iloc[0], table.iloc[1]
    assert (first.selected, first.selected_seed, first.n) == (81.0, 1, 3)  # tied at 0.95: the lower seed
    assert first["mean"] == pytest.approx(83.0) and first.model == "fully Euclidean GRU"
    cell = next(
        c
        for c in claims_data.load("hnn")["table1_hyperbolic_on_par_or_better"].cells
        if c.where == {"data.label": "prefix10", "model.cell": "gru"}
    )
    assert first.paper == cell.paper["euclidean"] and empty.paper == cell.paper["hyperbolic"]
    assert empty.n == 0 and math.isnan(empty.selected)
    shown = table_engine.shown("hnn", "table1", table, {"PREFIX-10%": "not run (data missing)"})
    assert list(shown["PREFIX-10% (ours)"]) == ["81.00 (83.00 ± 4.36, n=3)", "not run (data missing)"]
    assert list(shown.columns) == ["model", "PREFIX-10% (ours)", "PREFIX-10% (paper)"]


def test_the_tables_files_are_not_papers():
    assert "hnn_tables" not in claims_data.papers() and "hnn" in claims_data.papers()


def test_an_evaluations_table_is_shown_as_declared():
    data = pd.DataFrame(
        {
            "subtree": ["animal.n.01"],
            "dim": [2],
            "classifier": ["euclidean_log0"],
            "sampling": ["natural"],
            "seeds": [10],
            "ours_f1": [87.654],
            "reference_f1": [87.7286],
            "difference": [-0.0743],
            "ours_train_loss": [0.0498198],
            "reference_train_loss": [0.0495956],
        }
    )
    shown = table_engine.displayed("hnn", "table2_reference", data).iloc[0].to_dict()
    assert shown["classifier"] == claims_data.load("hnn").labels["classifiers"]["euclidean_log0"]
    assert (shown["dim"], shown["test F1 % (ours)"], shown["difference"], shown["final train loss (ours)"]) == (
        "2",
        "87.65",
        "-0.07",
        "0.04982",
    )


def test_a_declared_display_says_missing_values_and_maps_values_to_words():
    emb = pd.DataFrame(
        {
            "dim": [5, 2],
            "epochs": [10, 10],
            "batch_size": [50, 50],
            "lr": [1.0, 1.0],
            "burnin_epochs": [20, 20],
            "burnin_factor": [0.1, 0.1],
            "burnin_negatives": ["5 uniform"] * 2,
            "table2": [True, False],
            "train_minutes": [1.4, 2.6],
            "nodes_ranked": [82115, 1000],
            "mean_rank": [4.9, 9.0],
            "map": [0.8, 0.5],
            "reference_mean_rank": [4.9, math.nan],
            "reference_map": [0.823, math.nan],
        }
    )
    shown = table_engine.displayed("hnn", "table2_embeddings", emb)
    assert list(shown["Table 2"]) == ["classified", "-"] and list(shown["nodes ranked"]) == ["82,115", "1,000"]
    assert list(shown["Nickel & Kiela (mean rank / MAP)"]) == ["4.9 / 0.823", "not available here"]
    assert table_engine.displayed("hnn", "table2_embeddings", emb.iloc[0:0]).empty


def test_a_column_may_be_optional_map_some_values_and_take_its_name_from_a_field():
    numbers = pd.DataFrame(
        {
            "depth": [18],
            "n": [4],
            "model": ["PHResNet18"],
            "seeds": [1],
            **{f"{m}_{s}": [2.0] for m in ("m1", "m1_at_x", "auc", "best_val_acc") for s in ("mean", "se")},
            "m1_reached": [1],
            "x_percent": [70],
            "m2": [math.inf],
            "epochs": [5],
            "paper_m1_mean": [math.nan],
            "paper_m1_se": [math.nan],
            "paper_m2": [math.nan],
        }
    )
    shown = table_engine.displayed("phydi", "resnet", numbers, level="80 %")
    assert "lr" not in shown and shown["reached 80 %"].item() == "1/1"  # no lr in the data: the column left out
    assert (shown["M2 (ours)"].item(), shown["M1 (ours)"].item(), shown["M1 (paper)"].item()) == ("never", "2.00", "")
    assert table_engine.displayed("phydi", "resnet", numbers.assign(m2=3.0, lr=0.1), level="80 %")[
        ["lr", "M2 (ours)"]
    ].values.tolist() == [["0.1", "3"]]  # a value the map lacks: as format


def test_a_summary_table_groups_aggregates_and_derives_as_declared():
    """claims/brantner_tables.yaml's table2 and accuracy: per setup (in the order met) the mean over its runs,
    the paper's minutes from the claims file's reference beside it, ratios to the caller's base row, and the
    classes of the seeds that predict one class joined after their word."""
    runs = pd.DataFrame(
        {
            "setup": ["adam_stiefel", "adam_euclidean", "adam_stiefel"],
            "seed": [0, 0, 1],
            "epochs": [2, 2, 4],
            "median_seconds_per_epoch": [3.0, 2.0, 5.0],
            "final_test_accuracy": [0.5, 0.1, 0.3],
            "final_train_loss": [0.7, 1.3, 0.9],
            "final_test_top_class": [1, 8, 0],
            "final_test_top_class_share": [0.2, 1.0, 1.0],
            "max_orthonormality_error": [1e-6, math.nan, 3e-6],
        }
    )
    numbers = {"base": "adam_euclidean", "paper_epochs": 500}  # the caller's @numbers (report.brantner_claims)
    table2 = table_engine.summarised("brantner", "table2", runs, **numbers).set_index("setup")
    assert list(table2.index) == ["adam_stiefel", "adam_euclidean"]
    stiefel = table2.loc["adam_stiefel"]
    assert (stiefel.epochs, stiefel.median_seconds_per_epoch, stiefel.ratio_to_base, stiefel.cpu_min) == (3, 4, 2, 2855)
    assert stiefel.minutes_paper_epochs == pytest.approx(4.0 * 500 / 60)
    assert stiefel.cpu_ratio_to_base == pytest.approx(2855 / 2783)
    accuracy = table_engine.summarised("brantner", "accuracy", runs)
    assert list(accuracy.one_class_classes) == ["class 0", "class 8"] and list(accuracy.seeds) == [2, 1]
    shown = table_engine.displayed("brantner", "accuracy", accuracy)
    assert list(shown["predicts one class"]) == ["1 of 2 seeds (class 0)", "1 of 1 seeds (class 8)"]
    assert list(shown["test accuracy % (ours)"]) == ["40.0", "10.0"]  # rounded to 2 decimals, as Python writes it


def test_a_table_of_swept_settings_counts_flags_beside_the_mean_and_bolds_each_rows_best():
    """claims/hnn_tables.yaml's table2_f1: rows every (subtree, dim) of experiment=hnn/table2's sweep, columns
    its classifiers; per cell the flagged runs counted and named beside the mean, the paper's number from a
    reference of the claims file (a reading note), the best mean of a row in bold."""
    runs = pd.DataFrame(
        {
            "cfg.data.subtree": "group.n.01",
            "cfg.data.dim": 2,
            "cfg.model.geometry": ["hyperbolic"] * 2 + ["euclidean"] * 2,
            "cfg.seed": [0, 1] * 2,
            "f1": [0.9, 0.8, 0.7, 0.7],
            "train_loss": 0.1,
            "not_learned": [False, True, False, False],
            "unstable": False,
            "unconverged": False,
        }
    )
    cells = table_engine.cells("hnn", "table2_f1")
    assert len(cells) == 4 * 4 * 3 and cells[0] == (("animal.n.01", 2), "hyperbolic")
    data = table_engine.data("hnn", "table2_f1", runs, [(("group.n.01", 2), g) for g in ("hyperbolic", "euclidean")])
    assert list(data.not_learned) == [1, 0] and list(data.paper) == [81.7, 61.1]
    shown = table_engine.shown("hnn", "table2_f1", data)
    assert shown.at[0, "hyperbolic MLR (ours)"] == "85.00 ± 5.00 (n=2), 1 not learned"
    assert shown.at[0, "Euclidean MLR (paper)"] == "61.10"
    assert table_engine.bold("hnn", "table2_f1", data) == {(0, "hyperbolic MLR (ours)")}


def test_a_table_from_runs_columns_renames_them_as_declared():
    integers = ["cfg.model.dim", "epochs", "cfg.data.batch_size", "cfg.optim.burnin_epochs", "epoch"]
    runs = pd.DataFrame({**dict.fromkeys(integers, [2.0]), "reconstruction_nodes": [9.0], "run": ["r"], "other": [1]})
    data = table_engine.frame("hnn", "table2_embeddings", runs)
    assert (data.at[0, "nodes_ranked"], data.at[0, "run"]) == (9, "r") and data.dim.dtype == int
    assert "other" not in data and data["map"].isna().all()  # a declared column the runs lack: NaN


def test_a_table_drawn_per_dataset_shows_the_papers_number_once_and_the_flags_inside_the_parentheses():
    """table1_charts: a page per dataset of hnn/charts (its column first), one paper column per row, and the
    runs that met a non-finite loss inside the parentheses of the cell they are in."""
    ball = {"cfg.model.chart": "poincare", "cfg.trainer.dtype": "float64"}
    finished = _runs([0.9, 0.8], [0.85, 0.75], geometry="hyperbolic").assign(**ball, nonfinite=[True, False])
    cells = [("hyperbolic_gru", "ball_float64"), ("hyperbolic_gru", "ball_float32")]
    data = table_engine.data("hnn", "table1_charts", finished, cells)
    assert list(data.dataset.unique()) == ["PREFIX-10%", "PREFIX-30%", "PREFIX-50%"]  # hnn/charts' stack.data
    shown = table_engine.shown("hnn", "table1_charts", data)
    assert list(shown.columns) == ["dataset", "model", "paper (ball, float64)", "ball, float64", "ball, float32"]
    first = shown.iloc[0]
    assert first["ball, float64"] == "85.00 (80.00 ± 5.00, n=2, 1 non-finite)" and first["ball, float32"] == "not run"
    assert first["paper (ball, float64)"] == "97.14" and shown.iloc[1]["ball, float64"] == "not run"
