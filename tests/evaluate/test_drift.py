"""The orthonormality drift simulation (evaluate.drift) on a few small Stiefel points for a few steps:
what it records, the gradients it draws, and float32 against float64."""

from __future__ import annotations

import pandas as pd
import pytest
import torch

from noneuclid.config import compose
from noneuclid.evaluate import drift
from noneuclid.evaluate.__main__ import retraction_seeds
from noneuclid.geometry import stiefel
from noneuclid.nn import StiefelParameter

N, n = 6, 2


def _run(name="adam", norms=(1.0, 0.3, 1e-8), steps=12, every=4, seeds=(0, 1), dtype=torch.float32, overrides=()):
    """simulate with the paper's settings of optimizer `name` (householder section) on len(norms) points."""
    cfg = compose([f"variant=brantner/{name}_stiefel", *drift.SECTION, *overrides])
    g = torch.tensor(norms, dtype=torch.float64)
    return drift.simulate(cfg.optim, g, 0.5 * g, 4, steps, every, seeds, N, n, dtype)


def test_deviations_are_the_largest_entry_of_yty_minus_i_per_matrix():
    Y = torch.zeros(2, N, n)
    Y[:, :n, :n] = torch.eye(n)
    Y[1, 0, 0], Y[1, 2, 1] = 1.25, 0.5  # (Y^T Y)_00 = 1.5625, (Y^T Y)_11 = 1.25
    assert drift.deviations(Y).tolist() == [0.0, 0.5625]


def test_records_every_few_steps_per_seed_the_max_and_median_over_the_points(monkeypatch):
    made = []  # the stacked parameter simulate steps: after it returns, the points of the last step

    def kept(Y):
        made.append(StiefelParameter(Y))
        return made[-1]

    monkeypatch.setattr(drift, "StiefelParameter", kept)
    out = _run(steps=10, every=4)
    assert list(out.columns) == ["step", "seed", "max_dev", "median_dev"]
    assert sorted(set(out.step)) == [0, 4, 8, 10] and (out.groupby("step").seed.apply(list) == [[0, 1]] * 4).all()
    (last,) = made
    for i, seed in enumerate((0, 1)):  # step 0: the initial points of Algorithm 3, drawn from the seed's generator
        start = stiefel.random_point(3, N=N, n=n, dtype=torch.float32, generator=torch.Generator().manual_seed(seed))
        for step, points in ((0, start), (10, last.detach()[i])):  # step 10: the points after the last step
            row = out[(out.step == step) & (out.seed == seed)].iloc[0]
            dev = drift.deviations(points)
            assert row.max_dev == pytest.approx(float(dev.max()), rel=1e-12)
            assert row.median_dev == pytest.approx(float(dev.quantile(0.5)), rel=1e-12)
        assert not torch.equal(last.detach()[i], start)  # the points moved


def test_seeds_are_independent_gradient_streams_and_reproducible():
    both, alone = _run(seeds=(0, 1)), _run(seeds=(1,))
    last = both[both.step == both.step.max()].set_index("seed").max_dev
    assert last[0] != last[1]
    assert _run(seeds=(0, 1)).equals(both)
    assert alone.max_dev.iloc[0] == both[both.seed == 1].max_dev.iloc[0]  # seed 1's own initial points


def test_points_without_gradient_do_not_move():
    out = _run("gd", norms=(0.0, 0.0), steps=6, every=3)
    assert out.groupby("seed").max_dev.nunique().eq(1).all()


def test_float64_keeps_the_points_orthonormal_where_float32_drifts():
    f32, f64 = (_run(steps=200, every=200, seeds=(0,), dtype=dt) for dt in (torch.float32, torch.float64))
    last32, last64 = f32.max_dev.iloc[-1], f64.max_dev.iloc[-1]
    assert last64 < 1e-13 < 1e-8 < last32 < 1e-4


def test_gradient_shares_are_unbiased_for_the_batches():
    norm = torch.ones(3, dtype=torch.float64)
    a, b = drift.gradient_shares(norm, torch.tensor([1.0, 0.5, 0.1], dtype=torch.float64), 4)
    assert a.tolist() == pytest.approx([1.0, 0.0, 0.0])  # c^2 = 1/4: what 4 batches of pure noise share
    assert (a.square() + b.square()).tolist() == pytest.approx([1.0] * 3)


def test_grid_labels_every_optimizer_and_retraction_with_the_section_it_ran():
    norms = pd.DataFrame(
        [
            {"optimizer": o, "projection": j, "batches": 4, "grad_norm": 0.1, "mean_norm": 0.05}
            for o in drift.OPTIMIZERS
            for j in range(2)
        ]
    )
    out = drift.grid(norms, 2, 1, {"geodesic": (0, 1), "cayley": (0,)}, drift.SECTION)
    assert list(out.columns) == drift.COLUMNS and set(out.section) == {"householder"}
    assert len(out) == len(drift.OPTIMIZERS) * 3 * 3  # (2 + 1 seeds) x 3 records
    assert set(zip(out.optimizer, out.retraction)) == {(o, r) for o in drift.OPTIMIZERS for r in ("geodesic", "cayley")}


def test_seeds_per_retraction_on_the_command_line():
    assert retraction_seeds("geodesic=0-2") == ("geodesic", [0, 1, 2])
    with pytest.raises(Exception, match="geodesic=SEEDS"):
        retraction_seeds("exp=0")
