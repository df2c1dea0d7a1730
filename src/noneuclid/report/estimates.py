"""Mean +- standard error over seeds, and the one rule every report uses to compare two of them: they
differ when their means differ by more than sqrt(se_a^2 + se_b^2), else they are a tie (applied to the
papers' numbers and to ours alike)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd


@dataclass(frozen=True)
class Estimate:
    """mean +- standard error over `count` values (inf when a value is inf: not reached / diverged)."""
    mean: float
    se: float
    count: int

    def __str__(self) -> str:
        if math.isinf(self.mean):
            return "never"
        return f"{self.mean:.2f} ± {self.se:.2f}" if self.count > 1 else f"{self.mean:.2f}"


def estimate(values) -> Estimate:
    s = pd.Series(list(values), dtype=float)
    if s.empty:
        return Estimate(math.nan, math.nan, 0)
    if s.map(math.isinf).any():
        return Estimate(math.inf, 0.0, len(s))
    return Estimate(float(s.mean()), float(s.std(ddof=1) / math.sqrt(len(s))) if len(s) > 1 else 0.0, len(s))


def compare(a: Estimate, b: Estimate, lower_is_better: bool = True) -> str:
    """'better', 'worse' or 'tie' for a against b: a tie when the means differ by no more than
    sqrt(se_a^2 + se_b^2) (two infinities are a tie too)."""
    if math.isinf(a.mean) and math.isinf(b.mean):
        return "tie"
    gap = a.mean - b.mean
    if abs(gap) <= math.hypot(a.se, b.se):
        return "tie"
    return "better" if (gap < 0) == lower_is_better else "worse"
