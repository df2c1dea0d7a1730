"""Student's t quantile at real degrees of freedom, against closed forms, the normal limit, an independent
integration of the density at fractional df, and scipy where it is installed."""

from __future__ import annotations

import math

import pytest

from noneuclid.claims.student import NORMAL975, t975, t_quantile

P = 0.975


def _closed_form(df: int) -> float:
    """t_{P, df} for df = 1, 2, 4 in closed form (the inverse of the t distribution's CDF)."""
    if df == 1:
        return math.tan(math.pi * (P - 0.5))
    if df == 2:
        return (2 * P - 1) / math.sqrt(2 * P * (1 - P))
    alpha = 4 * P * (1 - P)  # df = 4
    q = math.cos(math.acos(math.sqrt(alpha)) / 3) / math.sqrt(alpha)
    return 2 * math.sqrt(q - 1)


def _central_mass(t: float, df: float, steps: int = 20_000) -> float:
    """P(-t < T < t) by Simpson's rule on the density written out here (math.gamma, not the module's)."""
    norm = math.gamma((df + 1) / 2) / (math.sqrt(df * math.pi) * math.gamma(df / 2))
    h = t / steps
    f = [norm * (1 + (i * h) ** 2 / df) ** (-(df + 1) / 2) for i in range(steps + 1)]
    return 2 * h / 3 * (f[0] + f[-1] + 4 * sum(f[1:-1:2]) + 2 * sum(f[2:-1:2]))


@pytest.mark.parametrize("df", [1, 2, 4])
def test_closed_forms(df):
    assert t975(df) == pytest.approx(_closed_form(df), rel=1e-13)


@pytest.mark.parametrize("df", [1.07, 1.5, 2.37, 3.9, 7.25, 19.6])
def test_fractional_df_leaves_two_and_a_half_percent_in_each_tail(df):
    assert _central_mass(t975(df), df) == pytest.approx(0.95, abs=1e-10)
    assert t975(math.floor(df)) > t975(df) > t975(math.floor(df) + 1)  # between its whole neighbours


def test_the_normal_limit_and_the_table_of_textbooks():
    assert NORMAL975 == pytest.approx(1.959963984540054, rel=1e-15) and t975(math.inf) == NORMAL975
    assert t975(1e6) == pytest.approx(NORMAL975 * (1 + (NORMAL975**2 + 1) / 4e6), rel=1e-9)  # Cornish-Fisher
    table = {3: 3.182, 5: 2.571, 10: 2.228, 30: 2.042, 120: 1.980}
    assert all(round(t975(df), 3) == v for df, v in table.items())
    with pytest.raises(ValueError, match="> 0"):
        t975(0)


def test_agrees_with_scipy():
    stats = pytest.importorskip("scipy.stats")
    for df in (0.5, 1, 1.0001, 1.3, 2.5, 4.7, 17.3, 100, 1e4, 2e5):
        assert t975(df) == pytest.approx(stats.t.ppf(P, df), rel=1e-10)


def test_other_tails_agree_with_scipy():
    stats = pytest.importorskip("scipy.stats")
    for tail in (0.4, 0.05, 0.025 / 8, 1e-5):
        for df in (1, 2.5, 9, 100, 1e4):
            assert t_quantile(df, tail) == pytest.approx(stats.t.ppf(1 - tail, df), rel=1e-9)
    assert t_quantile(7, 0.025) == t975(7)
    with pytest.raises(ValueError, match="tail"):
        t_quantile(3, 0.5)
