"""The upper quantiles of Student's t at any real df > 0 (Welch's degrees of freedom are fractional):
t_{0.975, df}, the one every interval of the suite uses (the claims engine and the report's estimates), and
t_{1 - tail, df} at any tail (the engine's seeds to decide at a claim's adjusted level). Pure Python;
relative error under 1e-14 up to df = 1,000 and 1e-9 up to 1e7 (lgamma's rounding at large df):

    upper tail   P(T > t) = I_x(df/2, 1/2) / 2 with x = df / (df + t^2), I the regularized incomplete
                 beta function, from its continued fraction (modified Lentz, as Numerical Recipes' betai)
    quantile     the root of P(T > t) = tail by Newton's method from the normal quantile: the tail is
                 convex and decreasing for t > 0 and the root lies above the normal's, so the steps rise
                 to it and never overshoot
    df = inf     the normal's quantile
"""

from __future__ import annotations

import math
from statistics import NormalDist

TAIL = 0.025  # the upper tail of a two-sided 95 % interval
NORMAL975 = NormalDist().inv_cdf(1 - TAIL)
STEPS = 10_000  # a continued fraction or a Newton iteration not converged by then is an error
EPS = 1e-15


def t975(df: float) -> float:
    """t_{0.975, df} for any real df > 0 (module doc)."""
    return t_quantile(df, TAIL)


def t_quantile(df: float, tail: float) -> float:
    """t_{1 - tail, df}, the t with P(T > t) = tail, for any real df > 0 and 0 < tail < 1/2 (module doc)."""
    if not df > 0:
        raise ValueError(f"Student's t needs degrees of freedom > 0, not {df}")
    if not 0 < tail < 0.5:
        raise ValueError(f"an upper quantile of Student's t needs 0 < tail < 1/2, not {tail}")
    t = NormalDist().inv_cdf(1 - tail)
    if math.isinf(df):
        return t
    for _ in range(STEPS):
        step = (upper_tail(t, df) - tail) / density(t, df)
        t += step
        if step <= EPS * t:
            return t
    raise ArithmeticError(f"t_{{1 - {tail:g}}} at df = {df}: Newton's method did not converge")


def welch_df(var_a: float, n_a: int, var_b: float, n_b: int) -> float:
    """Welch-Satterthwaite's degrees of freedom of a difference of two means, var_a and var_b the
    variances of the means (s^2 / n): (var_a + var_b)^2 / (var_a^2 / (n_a - 1) + var_b^2 / (n_b - 1)),
    inf where both are 0."""
    return (var_a + var_b) ** 2 / (var_a**2 / (n_a - 1) + var_b**2 / (n_b - 1)) if var_a + var_b > 0 else math.inf


def upper_tail(t: float, df: float) -> float:
    """P(T > t) for t >= 0."""
    x, y = df / (df + t * t), t * t / (df + t * t)  # y = 1 - x, without the cancellation
    return incomplete_beta(df / 2, 0.5, x, y) / 2


def density(t: float, df: float) -> float:
    """The density of Student's t at t."""
    log_norm = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    return math.exp(log_norm - (df + 1) / 2 * math.log1p(t * t / df))


def incomplete_beta(a: float, b: float, x: float, y: float) -> float:
    """I_x(a, b), with y = 1 - x given separately; the continued fraction where it converges fast, else
    1 - I_y(b, a)."""
    if x <= 0 or y <= 0:
        return 0.0 if x <= 0 else 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(y))
    if x < (a + 1) / (a + b + 2):
        return front * _fraction(a, b, x) / a
    return 1 - front * _fraction(b, a, y) / b


def _fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of I_x(a, b) (modified Lentz)."""
    tiny = 1e-300

    def guard(v: float) -> float:
        return v if abs(v) > tiny else tiny

    c, d = 1.0, 1 / guard(1 - (a + b) * x / (a + 1))
    h = d
    for m in range(1, STEPS):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d, c = 1 / guard(1 + numerator * d), guard(1 + numerator / c)
            h *= d * c
        if abs(d * c - 1) < EPS:
            return h
    raise ArithmeticError(f"the incomplete beta fraction at a = {a}, b = {b}, x = {x} did not converge")
