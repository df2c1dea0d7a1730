"""One verdict per claim cell, from our per-seed values of its two arms, by rules fixed before looking.

The difference is taken in the paper's direction, d = s (mean_a - mean_b) with s = +1 when higher is
better and -1 when lower is (a one-arm cell uses its bound as mean_b), so d > 0 is what the paper says
of arm a. Its 95 % interval [lo, hi] is d +- t_{0.975,df} se, the t quantile at the exact df, fractional
for Welch's (student.t975); the interval's name is the row's `interval`:
    Welch      se^2 = s_a^2 / n_a + s_b^2 / n_b,
               df = se^4 / ((s_a^2 / n_a)^2 / (n_a - 1) + (s_b^2 / n_b)^2 / (n_b - 1))
    paired     (seeds that share data order and initial weights) se = s_D / sqrt(n), D_i = s (a_i - b_i),
               df = n - 1
    one-arm    likewise with D_i = s (a_i - bound)
The claim holds where d > b, with b = 0 for relation "better" and b = -tolerance for "on_par" (a at
most `tolerance` worse than b is on par). Verdicts:
    reproduces         lo > b        the paper's direction (or on par), beyond the interval
    contradicts        hi < b        the opposite, beyond the interval
    consistent         lo <= b <= hi, d > b (d >= b when on_par): the paper's side, not decided
    inconclusive       lo <= b <= hi, d < b (d <= b when better): the interval too wide to tell
    not testable here  a stated precondition fails (the caller's reason, or `learned` below), or an arm
                       has < 2 seeds
Where the interval contains b, seeds_to_decide is the smallest n per arm whose interval, at the same
difference and per-seed spread, would exclude b (inf when d = b: no number of seeds decides; inf too
beyond MAX_SEEDS).

Zero width: where every seed gives the same value (each arm's, or the same paired difference), se = 0
and the t-interval [d, d] measures no spread. Such a cell is judged instead by the exact test of the
complete order its seeds show, two-sided at the same 95 %: for one arm or paired seeds, the sign test
(every one of n seeds on one side of b: p = 2 / 2^n, decided from 6 seeds); for two arms, the
permutation test (every seed of a on one side of every seed of b: p = 2 / C(n_a + n_b, n_a), decided
from 4 seeds per arm, as for shares). p < 0.05: reproduces or contradicts by the side of d; else
consistent or inconclusive, seeds_to_decide the n per arm from which the same order would decide (inf
where d = b: p = 1). The reason says so (p follows from the seeds counted: n_a, n_b).

Learned (a claim's key `learned`, for claims that compare gains across datasets or dimensions): a cell
is judged only where every model it involves has learned the task. The caller gives each model's
values of `learned.metric` (as the paper selects them: e.g. its best of 3 runs by dev accuracy) and the
paper's value for it; a model whose mean falls more than `within` behind the paper's value (or that has
no values) makes the cell not testable here, the reason naming the model and its value. A gain that moves because one model failed to learn says
nothing about the claim.

Shares (judge_shares: a 0/1 outcome per seed, such as "the run diverged"): d = s (p_a - p_b); its
interval squares and adds the exact (Clopper-Pearson) 95 % intervals [l, u] of each share, as
Newcombe's interval does with Wilson's: lo = d - sqrt((p_a - l_a)^2 + (u_b - p_b)^2),
hi = d + sqrt((u_a - p_a)^2 + (p_b - l_b)^2) (for s = +1; mirrored for s = -1). A t-interval would have
no width when no seed varies; this one is conservative at few seeds (every seed of one arm against
none of the other is decided from 4 seeds per arm, as Fisher's exact test). Same verdicts;
seeds_to_decide at the same two shares, inf beyond SHARES_MAX_SEEDS.

One exact value (judge_exact: a fixed artifact measured once, such as the authors' stored network, with
no seed to vary) against a one-arm cell's bound: d = s (value - bound) with the interval [d - m, d + m],
m >= 0 the caller's bound on the rounding of the value (for max |Y^T Y - I| of float32 weights that
could have been evaluated in float32: gamma_N = N u / (1 - N u), u = 2^-24, the rounding bound of an
inner product of length N). It contradicts when the value lies on the wrong side of the bound by more
than that rounding. Same verdicts; seeds_to_decide nan (no seeds to add).
"""

from __future__ import annotations

import itertools
import math
import statistics
from dataclasses import dataclass
from typing import Mapping, Sequence

