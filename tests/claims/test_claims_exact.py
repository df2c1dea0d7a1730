"""One exact value of a fixed artifact against a bound (engine.judge_exact): its interval is the value's
rounding margin, and it contradicts only beyond that margin."""

from __future__ import annotations

import math

import pytest

from noneuclid.claims import engine
from noneuclid.claims.data import Cell, Claim


def _claim(arms=("a",), bound: float | None = 1.0) -> Claim:
    cell = Cell("cell", tuple(arms), "better", 1e-9, {}, {}, "", bound, "ours" if bound is not None else "", "")
    return Claim("c", "paper", "a stays below the bound", "Sec. 4", "error", "abs", "lower", "ours", "", "", (cell,))


@pytest.mark.parametrize(
    "value, verdict",
    [(0.5, engine.REPRODUCES), (1.5, engine.CONTRADICTS), (0.95, engine.CONSISTENT), (1.05, engine.INCONCLUSIVE)],
)
def test_an_exact_value_is_decided_beyond_its_rounding_margin(value, verdict):
    claim = _claim()
    v = engine.judge_exact(claim, claim.cells[0], value, margin=0.1)
    assert v.verdict == verdict and v.n_a == 1 and v.n_b == 0 and math.isnan(v.seeds_to_decide)
    assert v.difference == pytest.approx(1.0 - value)  # lower is better: d = bound - value
    assert (v.ci_low, v.ci_high) == pytest.approx((1.0 - value - 0.1, 1.0 - value + 0.1))


def test_an_exact_value_needs_a_one_arm_cell_a_finite_value_and_a_margin():
    two = _claim(arms=("a", "b"), bound=None)
    with pytest.raises(ValueError, match="one-arm"):
        engine.judge_exact(two, two.cells[0], 0.5, 0.1)
    one = _claim()
    with pytest.raises(ValueError, match="not finite"):
        engine.judge_exact(one, one.cells[0], math.nan, 0.1)
    with pytest.raises(ValueError, match="margin"):
        engine.judge_exact(one, one.cells[0], 0.5, -1.0)
