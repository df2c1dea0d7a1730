"""The interleaved timing of Brantner's four runs (evaluate.timing) on the tiny MNIST files, on the CPU."""

from __future__ import annotations

import pandas as pd

from noneuclid.evaluate import timing
from noneuclid.nn import StiefelParameter
from noneuclid.optim import ManifoldAdam, ManifoldGD, ManifoldMomentum
from noneuclid.report.brantner import SETUPS


def test_the_four_arms_are_timed_in_interleaved_rounds(tiny_mnist, tmp_path):
    overrides = [f"paths.data_dir={tiny_mnist}", "model.depth=1"]
    task, built = timing.arms("smoke", overrides)
    assert list(built) == list(SETUPS)
    kinds = {
        arm: (type(opt), any(isinstance(p, StiefelParameter) for p in model.parameters()))
        for arm, (model, opt) in built.items()
    }
    assert kinds == {
        "adam_euclidean": (ManifoldAdam, False),
        "adam_stiefel": (ManifoldAdam, True),
        "gd_stiefel": (ManifoldGD, True),
        "momentum_stiefel": (ManifoldMomentum, True),
    }
    written = timing.make("smoke", tmp_path, repeats=2, steps=1, overrides=overrides)
    table = pd.read_csv(written[0])
    assert written == [tmp_path / "timing.csv"]  # --device cuda writes timing_gpu.csv
    assert list(table.columns) == timing.COLUMNS
    assert list(table.arm) == list(SETUPS) * 2 and list(table.repeat) == [0] * 4 + [1] * 4  # A, B, C, D, A, ...
    assert (table.steps == 1).all() and (table.steps_per_epoch == task.steps_per_epoch()).all()
    assert (table.seconds_per_step > 0).all() and set(table.threads) == {1} and set(table.device) == {"cpu"}


def test_a_block_is_the_first_steps_of_an_epoch(tiny_mnist, make_cfg):
    from noneuclid.train import tasks

    task = tasks.build(make_cfg())
    first = timing.FirstSteps(task, 2)
    assert first.steps_per_epoch() == 2 and first.batch_size == task.batch_size
    blocks, epoch = list(first.batches(3)), list(task.batches(3))
    assert len(blocks) == 2 and all((a[0] == b[0]).all() for a, b in zip(blocks, epoch))
    assert timing.FirstSteps(task, 10**6).steps_per_epoch() == task.steps_per_epoch()