from noneuclid.claims.data import ON_PAR, Cell, Claim
from noneuclid.claims.student import t975, welch_df

VERDICTS = REPRODUCES, CONSISTENT, INCONCLUSIVE, CONTRADICTS, NOT_TESTABLE = (
    "reproduces", "consistent", "inconclusive", "contradicts", "not testable here")
INTERVALS = WELCH, PAIRED, ONE_ARM, SHARES, EXACT = (
    "Welch", "paired", "one-arm", "shares", "exact")  # Verdict.interval
ZERO_WIDTH = ("zero-width interval (every {}): judged by the exact {} test", {
    WELCH: ("seed of {a} gives the same value, and every seed of {b}", "permutation"),
    PAIRED: ("pair of seeds gives the same difference", "sign"),
    ONE_ARM: ("seed gives the same value", "sign")})  # the reason, by interval; its p: _order_p
ALPHA = 0.05  # a 95 % interval excludes b where the test of d = b gives p < ALPHA
MAX_SEEDS = 100_000  # seeds_to_decide beyond this is reported as inf
SHARES_MAX_SEEDS = 1_000  # the same for shares (judge_shares): a difference of two shares of a few seeds
#                           is at least 1 / (n_a n_b), decided well before


@dataclass(frozen=True)
class Verdict:
    """One row of the claims table: a cell's numbers and its verdict (nan where there is no number)."""
    claim: str
    cell: str
    source: str
    metric: str
    unit: str
    arm_a: str
    arm_b: str
    relation: str
    boundary: float
    paired: bool
    interval: str  # INTERVALS, '' where not testable
    n_a: int
    n_b: int
    mean_a: float
    mean_b: float
    difference: float
    ci_low: float
    ci_high: float
    verdict: str
    seeds_to_decide: float
    reason: str
    paper_a: float
    paper_se_a: float
    paper_b: float
    paper_se_b: float
    paper: str  # every number of the cell's paper entry, for display (M2 and the like have no arm)
    paper_source: str
    level: float = math.nan  # the level the metric is counted at (M1's accuracy %, Fig. 4's perplexity), if any
    label: str = ""  # the metric as the claims table shows it, with its level ('' : the metric's name)


def judge(claim: Claim, cell: Cell, a: Sequence[float], b: Sequence[float] = (), paired: bool = False,
          models: Mapping[str, tuple[Sequence[float], float]] | None = None) -> Verdict:
    """The verdict of one cell from the per-seed values of arm a and arm b (of a alone for a one-arm
    cell); paired: a[i] and b[i] come from the same seed; models: for a claim with `learned`, each model
    the cell involves -> (its per-seed values, the paper's value) (see the module doc)."""
    where = f"claim {claim.id!r}, cell {cell.name!r}"
    if len(cell.arms) == 1 and (len(b) or paired):
        raise ValueError(f"{where}: a one-arm cell takes the values of arm {cell.arms[0]} alone, unpaired")
    a, b = _values(a, where, cell.arms[0]), _values(b, where, cell.arms[-1])
    if paired and len(a) != len(b):
        raise ValueError(f"{where}: paired arms need as many values each, not {len(a)} and {len(b)}")
    why = _not_learned(claim, models, where) or _few(cell, a, b)
    if why:
        return untestable(claim, cell, why, len(a), len(b))
    sign = 1.0 if claim.better == "higher" else -1.0
    mean_a, mean_b = statistics.fmean(a), statistics.fmean(b) if b else cell.bound
    interval = PAIRED if paired else WELCH if b else ONE_ARM
    if interval == WELCH:
        spread = (statistics.stdev(a), statistics.stdev(b))
        half = _welch_half(spread[0], len(a), spread[1], len(b))
    else:
        spread = statistics.stdev([sign * (x - y) for x, y in zip(a, b or [cell.bound] * len(a))])
        half = _paired_half(spread, len(a))
    d = sign * (mean_a - mean_b) + 0.0  # + 0.0: no -0.0
    boundary = -cell.tolerance if cell.relation == ON_PAR else 0.0
    verdict = classify(d, d - half, d + half, boundary, cell.relation)
    seeds, reason = math.nan, ""
    if half == 0:
        verdict, seeds, reason = _zero_width(d, boundary, cell, interval, len(a), len(b))
    elif verdict in (CONSISTENT, INCONCLUSIVE):
        seeds = seeds_to_decide(d - boundary, spread, min(len(a), len(b) or len(a)))
    return _row(claim, cell, interval, len(a), len(b), mean_a, mean_b, d, d - half, d + half, verdict, seeds, reason)


