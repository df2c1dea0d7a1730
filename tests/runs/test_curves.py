"""Runs with their curves (runs/curves.py): each run's evaluated epochs as a Series, one run per seed of a cell."""

from __future__ import annotations

import pandas as pd
import pytest

from noneuclid.runs import curves


def _runs(**settings) -> pd.DataFrame:
    return pd.DataFrame({"run": ["b", "a", "c"], "cfg.model.n": [4, 2, 4], "cfg.seed": [1, 0, 0], **settings})


def test_each_run_gets_its_evaluated_curve_sorted_by_cell_and_seed():
    logged = pd.DataFrame(
        {
            "run": ["a", "a", "a", "b", "b"],
            "epoch": [1, 2, 2, 1, None],  # epoch 2 of a logged twice (the last counts); b's last row no epoch
            "val_accuracy": [0.1, 0.2, 0.3, 0.5, None],
        }
    )
    runs = curves.with_curves(_runs(), curves.evaluated(logged), "val_accuracy", ["model.n"])
    assert list(runs.run) == ["a", "c", "b"]  # n = 2, then n = 4 by seed
    assert runs.curve.iloc[0].to_dict() == {1: 0.1, 2: 0.3} and runs.curve.iloc[1].empty  # c logged nothing


def test_two_runs_of_one_cell_and_seed_are_an_error_that_says_what_to_do():
    with pytest.raises(ValueError, match="keep one setting per profile"):
        curves.with_curves(_runs(**{"cfg.seed": [0, 0, 0]}), pd.DataFrame(columns=["run", "epoch"]), "x", ["model.n"])
