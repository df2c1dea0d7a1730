"""Mean +- standard error over seeds, the rule that compares two of them and 95 % Student-t intervals (t
and Welch's degrees of freedom from claims.student): the per-seed statistics the reports' tables show
beside the claims engine's verdicts."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from noneuclid.claims.student import t975, welch_df


@dataclass(frozen=True)
class Estimate:
    """mean +- standard error over `count` values (inf when a value is inf: not reached / diverged)."""

    mean: float
    se: float
    count: int

    def __str__(self) -> str:
        return "never" if math.isinf(self.mean) else plus_minus(self.mean, self.se if self.count > 1 else math.nan)


def estimate(values) -> Estimate:
    s = pd.Series(list(values), dtype=float)
    if s.empty:
        return Estimate(math.nan, math.nan, 0)
    if s.map(math.isinf).any():
        return Estimate(math.inf, 0.0, len(s))
    return Estimate(float(s.mean()), float(s.std(ddof=1) / math.sqrt(len(s))) if len(s) > 1 else 0.0, len(s))


def summary(values, prefix: str = "") -> dict[str, float]:
    """n and, each key prefixed, mean, sd, se = sd / sqrt(n) and the 95 % Student-t interval
    ci_low, ci_high = mean -+ t975(n - 1) se of per-seed values (sd, se and the interval NaN below 2 values)."""
    s = pd.Series(values, dtype=float)
    n, mean, se = len(s), s.mean(), s.sem()
    half = t975(n - 1) * se if n > 1 else math.nan
    return {
        "n": n,
        **{
            prefix + k: v
            for k, v in (
                ("mean", mean),
                ("sd", s.std(ddof=1)),
                ("se", se),
                ("ci_low", mean - half),
                ("ci_high", mean + half),
            )
        },
    }


def plus_minus(mean: float, spread: float, n: int | None = None, fmt: str = ".2f") -> str:
    """'m ± spread' ('m' alone where spread is NaN), then ' (n=k)' where n is given."""
    text = f"{mean:{fmt}}" + ("" if math.isnan(spread) else f" ± {spread:{fmt}}")
    return text if n is None else f"{text} (n={n})"


def difference_interval(a: Estimate, b: Estimate) -> tuple[float, float]:
    """mean_a - mean_b +- t975(df) sqrt(se_a^2 + se_b^2), df by Welch-Satterthwaite; nan below 2 values."""
    if min(a.count, b.count) < 2:
        return math.nan, math.nan
    va, vb = a.se**2, b.se**2
    half = t975(max(welch_df(va, a.count, vb, b.count), 1)) * math.sqrt(va + vb)
    return a.mean - b.mean - half, a.mean - b.mean + half


def compare(a: Estimate, b: Estimate, lower_is_better: bool = True) -> str:
    """'better', 'worse' or 'tie' for a against b: a tie when the means differ by no more than
    sqrt(se_a^2 + se_b^2) (two infinities are a tie too)."""
    if math.isinf(a.mean) and math.isinf(b.mean):
        return "tie"
    gap = a.mean - b.mean
    if abs(gap) <= math.hypot(a.se, b.se):
        return "tie"
    return "better" if (gap < 0) == lower_is_better else "worse"
