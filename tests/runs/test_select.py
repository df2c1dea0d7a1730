"""The one run selector (runs/select.py): runs picked by their settings, never by their folder names, and
"finished" defined in one place."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
from omegaconf import OmegaConf

from noneuclid.config import compose, sweep_values
from noneuclid.runs import select, settings_id

SRC = Path(select.__file__).resolve().parents[1]


def _runs() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "run": ["a", "b", "c", "d"],
            "status": ["done", "diverged", "done", "failed"],
            "cfg.seed": [0, 0, 1, 2],
            "cfg.optim.lr": [0.1, 0.1, 0.3, 0.1],
            "cfg.optim.clip_norm": [1.0, None, None, None],
        }
    )


def test_finished_and_ended_runs():
    runs = _runs()
    assert list(select.finished(runs).run) == ["a", "c"]
    assert select.ended_as(runs).all() and list(runs[select.ended_as(runs, (select.DIVERGED,))].run) == ["b"]
    assert select.finished(pd.DataFrame()).empty


def test_settings_pick_runs_and_none_means_unset_or_a_setting_the_runs_lack():
    runs = _runs()
    assert list(runs[select.chosen(runs, {"optim.lr": 0.1, "optim.clip_norm": None})].run) == ["b", "d"]
    assert list(runs[select.chosen(runs, {"optim.momentum": None})].run) == ["a", "b", "c", "d"]
    assert not select.chosen(runs, {"optim.momentum": 0.9}).any()
    either = select.any_of(runs, [{"optim.lr": 0.3}, {"optim.clip_norm": 1.0}])
    assert list(runs[either].run) == ["a", "c"] and not select.any_of(runs, []).any()
    assert list(select.arm_values(runs, {"optim.lr": 0.1}, "run")) == ["a", "b", "d"]


def test_a_training_command_picks_the_finished_runs_of_its_settings_whatever_their_seed():
    cfg = OmegaConf.to_container(compose(["variant=brantner/adam_stiefel", "profile=smoke"]), resolve=True)
    other = OmegaConf.to_container(
        compose(["variant=brantner/adam_stiefel", "profile=smoke", "optim.lr=0.5"]), resolve=True
    )
    runs = pd.DataFrame(
        {
            "run": ["s0", "s1", "lr", "gpu", "stopped"],
            "status": ["done"] * 4 + ["stopped"],
            "settings_id": [
                settings_id({**cfg, "seed": 0}, False),
                settings_id({**cfg, "seed": 1}, False),
                settings_id(other, False),
                settings_id(cfg, True),
                settings_id(cfg, False),
            ],
        }
    )
    assert list(select.trained_by(runs, ["variant=brantner/adam_stiefel", "profile=smoke"]).run) == ["s0", "s1", "gpu"]


def test_finished_is_defined_in_one_place():
    found = [
        str(p.relative_to(SRC)) for p in SRC.rglob("*.py") if re.search(r'status == "done"|status\.isin', p.read_text())
    ]
    assert found == ["runs/select.py"]


def test_runs_grouped_by_their_settings_in_the_order_of_the_values():
    groups = select.by_settings(_runs(), ["optim.lr", "optim.clip_norm"])
    assert [(s, list(g.run)) for s, g in groups] == [({"optim.lr": 0.1, "optim.clip_norm": 1.0}, ["a"])]
    assert [(s, list(g.run)) for s, g in select.by_settings(_runs(), ["optim.lr"])] == [
        ({"optim.lr": 0.1}, ["a", "b", "d"]),
        ({"optim.lr": 0.3}, ["c"]),
    ]


def test_an_experiments_runs_are_those_of_each_combination_it_sweeps_one_per_seed():
    """select.swept: the finished runs of each variant that hnn/long sweeps on each dataset given, by the
    settings each composes (on the CPU or a GPU), the last of a seed's twins kept, in the sweep's order."""
    ids = {
        v: settings_id(
            OmegaConf.to_container(
                compose(["experiment=hnn/long", f"variant={v}", "data=prefix10", "profile=smoke"]), resolve=True
            ),
            cuda,
        )
        for v, cuda in zip(sweep_values("hnn/long", "variant"), (False, True))
    }
    euclidean, hyperbolic = ids.values()
    runs = pd.DataFrame(
        {
            "run": ["h0", "e0", "e0-again", "e1", "other", "stopped"],
            "status": ["done"] * 5 + ["stopped"],
            "cfg.seed": [0, 0, 0, 1, 0, 1],
            "settings_id": [hyperbolic, euclidean, euclidean, euclidean, "0000", hyperbolic],
        }
    )
    found = select.swept(runs, "hnn/long", ["profile=smoke"], ["prefix10"])
    assert list(found.run) == ["e0-again", "e1", "h0"]
    assert select.swept(runs, "hnn/long", ["profile=smoke"], []).empty  # no dataset: none


def test_an_experiment_that_sweeps_seeds_finds_each_run_once_named_by_its_combination():
    """select.swept on brantner/table2 (variant and seed swept, its own dataset): each run once (the seed is
    not a setting), with the variant that found it in column `named`; a run of other settings stays out."""
    ids = {
        v: settings_id(
            OmegaConf.to_container(
                compose(["experiment=brantner/table2", f"variant={v}", "profile=smoke"]), resolve=True
            ),
            False,
        )
        for v in sweep_values("brantner/table2", "variant")[:2]
    }
    euclidean, stiefel = ids.values()
    runs = pd.DataFrame(
        {
            "run": ["s0", "e0", "e1", "lr"],
            "status": ["done"] * 4,
            "cfg.seed": [0, 0, 1, 0],
            "settings_id": [stiefel, euclidean, euclidean, "0000"],
        }
    )
    found = select.swept(runs, "brantner/table2", ["profile=smoke"], named="variant")
    assert list(found.run) == ["e0", "e1", "s0"]
    assert list(found.variant) == ["brantner/adam_euclidean"] * 2 + ["brantner/adam_stiefel"]
    none = select.swept(runs.iloc[:0], "brantner/table2", ["profile=smoke"], named="variant")
    assert none.empty and "variant" in none  # none found: still the column