def judged(claim: Claim, cell: Cell, arms: Sequence[Sequence[float] | str], reason: str = "", shares: bool = False,
           models: Mapping[str, tuple[Sequence[float], float]] | None = None) -> Verdict:
    """judge (judge_shares where `shares`) of the arms' per-seed values, or 'not testable here' (with the
    arms' seed counts) where a reason is given: an arm given as text is why it has no values (such texts
    joined by '; '), else `reason` where it is non-empty."""
    why = "; ".join(a for a in arms if isinstance(a, str)) or reason
    if why:
        return untestable(claim, cell, why, *(0 if isinstance(a, str) else len(a) for a in arms))
    if shares:
        return judge_shares(claim, cell, *arms, models=models)
    return judge(claim, cell, *arms, models=models)


def judge_shares(claim: Claim, cell: Cell, a: Sequence[float], b: Sequence[float],
                 models: Mapping[str, tuple[Sequence[float], float]] | None = None) -> Verdict:
    """The verdict of a two-arm cell whose per-seed values are 0 or 1, by the interval of the difference
    of the two shares; models as for judge (see the module doc)."""
    where = f"claim {claim.id!r}, cell {cell.name!r}"
    a, b = _values(a, where, cell.arms[0]), _values(b, where, cell.arms[1])
    if any(v not in (0.0, 1.0) for v in a + b):
        raise ValueError(f"{where}: judge_shares takes 0/1 values per seed")
    why = _not_learned(claim, models, where) or _few(cell, a, b)
    if why:
        return untestable(claim, cell, why, len(a), len(b))
    p_a, p_b = statistics.fmean(a), statistics.fmean(b)
    sign = 1.0 if claim.better == "higher" else -1.0
    d = sign * (p_a - p_b) + 0.0
    low, high = _newcombe(p_a, len(a), p_b, len(b), sign)
    boundary = -cell.tolerance if cell.relation == ON_PAR else 0.0
    verdict = classify(d, low, high, boundary, cell.relation)
    seeds = math.nan
    if verdict in (CONSISTENT, INCONCLUSIVE):
        seeds = _shares_seeds(p_a, p_b, sign, boundary, min(len(a), len(b)))
    return _row(claim, cell, SHARES, len(a), len(b), p_a, p_b, d, low, high, verdict, seeds, "")


def _zero_width(d: float, boundary: float, cell: Cell, interval: str, n_a: int, n_b: int) -> tuple[str, float, str]:
    """The verdict, seeds_to_decide and reason of a cell whose every seed gives the same value, by the exact
    test of the order they show (module doc)."""
    p = 1.0 if d == boundary else _order_p(interval, n_a, n_b)
    decided = p < ALPHA
    verdict = classify(d, d if decided else -math.inf, d if decided else math.inf, boundary, cell.relation)
    if d == boundary or decided:
        seeds = math.inf if d == boundary else math.nan
    else:
        seeds = float(next(n for n in itertools.count(min(n_a, n_b or n_a)) if _order_p(interval, n, n) < ALPHA))
    text, (same, test) = ZERO_WIDTH[0], ZERO_WIDTH[1][interval]
    return verdict, seeds, text.format(same.format(a=cell.arms[0], b=cell.arms[-1]), test)


def _order_p(interval: str, n_a: int, n_b: int) -> float:
    """The two-sided p of the exact test of a complete order: sign test of n_a seeds (paired, one-arm), or
    permutation test of n_a seeds against n_b (Welch)."""
    return 2 / math.comb(n_a + n_b, n_a) if interval == WELCH else 2 / 2 ** n_a


