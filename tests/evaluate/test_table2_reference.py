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


def test_the_reference_fits_each_euclidean_run_on_its_own_points_and_split(tmp_path):
    common = ["profile=smoke", f"paths.runs_dir={tmp_path / 'runs'}", "trainer.progress=false"]
    train(compose(["experiment=hnn/poincare", "model.dim=2", *common]))
    cell = ["experiment=hnn/table2", "data.dim=2", "data.subtree=animal.n.01", *common]
    for geometry in ("hyperbolic", "euclidean", "euclidean_log0"):
        for seed in (0, 1):
            train(compose([*cell, f"model.geometry={geometry}", f"seed={seed}"]))
    train(compose([*cell, "model.geometry=euclidean", "model.offsets=null", "seed=0"]))  # an earlier protocol's
    found = table2_reference.classifier_runs(tmp_path / "runs", "smoke")
    assert len(found) == 4  # today's protocol only, and not the hyperbolic MLR
    assert all("offsets: true" in (folder / "config.yaml").read_text() for folder in found)
    written = pd.read_csv(table2_reference.make(tmp_path / "runs", "smoke", tmp_path / "out"))
    assert list(written.columns) == ["subtree", "dim", "classifier", "sampling", "seeds", "ours_f1", "reference_f1",
                                     "difference", "ours_train_loss", "reference_train_loss"]
    assert list(written.classifier) == ["euclidean", "euclidean_log0"] and set(written.seeds) == {2}
    assert written.reference_f1.between(0, 100).all()
    assert (written.difference == written.ours_f1 - written.reference_f1).all()
    assert written.reference_train_loss.between(0, math.log(2)).all()  # the optimum: no worse than a constant guess


def test_no_runs_says_what_to_train(tmp_path):
    with pytest.raises(FileNotFoundError, match="experiment=hnn/table2 profile=smoke"):
        table2_reference.make(tmp_path, "smoke", tmp_path / "out")
