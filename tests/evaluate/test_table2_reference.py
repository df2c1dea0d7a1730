"""The scikit-learn reference of Table 2's Euclidean classifiers (evaluate.table2_reference), on the
toy tree's smoke embedding."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from noneuclid.config import compose
from noneuclid.evaluate import table2_reference
from noneuclid.train.loop import train

pytest.importorskip("sklearn")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """A smoke embedding and two seeds of each classifier on it, plus one run of an earlier protocol."""
    runs = tmp_path_factory.mktemp("table2") / "runs"
    common = ["profile=smoke", f"paths.runs_dir={runs}", "trainer.progress=false"]
    train(compose(["experiment=hnn/poincare", "model.dim=2", *common]))
    cell = ["experiment=hnn/table2", "data.dim=2", "data.subtree=animal.n.01", *common]
    for geometry in ("hyperbolic", "euclidean", "euclidean_log0"):
        for seed in (0, 1):
            train(compose([*cell, f"model.geometry={geometry}", f"seed={seed}"]))
    train(compose([*cell, "model.geometry=euclidean", "model.offsets=null", "seed=0"]))  # an earlier protocol's
    return runs


def test_the_reference_fits_each_euclidean_run_on_its_own_points_and_split(runs, tmp_path):
    found = table2_reference.classifier_runs(runs, "smoke")
    assert len(found) == 4  # today's protocol only, and not the hyperbolic MLR
    assert all("offsets: true" in (folder / "config.yaml").read_text() for folder in found)
    written = pd.read_csv(table2_reference.make(runs, "smoke", tmp_path))
    assert list(written.columns) == [
        "subtree",
        "dim",
        "classifier",
        "sampling",
        "seeds",
        "ours_f1",
        "reference_f1",
        "difference",
        "ours_train_loss",
        "reference_train_loss",
    ]
    assert list(written.classifier) == ["euclidean", "euclidean_log0"] and set(written.seeds) == {2}
    assert written.reference_f1.between(0, 100).all()
    assert (written.difference == written.ours_f1 - written.reference_f1).all()
    assert written.reference_train_loss.between(0, math.log(2)).all()  # the optimum: no worse than a constant guess


def test_a_rerun_replaces_the_cells_it_has_runs_of_and_keeps_the_others(runs, tmp_path):
    written = pd.read_csv(table2_reference.make(runs, "smoke", tmp_path / "first"))
    other = written.iloc[[0]].assign(subtree="mammal.n.01", ours_f1=1.0)  # a cell whose runs are not here
    stale = written.assign(ours_f1=-1.0)  # the cells that are: recomputed
    pd.concat([stale, other]).to_csv(tmp_path / "table2_reference.csv", index=False)
    again = pd.read_csv(table2_reference.make(runs, "smoke", tmp_path))
    assert list(again.subtree) == ["animal.n.01", "animal.n.01", "mammal.n.01"]
    pd.testing.assert_frame_equal(again.iloc[:2], written)
    assert again.iloc[2].ours_f1 == 1.0


def test_a_cell_found_with_fewer_seeds_than_its_row_keeps_its_row():
    cell = {"subtree": "animal.n.01", "dim": 2, "classifier": "euclidean", "sampling": "natural"}
    old = pd.DataFrame([{**cell, "seeds": 10, "ours_f1": 90.0}, {**cell, "dim": 3, "seeds": 10, "ours_f1": 80.0}])
    new = pd.DataFrame([{**cell, "seeds": 1, "ours_f1": 50.0}, {**cell, "dim": 3, "seeds": 10, "ours_f1": 85.0}])
    table, partial = table2_reference.merged(old, new)
    assert list(table.ours_f1) == [90.0, 85.0] and list(partial.dim) == [2]


def test_no_runs_says_what_to_train(tmp_path):
    with pytest.raises(FileNotFoundError, match="experiment=hnn/table2 profile=smoke"):
        table2_reference.make(tmp_path, "smoke", tmp_path / "out")
