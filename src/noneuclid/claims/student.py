"""The two-sided 95 % quantile of Student's t, t_{0.975, df}, from a table: the one quantile every
interval of the suite uses (the claims engine and the report's estimates)."""

from __future__ import annotations

import math

# t_{0.975, df}: df 1-30, 40, 60, 120, and the normal's
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
        11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110, 18: 2.101, 19: 2.093,
        20: 2.086, 21: 2.080, 22: 2.074, 23: 2.069, 24: 2.064, 25: 2.060, 26: 2.056, 27: 2.052, 28: 2.048,
        29: 2.045, 30: 2.042, 40: 2.021, 60: 2.000, 120: 1.980, math.inf: 1.960}


def t975(df: float) -> float:
    """t_{0.975, df} for any df >= 1 (not only whole numbers): the quantile at the largest tabulated df
    not above it, so the interval is never narrower than the exact one."""
    return T975[max(k for k in T975 if k <= df)]