def _not_learned(claim: Claim, models: Mapping[str, tuple[Sequence[float], float]] | None, where: str) -> str:
    """Why a cell of a claim with `learned` is not testable here ('' where every model learned, or the
    claim has no such precondition): each model whose mean over seeds falls more than `within` behind the
    paper's value for it, or that has no values, by name (their numbers: the report's table of the models)."""
    rule = claim.learned
    if rule is None:
        if models:
            raise ValueError(f"{where}: models given, but the claim has no key 'learned' to hold them to")
        return ""
    if not models:
        raise ValueError(f"{where}: the claim is judged only where every model learned (its key "
                         f"'learned'): pass each model's per-seed values and the paper's value for it")
    sign = 1.0 if rule.better == "higher" else -1.0
    failed = []
    for name, (values, paper) in models.items():
        values = _values(values, where, name)
        if not values or sign * (statistics.fmean(values) - paper) < -rule.within:
            failed.append(name if values else f"{name} (no runs)")
    if not failed:
        return ""
    return (f"not every model learned the task ({rule.metric}: the mean over seeds more than the claim's "
            f"learned.within {'under' if sign > 0 else 'over'} the paper's): " + "; ".join(failed))


def _few(cell: Cell, a: list[float], b: list[float]) -> str:
    """Why a cell has no interval ('' where it has one): an arm with fewer than 2 seeds."""
    few = [arm for arm, v in zip(cell.arms, (a, b)) if len(v) < 2]
    return f"fewer than 2 seeds of {', '.join(few)}: no interval" if few else ""


def _binomial_tail(k: int, n: int, p: float, upper: bool) -> float:
    """P(X >= k) (upper) or P(X <= k) for X ~ Binomial(n, p), 0 < p < 1 (terms in logs: no overflow)."""
    ks = range(k, n + 1) if upper else range(0, k + 1)
    log_p, log_q, log_n = math.log(p), math.log1p(-p), math.lgamma(n + 1)
    return sum(math.exp(log_n - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * log_p + (n - i) * log_q) for i in ks)


def _clopper_pearson(p: float, n: int) -> tuple[float, float]:
    """The exact 95 % interval of a share p = k / n: the p_L with P(X >= k) = 0.025 and the p_U with
    P(X <= k) = 0.025 (0 and 1 at k = 0 and k = n), by bisection (each tail is monotone in p)."""
    k = round(p * n)

    def solve(upper: bool) -> float:
        low, high = 0.0, 1.0
        for _ in range(60):
            mid = (low + high) / 2
            tail = _binomial_tail(k, n, mid, upper)
            low, high = (mid, high) if (tail < 0.025) == upper else (low, mid)
        return (low + high) / 2

    return (0.0 if k == 0 else solve(True)), (1.0 if k == n else solve(False))


def _newcombe(p_a: float, n_a: int, p_b: float, n_b: int, sign: float) -> tuple[float, float]:
    """The 95 % interval of sign (p_a - p_b) (module doc)."""
    (l_a, u_a), (l_b, u_b) = _clopper_pearson(p_a, n_a), _clopper_pearson(p_b, n_b)
    d = p_a - p_b
    low, high = d - math.hypot(p_a - l_a, u_b - p_b), d + math.hypot(u_a - p_a, p_b - l_b)
    return (low, high) if sign > 0 else (-high, -low)


def _shares_seeds(p_a: float, p_b: float, sign: float, boundary: float, at_least: int) -> float:
    """The smallest n >= at_least per arm at which the interval at the shares p_a, p_b excludes
    the boundary; inf when the shares give d = boundary or more than MAX_SEEDS would be needed."""
    def decided(n: int) -> bool:
        low, high = _newcombe(p_a, n, p_b, n, sign)
        return low > boundary or high < boundary

    low, high = max(at_least, 2), SHARES_MAX_SEEDS
    if sign * (p_a - p_b) == boundary or not decided(high):
        return math.inf
    if decided(low):
        return float(low)
    while high - low > 1:  # not decided at low, decided at high
        mid = (low + high) // 2
        low, high = (low, mid) if decided(mid) else (mid, high)
    return float(high)


def untestable(claim: Claim, cell: Cell, reason: str, n_a: int = 0, n_b: int = 0) -> Verdict:
    """'not testable here' for one cell, with the reason (the precondition that fails)."""
    if not reason:
        raise ValueError(f"claim {claim.id!r}, cell {cell.name!r}: 'not testable here' needs a reason")
    nan = math.nan
    return _row(claim, cell, "", n_a, n_b, nan, nan, nan, nan, nan, NOT_TESTABLE, nan, reason)


def classify(d: float, low: float, high: float, boundary: float, relation: str) -> str:
    """The verdict of a difference d in the paper's direction with 95 % interval [low, high] against the
    boundary b (0, or -tolerance when on par): see the module doc."""
    if low > boundary:
        return REPRODUCES
    if high < boundary:
        return CONTRADICTS
    return CONSISTENT if d > boundary or (relation == ON_PAR and d == boundary) else INCONCLUSIVE


