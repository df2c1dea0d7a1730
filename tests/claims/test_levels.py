"""The level of each look (claims/levels.py): the first at 5 %, later ones never looser, spent so that a
false "reproduces" over all looks stays within the rate; read from the same simulated paths as the engine
would judge them; in the committed results/engine/levels.csv and a fresh small calibration."""

from __future__ import annotations

import random
from pathlib import Path

import pandas as pd
import pytest

from noneuclid.claims import engine, levels, validation
from noneuclid.claims.significance import ALPHA

LEVELS = Path(__file__).resolve().parents[2] / "results" / "engine" / "levels.csv"


@pytest.mark.parametrize("kind", validation.KINDS)
def test_the_decisions_read_from_paths_are_the_engines_verdicts(kind):
    rng, cells = random.Random(3), 4 if kind == engine.SHARES else 20  # a new outcome of shares costs ~0.1 s
    for setting in levels.null_settings(kind)[:3]:
        path = levels.paths(setting, cells, rng)
        delta = validation.SHARE_DELTA if kind == engine.SHARES else validation.T_DELTA
        for alpha in (0.05, 0.01, 0.0):
            decided, reproduces = levels.decisions(setting, path, alpha)
            for i, k in ((i, k) for i in range(cells) for k in range(path["p"].shape[1])):
                args = path["d"][i, k], path["p"][i, k], path["p_delta"][i, k], setting.relation, delta
                verdict = engine.classify(*args, alpha)
                assert decided[i, k] == (verdict in engine.DECIDED), (setting, i, k, alpha)
                assert reproduces[i, k] == (verdict == engine.REPRODUCES), (setting, i, k, alpha)


def test_the_schedules_add_seeds_from_their_first_look_up_to_the_cap():
    assert levels.counts(engine.WELCH, "sparse") == [(3, 3), (6, 6), (9, 9), (10, 10)]
    assert levels.counts(engine.SHARES, "sparse") == [(6, 6), (9, 9), (10, 10)]
    finest = levels.counts(engine.WELCH, "finest")
    assert finest[:3] == [(2, 2), (3, 2), (3, 3)] and finest[-1] == (10, 10) and len(finest) == 17
    assert levels.counts(engine.ONE_ARM, "finest") == [(n, 0) for n in range(2, 11)]


def test_a_small_calibration_starts_at_five_percent_and_never_loosens():
    table = levels.calibrate(engine.WELCH, scale=0.02, seed=5)
    assert table.look.tolist() == list(range(1, validation.finest_looks(engine.WELCH, validation.FINEST_FROM) + 1))
    assert table.alpha.iloc[0] == ALPHA and table.alpha.is_monotonic_decreasing
    assert set(table.alpha) <= {*levels.GRID, 0.0}
    later = table[(table.look > 1) & (table.alpha > 0)]
    assert (later.rate_calibrated <= levels.CALIBRATED_TO).all()


def test_the_looks_validated_stop_before_the_first_look_over_the_rate_or_at_level_zero():
    rows = [
        ("Welch", 1, 0.05, 0.02, 0.02),
        ("Welch", 2, 0.05, 0.04, 0.03),
        ("Welch", 3, 0.01, 0.06, 0.04),  # over the rate in the finest schedule
        ("Welch", 4, 0.01, 0.04, float("nan")),
        ("paired", 1, 0.05, 0.03, 0.03),
        ("paired", 2, 0.0, 0.03, 0.03),  # no further look decides
        ("one-arm", 1, 0.05, 0.051, 0.02),
    ]
    table = pd.DataFrame(rows, columns=["kind", "look", "alpha", "rate_finest", "rate_seeds_schedule"])  # no sparse
    assert levels.validated(table) == {"Welch": 2, "paired": 1, "one-arm": 0}
    alphas = levels.schedule(table)
    assert alphas["Welch"] == (0.05, 0.05, 0.01, 0.01) and alphas["paired"] == (0.05, 0.0)
    assert levels.alpha_at(alphas, "Welch", 1) == ALPHA and levels.alpha_at(alphas, "Welch", 3) == 0.01
    assert levels.alpha_at(alphas, "Welch", 5) == 0.0 and levels.alpha_at(alphas, "exact", 4) == ALPHA


@pytest.mark.skipif(not LEVELS.is_file(), reason="results/engine/levels.csv not written yet")
def test_the_committed_levels_start_at_five_percent_and_hold_the_rate_where_validated():
    table = pd.read_csv(LEVELS)
    assert set(table.kind) == set(validation.KINDS) and (table.cells >= 1_000).all()
    for kind, group in table.groupby("kind"):
        assert group.alpha.iloc[0] == ALPHA and group.alpha.is_monotonic_decreasing, kind
        assert len(group) == validation.finest_looks(kind, validation.FINEST_FROM)
    validated = levels.validated(table)
    assert all(n >= 1 for n in validated.values())
    for kind, n in validated.items():
        within = table[(table.kind == kind) & (table.look <= n)]
        assert (within[list(levels.CHECKS)].max(axis=1) <= validation.FALSE_RATE).all()
