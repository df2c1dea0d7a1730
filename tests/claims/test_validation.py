"""The claims engine's validation: on simulated cells of known truth, a true difference of 0 reproduces a
superiority claim in at most 5 % of cells (2.5 % expected: the 95 % interval above 0 by chance), and a
true difference of 2 delta is decided at the power the t-test (or, for shares, the exact distribution of
the outcomes) gives; in the committed results/engine/validation.csv and in a fresh small simulation."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pandas as pd
import pytest

from noneuclid.claims import engine, validation

VALIDATION = Path(__file__).resolve().parents[2] / "results" / "engine" / "validation.csv"
stats = pytest.importorskip("scipy.stats")


def _mc(rate: float, cells: int) -> float:
    """Three Monte Carlo standard errors of a rate over `cells` cells."""
    return 3 * math.sqrt(max(rate * (1 - rate), 1e-4) / cells)


def _t_power(kind: str, n: int, difference: float) -> tuple[float, float]:
    """P(the 95 % interval lies above 0) at a true difference in units of a seed's s.d., from the noncentral
    t: exact for paired and one-arm cells (df n - 1); for Welch's, with n seeds each, bracketed by the t-tests
    at n - 1 and 2n - 2 degrees of freedom (its statistic is the pooled one, its df lie between)."""
    if kind != engine.WELCH:
        power = float(stats.nct.sf(stats.t.ppf(0.975, n - 1), n - 1, difference * math.sqrt(n)))
        return power, power
    ncp = difference / math.sqrt(2 / n)
    return tuple(float(stats.nct.sf(stats.t.ppf(0.975, df), df, ncp)) for df in (n - 1, 2 * n - 2))


def _shares_power(relation: str, n: int, difference: float) -> float:
    """The exact probability that a shares cell reproduces: the binomial outcomes weighted by their chance."""
    p_a, p_b = 0.5 + difference / 2, 0.5 - difference / 2
    return sum(
        stats.binom.pmf(k_a, n, p_a) * stats.binom.pmf(k_b, n, p_b)
        for k_a in range(n + 1)
        for k_b in range(n + 1)
        if validation._shares_outcome(relation, n, k_a, n, k_b)[0] == engine.REPRODUCES
    )


def _expected(row) -> tuple[float, float]:
    """The power of a cell's test at its setting (a bracket for Welch's)."""
    if row.kind == engine.SHARES:
        power = _shares_power(row.relation, row.n, row.true_difference)
        return power, power
    return _t_power(row.kind, row.n, row.true_difference)


def _within(rate: float, bracket: tuple[float, float], cells: int) -> bool:
    low, high = bracket
    return low - _mc(rate, cells) <= rate <= high + _mc(rate, cells)


@pytest.mark.skipif(not VALIDATION.is_file(), reason="results/engine/validation.csv not written yet")
def test_the_committed_validation_holds_the_type_one_rate_and_the_power():
    rows = pd.read_csv(VALIDATION)
    single = rows[(rows.family == 1) & (rows.look_up_to == 0)]
    assert (single.groupby("kind").cells.sum() >= 10_000).all() and set(single.kind) == set(validation.KINDS)
    null = single[(single.relation == "better") & (single.difference_in_delta == 0)]
    assert (null.rate_reproduces <= 0.05 + null.apply(lambda r: _mc(0.05, r.cells), axis=1)).all()
    for row in single[(single.relation == "better") & (single.difference_in_delta == 2)].itertuples():
        assert _within(row.rate_reproduces, _expected(row), row.cells), row
    families = rows[rows.family > 1]
    assert (
        len(families)
        and (families.rate_decided_falsely <= 0.05 + families.apply(lambda r: _mc(0.05, r.cells), axis=1)).all()
    )
    assert (single.rate_decided_falsely <= 0.05 + single.apply(lambda r: _mc(0.05, r.cells), axis=1)).all()
    looked = rows[rows.looks > 1]  # k looks, each at 5 %: the union bound, 2.5 % a look per tail
    kinds = validation.LOOKS + validation.MORE_KINDS
    finest = {validation.finest_looks(k, validation.FINEST_FROM) for k, _ in kinds}
    assert set(looked.kind) == {k for k, _ in kinds} and set(looked.looks) == {*validation.MORE_LOOKS, *finest}
    assert (looked.look_up_to == validation.LOOK_UP_TO).all() and (single.looks == 1).all()
    for row in looked.itertuples():  # a false "reproduces" within k x 2.5 %; at a boundary both are false
        setting = validation.Setting(row.kind, row.relation, row.n, row.difference_in_delta)
        bound = 0.025 * row.looks
        if validation.is_false(engine.REPRODUCES, setting):
            assert row.rate_reproduces <= bound + _mc(bound, row.cells), row
        assert row.rate_decided_falsely <= 2 * bound + _mc(2 * bound, row.cells), row


@pytest.mark.parametrize("kind, n", [(engine.WELCH, 3), (engine.PAIRED, 6), (engine.ONE_ARM, 10), (engine.SHARES, 6)])
def test_a_fresh_simulation_agrees_with_theory(kind, n):
    rng, cells = random.Random(1), 1_500
    null = validation.Setting(kind, "better", n, 0.0)
    zero = [validation._one(null, rng) for _ in range(cells)].count(engine.REPRODUCES) / cells
    assert zero <= 0.025 + _mc(0.025, cells)
    strong = validation.Setting(kind, "better", n, 2.0)
    rate = [validation._one(strong, rng) for _ in range(cells)].count(engine.REPRODUCES) / cells
    delta = validation.SHARE_DELTA if kind == engine.SHARES else validation.T_DELTA
    row = pd.Series({"kind": kind, "relation": "better", "n": n, "true_difference": 2.0 * delta})
    assert _within(rate, _expected(row), cells)


def test_equivalence_at_delta_and_non_inferiority_at_minus_delta_reproduce_rarely():
    rng, cells = random.Random(2), 1_500
    for relation, difference in (("on_par", 1.0), ("on_par", -1.0), ("at_least", -1.0)):
        setting = validation.Setting(engine.PAIRED, relation, 10, difference)
        rate = [validation._one(setting, rng) for _ in range(cells)].count(engine.REPRODUCES) / cells
        assert rate <= 0.025 + _mc(0.025, cells), (relation, difference, rate)


def test_further_looks_decide_more_cells_and_stay_within_the_union_bound():
    rng, cells = random.Random(3), 1_000
    null = validation.Setting(engine.WELCH, "better", 3, 0.0)
    once = [validation._one(null, rng) for _ in range(cells)]
    twice = [validation.looked(null, rng) for _ in range(cells)]
    decided = (engine.REPRODUCES, engine.CONTRADICTS)
    assert sum(v in decided for v in twice) > sum(v in decided for v in once)
    assert twice.count(engine.REPRODUCES) / cells <= 0.05 + _mc(0.05, cells)
    thrice = [validation.looked(null, rng, looks=3) for _ in range(cells)]
    assert sum(v in decided for v in thrice) >= sum(v in decided for v in twice)
    assert thrice.count(engine.REPRODUCES) / cells <= 0.075 + _mc(0.075, cells)


@pytest.mark.parametrize(
    "kind, seeds",
    [
        (engine.WELCH, [(3, 3)] + [(n + 1, n + d) for n in range(3, 10) for d in (0, 1)]),  # a seed to a, then b
        (engine.ONE_ARM, [(n, 0) for n in range(3, 11)]),
        (engine.PAIRED, [(n, n) for n in range(3, 11)]),
    ],
)
def test_the_finest_schedule_looks_after_every_seed_up_to_the_cap(monkeypatch, kind, seeds):
    looked = []

    def never_decided(setting, a, b):
        looked.append((len(a), len(b)))
        return 0.0, (engine.INCONCLUSIVE, 1.0, 1.0)

    monkeypatch.setattr(validation, "judged", never_decided)
    validation._finest(validation.Setting(kind, "better", 3, 0.0), random.Random(0))
    assert looked == seeds and len(seeds) == validation.finest_looks(kind, 3)


def test_a_simulated_claim_gives_one_verdict_per_cell_read_at_holms_adjusted_p():
    setting = validation.Setting(engine.WELCH, "better", 3, 0.0)
    verdicts = validation._family(setting, random.Random(0))
    assert len(verdicts) == validation.FAMILY and set(verdicts) <= set(engine.VERDICTS[:4])