def seeds_to_decide(gap: float, spread: float | tuple[float, float], at_least: int = 2) -> float:
    """The smallest n >= at_least (>= 2) per arm at which the interval half-width falls below |gap|, the
    distance of the observed difference from the boundary: t_{0.975,n-1} s_D / sqrt(n) for paired or
    one-arm values (spread = s_D), Welch's with n in each arm for two (spread = (s_a, s_b)). inf when
    gap = 0 or more than MAX_SEEDS would be needed. The half-width falls as n grows, so bisection finds it."""
    def half(n: int) -> float:
        return _paired_half(spread, n) if isinstance(spread, float) else _welch_half(spread[0], n, spread[1], n)

    low, high = max(at_least, 2), MAX_SEEDS
    if gap == 0 or half(high) >= abs(gap):
        return math.inf
    if half(low) < abs(gap):
        return float(low)
    while high - low > 1:  # half(low) >= |gap| > half(high)
        mid = (low + high) // 2
        low, high = (mid, high) if half(mid) >= abs(gap) else (low, mid)
    return float(high)


def _paired_half(spread: float, n: int) -> float:
    """t_{0.975, n-1} s / sqrt(n)."""
    return t975(n - 1) * spread / math.sqrt(n)


def _welch_half(s_a: float, n_a: int, s_b: float, n_b: int) -> float:
    """Welch's half-width t_{0.975, df} sqrt(s_a^2/n_a + s_b^2/n_b), df by Welch-Satterthwaite."""
    va, vb = s_a ** 2 / n_a, s_b ** 2 / n_b
    return t975(welch_df(va, n_a, vb, n_b)) * math.sqrt(va + vb)


def _values(values: Sequence[float], where: str, arm: str) -> list[float]:
    out = [float(v) for v in values]
    bad = [v for v in out if not math.isfinite(v)]
    if bad:
        raise ValueError(f"{where}: {len(bad)} of the {len(out)} values of {arm} are "
                         f"not finite ({bad[0]}); a run that never reached the metric's level or diverged makes "
                         f"the cell 'not testable here' (engine.untestable with the reason), or needs another metric")
    return out


def _row(claim: Claim, cell: Cell, interval: str, n_a: int, n_b: int, mean_a: float, mean_b: float, d: float,
         low: float, high: float, verdict: str, seeds: float, reason: str) -> Verdict:
    arm_b = cell.arms[1] if len(cell.arms) == 2 else f"bound {cell.bound:g}"
    paper = ", ".join(f"{k} {v:g}" + (f" ± {cell.paper_se[k]:g}" if k in cell.paper_se else "")
                      for k, v in cell.paper.items())
    return Verdict(claim.id, cell.name, claim.source, claim.metric, claim.unit, cell.arms[0], arm_b, cell.relation,
                   -cell.tolerance if cell.relation == ON_PAR else 0.0, interval == PAIRED, interval, n_a, n_b, mean_a,
                   mean_b, d, low, high, verdict, seeds, reason, *_paper(cell, cell.arms[0]), *_paper(cell, arm_b),
                   paper, cell.paper_source)


def _paper(cell: Cell, arm: str) -> tuple[float, float]:
    """The paper's number for an arm and its standard error (nan where the paper gives none)."""
    return cell.paper.get(arm, math.nan), cell.paper_se.get(arm, math.nan)


def judge_exact(claim: Claim, cell: Cell, value: float, margin: float) -> Verdict:
    """The verdict of a one-arm cell from one exact value of a fixed artifact, its interval the value's
    rounding `margin` (module doc)."""
    where = f"claim {claim.id!r}, cell {cell.name!r}"
    if len(cell.arms) != 1:
        raise ValueError(f"{where}: judge_exact takes a one-arm cell with a bound")
    (value,) = _values([value], where, cell.arms[0])
    if not margin >= 0:
        raise ValueError(f"{where}: the rounding margin must be >= 0, not {margin}")
    sign = 1.0 if claim.better == "higher" else -1.0
    d = sign * (value - cell.bound) + 0.0
    boundary = -cell.tolerance if cell.relation == ON_PAR else 0.0
    verdict = classify(d, d - margin, d + margin, boundary, cell.relation)
    return _row(claim, cell, EXACT, 1, 0, value, cell.bound, d, d - margin, d + margin, verdict, math.nan, "")
