"""The p-values behind the claims engine's verdicts, one family of tests per kind of interval, and Holm's
adjustment over a claim's cells.

Each kind of interval (engine.INTERVALS) is a `Spread`: the observed difference d in the paper's
direction and what its 95 % interval rests on. Three tests read it, each p decided at alpha = 0.05
exactly where the 95 % interval the claims table shows decides (so a verdict and its interval agree):
    p_two(b)         H0: d = b, two-sided: p < alpha where the interval excludes b
    p_inside(delta)  H0: |d| >= delta, by two one-sided tests (TOST), each at alpha / 2 and reported
                     doubled, 2 max(P(D > -delta), P(D < delta)) under the nulls: p < alpha where the
                     interval lies inside (-delta, +delta) (Schuirmann 1987; at the 95 % interval it is
                     the conservative TOST at 2.5 % a side)
    p_outside(delta) H0: |d| <= delta, two-sided at the boundary d lies beyond: p < alpha where the
                     interval lies wholly beyond +delta or -delta
For t-intervals (Welch, paired, one-arm) the p-values are Student's t tails at the interval's degrees of
freedom, P(T > |d - b| / se) (claims.student); for a zero-width interval (every seed the same) the exact
test of the complete order the seeds show (engine module doc); for shares, the smallest alpha at which the
(1 - alpha) Newcombe interval of Clopper-Pearson intervals decides (inverted by bisection); for one exact
value with a rounding margin, 0 where the margin decides and 1 where it does not.

Holm (1979): the m p-values of a family sorted, p_(1) <= ... <= p_(m), the adjusted p_(i) is
max_{j <= i} min(1, (m - j + 1) p_(j)); rejecting where it is < alpha keeps the family-wise error <= alpha.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from statistics import NormalDist

from noneuclid.claims.student import upper_tail

ALPHA = 0.05  # every verdict's level: a 95 % interval
BISECTIONS = 34  # halvings of alpha when a share interval is inverted: alpha to within 1e-10


@dataclass(frozen=True)
class Spread:
    """What a cell's difference d (paper's direction) and its interval rest on. kind: 't' (se, df), 'order'
    (every seed the same: the exact order test's p, `order_p`), 'shares' (p_a, n_a, p_b, n_b, sign) or
    'exact' (margin)."""

    kind: str
    d: float
    se: float = math.nan
    df: float = math.nan
    order_p: float = math.nan
    shares: tuple[float, int, float, int, float] = (math.nan, 0, math.nan, 0, 1.0)
    margin: float = math.nan

    def p_two(self, b: float) -> float:
        """H0: d = b, two-sided."""
        gap = self.d - b
        if self.kind == "t":
            return min(1.0, 2 * _tail(abs(gap) / self.se, self.df))
        if self.kind == "order":
            return 1.0 if gap == 0 else self.order_p
        if self.kind == "exact":
            return 0.0 if abs(gap) > self.margin else 1.0
        return _inverted(lambda low, high: low > b or high < b, self.shares)

    def p_inside(self, delta: float) -> float:
        """H0: |d| >= delta (TOST, reported doubled)."""
        if self.kind == "t":
            one = max(_tail((self.d + delta) / self.se, self.df), _tail((delta - self.d) / self.se, self.df))
            return min(1.0, 2 * one)
        if self.kind == "order":
            return self.order_p if abs(self.d) < delta else 1.0
        if self.kind == "exact":
            return 0.0 if abs(self.d) + self.margin < delta else 1.0
        return _inverted(lambda low, high: -delta < low and high < delta, self.shares)

    def p_outside(self, delta: float) -> float:
        """H0: |d| <= delta: the two-sided p at the boundary d lies beyond (1 where |d| <= delta)."""
        if abs(self.d) <= delta:
            return 1.0
        return self.p_two(math.copysign(delta, self.d))


def _tail(t: float, df: float) -> float:
    """P(T > t) for Student's t at df (the normal's at df = inf), any real t."""
    if math.isinf(df):
        return 1 - NormalDist().cdf(t)
    return upper_tail(t, df) if t >= 0 else 1 - upper_tail(-t, df)


def _inverted(decides, shares: tuple[float, int, float, int, float]) -> float:
    """The smallest alpha at which the (1 - alpha) interval of a difference of shares decides (`decides`:
    (low, high) -> bool, monotone: a narrower interval decides where a wider one does); 1 where none does."""
    if not decides(*newcombe(*shares, tail=0.5)):
        return 1.0
    low, high = 0.0, 1.0  # decides at high, not at low
    for _ in range(BISECTIONS):
        mid = (low + high) / 2
        low, high = (low, mid) if decides(*newcombe(*shares, tail=mid / 2)) else (mid, high)
    return high


def binomial_tail(k: int, n: int, p: float, upper: bool) -> float:
    """P(X >= k) (upper) or P(X <= k) for X ~ Binomial(n, p), 0 < p < 1 (terms in logs: no overflow)."""
    log_p, log_q, choose = math.log(p), math.log1p(-p), _log_choose(n)
    ks = range(k, n + 1) if upper else range(0, k + 1)
    return sum(math.exp(choose[i] + i * log_p + (n - i) * log_q) for i in ks)


@functools.cache
def _log_choose(n: int) -> tuple[float, ...]:
    """log C(n, i) for i = 0..n."""
    return tuple(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) for i in range(n + 1))


def clopper_pearson(p: float, n: int, tail: float = 0.025) -> tuple[float, float]:
    """The exact (1 - 2 tail) interval of a share p = k / n: the p_L with P(X >= k) = tail and the p_U with
    P(X <= k) = tail (0 and 1 at k = 0 and k = n), by bisection (each tail is monotone in p)."""
    k = round(p * n)

    def solve(upper: bool) -> float:
        low, high = 0.0, 1.0
        for _ in range(60):
            mid = (low + high) / 2
            low, high = (mid, high) if (binomial_tail(k, n, mid, upper) < tail) == upper else (low, mid)
        return (low + high) / 2

    return (0.0 if k == 0 else solve(True)), (1.0 if k == n else solve(False))


def newcombe(p_a: float, n_a: int, p_b: float, n_b: int, sign: float, tail: float = 0.025) -> tuple[float, float]:
    """The interval of sign (p_a - p_b) from the two shares' Clopper-Pearson intervals at `tail`, squared and
    added (Newcombe 1998, with exact intervals in place of Wilson's)."""
    (l_a, u_a), (l_b, u_b) = clopper_pearson(p_a, n_a, tail), clopper_pearson(p_b, n_b, tail)
    d = p_a - p_b
    low, high = d - math.hypot(p_a - l_a, u_b - p_b), d + math.hypot(u_a - p_a, p_b - l_b)
    return (low, high) if sign > 0 else (-high, -low)


def holm(p_values: list[float]) -> list[float]:
    """Holm's adjusted p-values of one family, in the order given; nan (a cell not judged) stays nan and is
    not counted in the family."""
    order = sorted((p, i) for i, p in enumerate(p_values) if not math.isnan(p))
    adjusted, running = [math.nan] * len(p_values), 0.0
    for rank, (p, i) in enumerate(order):
        running = max(running, min(1.0, (len(order) - rank) * p))
        adjusted[i] = running
    return adjusted
