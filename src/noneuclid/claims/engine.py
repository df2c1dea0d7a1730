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
The relation is the paper's (claims/data.py): better (superiority), at_least (non-inferiority down to
-delta) or on_par (equivalence within +-delta), delta the claim's smallest effect of interest. The tests
(claims.significance) read the same interval, each decided at 5 % exactly where that 95 % interval decides:
    better     reproduces    the interval lies above 0 (the reason adds "smaller than delta" where it
                             lies below +delta too)
               contradicts   it lies below 0; or it lies inside (-delta, +delta) (two one-sided tests:
                             no effect as large as delta; the reason says so)
    at_least   reproduces    it lies above -delta; contradicts: below -delta
    on_par     reproduces    it lies inside (-delta, +delta) (two one-sided tests); contradicts: it lies
                             wholly beyond +delta or -delta
    otherwise  consistent (d on the claim's side: d > 0, d >= -delta, |d| <= delta) or inconclusive
    not testable here  a stated precondition fails (the caller's reason, or `learned` below), or an arm
                       has < 2 seeds
Each row keeps the p-value of its claim's test (p_value: H0 d = 0, d = -delta, or |d| >= delta for
on_par) and of the test against delta (p_delta: |d| >= delta for better, |d| <= delta for on_par, nan for
at_least). `adjusted` adjusts each over the claim's judged cells by Holm's method and reads the verdict at
the adjusted level (the per-cell verdict kept as verdict_unadjusted): a claim of many cells decides no
more often by chance than one of one cell. That level is the row's `alpha`: 5 % at a cell's first look,
the stricter level of its look where seeds were added after earlier looks (claims/levels.py, set by
claims/plan.py `looked`), so that its looks together decide falsely no more often than one.
Where the cell is not decided, seeds_to_decide is the smallest n per arm whose interval, at the same
difference and per-seed spread, would decide it by either test (inf when no number of seeds would: d = 0
with no delta to reach, or beyond MAX_SEEDS). After `adjusted` it is read at the claim's level: the n at
which the cell's own p would fall below alpha / m, alpha the next look's level (alpha_next), m the claim's
judged cells (Bonferroni's level, Holm's strictest step: a cell there is decided whatever the claim's other
cells show), the (1 - alpha / m) interval in place of the 95 % one; a cell decided at its own level but not at
the adjusted one gets one too.

Zero width: where every seed gives the same value (each arm's, or the same paired difference), se = 0
and the t-interval [d, d] measures no spread. Such a cell is judged instead by the exact test of the
complete order its seeds show, two-sided at the same 5 %: for one arm or paired seeds, the sign test
(every one of n seeds on one side of a boundary: p = 2 / 2^n, decided from 6 seeds); for two arms, the
permutation test (every seed of a on one side of every seed of b: p = 2 / C(n_a + n_b, n_a), decided
from 4 seeds per arm, as for shares). That p decides each test whose boundary the seeds lie strictly on
one side of (1 where d is on it); seeds_to_decide is the n per arm from which the same order would
decide. The reason says so.

Learned (a claim's key `learned`, for claims that compare gains across datasets or dimensions): a cell
is judged only where every model it involves has learned the task. The caller gives each model's
values of `learned.metric` (as the paper selects them: e.g. its best of 3 runs by dev accuracy) and the
paper's value for it; a model whose mean falls more than `within` behind the paper's value (or that has
no values) makes the cell not testable here, the reason naming the model and its value. A gain that moves
because one model failed to learn says nothing about the claim.

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

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from noneuclid.claims.data import AT_LEAST, BETTER_RELATION, ON_PAR, Cell, Claim
from noneuclid.claims.significance import ALPHA, Spread, holm, newcombe
from noneuclid.claims.student import t975, t_quantile, welch_df

VERDICTS = REPRODUCES, CONSISTENT, INCONCLUSIVE, CONTRADICTS, NOT_TESTABLE = (
    "reproduces",
    "consistent",
    "inconclusive",
    "contradicts",
    "not testable here",
)
DECIDED = (REPRODUCES, CONTRADICTS)  # a cell's verdict is a decision (the share the README counts)
INTERVALS = WELCH, PAIRED, ONE_ARM, SHARES, EXACT = (
    "Welch",
    "paired",
    "one-arm",
    "shares",
    "exact",
)  # Verdict.interval
ZERO_WIDTH = (
    "zero-width interval (every {}): judged by the exact {} test",
    {
        WELCH: ("seed of {a} gives the same value, and every seed of {b}", "permutation"),
        PAIRED: ("pair of seeds gives the same difference", "sign"),
        ONE_ARM: ("seed gives the same value", "sign"),
    },
)  # the reason, by interval; its p: _order_p
# The reason's words where delta decides (its number is the row's delta; the paper's, its paper_a, paper_b):
WITHIN_DELTA = "no effect as large as delta: the interval lies inside plus or minus delta"  # better, contradicted
BELOW_DELTA = "smaller than delta"  # better, reproduced by an effect below its smallest of interest
MAX_SEEDS = 100_000  # seeds_to_decide beyond this is reported as inf
SHARES_MAX_SEEDS = 1_000  # the same for shares (judge_shares): a difference of two shares of a few seeds
#                           is at least 1 / (n_a n_b), decided well before


@dataclass(frozen=True)
class Basis:
    """What a cell's seeds_to_decide rests on: the cell, its kind of interval (INTERVALS), the difference d,
    the per-seed spread (s_D, (s_a, s_b) for Welch, (p_a, p_b, sign) for shares) and the seeds it has per
    arm (the fewer of its two arms'); with zero width, d and the interval alone (the exact order test)."""

    cell: Cell
    interval: str
    d: float
    spread: float | tuple[float, ...]
    n: int
    zero_width: bool = False

    def seeds(self, alpha: float = ALPHA, up_to: int | None = None) -> float:
        """The smallest n >= self.n per arm that would decide the cell at level alpha (module doc); inf
        beyond up_to (MAX_SEEDS, SHARES_MAX_SEEDS for shares)."""
        if self.zero_width:
            return _order_seeds(self.cell, self.d, self.interval, self.n, alpha, up_to or MAX_SEEDS)
        if self.interval == SHARES:
            return _shares_seeds(self.cell, self.spread, self.n, alpha, up_to or SHARES_MAX_SEEDS)
        return _t_seeds(self.cell, self.d, self.spread, self.n, alpha, up_to or MAX_SEEDS)


@dataclass(frozen=True)
class Verdict:
    """One row of the claims table: a cell's numbers and its verdict (nan where there is no number)."""

    claim: str
    kind: str
    cell: str
    source: str
    metric: str
    unit: str
    arm_a: str
    arm_b: str
    relation: str
    delta: float
    paired: bool
    interval: str  # INTERVALS, '' where not testable
    n_a: int
    n_b: int
    mean_a: float
    mean_b: float
    difference: float
    ci_low: float
    ci_high: float
    p_value: float  # the claim's test (module doc)
    p_delta: float  # the test against delta (module doc)
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
    p_adjusted: float = math.nan  # p_value, Holm-adjusted over the claim's judged cells (`adjusted`)
    p_delta_adjusted: float = math.nan
    verdict_unadjusted: str = ""  # the verdict at the cell's own p-values ('' until `adjusted`)
    runs: tuple[str, ...] = ()  # the runs whose values the cell reads (by name), for its provenance
    rule_commit: str = ""  # provenance (report.provenance): the commit that registered the claim's rule,
    rule_registered: str = ""  # its date (claims/registered.csv),
    runs_until: str = ""  # the date of the newest commit the cell's runs trained from,
    rule_after_runs: bool = False  # rule_registered after runs_until,
    cpu_hours: float = math.nan  # the runs' training hours (train_seconds / 3600),
    hardware: str = ""  # and the machines they trained on
    looks: float = math.nan  # the seed counts the cell was judged at, over its table's history (nan: unknown)
    beyond_validated_looks: bool = False  # decided after more looks than validated for its kind of interval
    alpha: float = ALPHA  # the level its verdict is read at: its look's (claims/levels.py; 5 % at a first look)
    alpha_next: float = ALPHA  # the next look's, at which seeds_to_decide is estimated
    basis: Basis | None = field(default=None, compare=False, repr=False)  # seeds_to_decide's, at any level


def judge(
    claim: Claim,
    cell: Cell,
    a: Sequence[float],
    b: Sequence[float] = (),
    paired: bool = False,
    models: Mapping[str, tuple[Sequence[float], float]] | None = None,
    runs: Sequence[str] = (),
) -> Verdict:
    """The verdict of one cell from the per-seed values of arm a and arm b (of a alone for a one-arm
    cell); paired: a[i] and b[i] come from the same seed; models: for a claim with `learned`, each model
    the cell involves -> (its per-seed values, the paper's value) (see the module doc); runs: the names of
    the runs the values come from."""
    where = f"claim {claim.id!r}, cell {cell.name!r}"
    if len(cell.arms) == 1 and (len(b) or paired):
        raise ValueError(f"{where}: a one-arm cell takes the values of arm {cell.arms[0]} alone, unpaired")
    a, b = _values(a, where, cell.arms[0]), _values(b, where, cell.arms[-1])
    if paired and len(a) != len(b):
        raise ValueError(f"{where}: paired arms need as many values each, not {len(a)} and {len(b)}")
    why = _not_learned(claim, models, where) or _few(cell, a, b)
    if why:
        return untestable(claim, cell, why, len(a), len(b), runs)
    test, interval, spread = measured(claim, cell, a, b, paired)
    mean_a, mean_b = statistics.fmean(a), statistics.fmean(b) if b else cell.bound
    d, n_min = test.d, min(len(a), len(b) or len(a))
    half, reason = (0.0, _zero_width_reason(cell, interval)) if test.kind == "order" else (t975(test.df) * test.se, "")
    verdict, p, p_delta = decided(cell, test)
    basis = Basis(cell, interval, d, spread, n_min, zero_width=test.kind == "order")
    return _row(
        claim,
        cell,
        interval,
        (len(a), len(b)),
        (mean_a, mean_b),
        (d, d - half, d + half),
        (p, p_delta),
        verdict,
        basis,
        reason,
        runs,
    )


def measured(
    claim: Claim, cell: Cell, a: list[float], b: list[float], paired: bool = False
) -> tuple[Spread, str, float | tuple[float, float]]:
    """(what the difference's tests read, the interval's name, the per-seed spread: s_D, or (s_a, s_b) for
    Welch) of checked per-seed values with >= 2 seeds an arm (module doc)."""
    sign = 1.0 if claim.better == "higher" else -1.0
    mean_a, mean_b = statistics.fmean(a), statistics.fmean(b) if b else cell.bound
    interval = PAIRED if paired else WELCH if b else ONE_ARM
    if interval == WELCH:
        spread = (statistics.stdev(a), statistics.stdev(b))
        va, vb = spread[0] ** 2 / len(a), spread[1] ** 2 / len(b)
        se, df = math.sqrt(va + vb), welch_df(va, len(a), vb, len(b))
    else:
        spread = statistics.stdev([sign * (x - y) for x, y in zip(a, b or [cell.bound] * len(a))])
        se, df = spread / math.sqrt(len(a)), len(a) - 1
    d = sign * (mean_a - mean_b) + 0.0  # + 0.0: no -0.0
    if se == 0:
        return Spread("order", d, order_p=_order_p(interval, len(a), len(b))), interval, spread
    return Spread("t", d, se=se, df=df), interval, spread


def decided(cell: Cell, test: Spread) -> tuple[str, float, float]:
    """(verdict, p_value, p_delta) of a cell's difference by its relation (module doc)."""
    delta = cell.delta
    if cell.relation == ON_PAR:
        p, p_delta = test.p_inside(delta), test.p_outside(delta)
    else:
        p = test.p_two(-delta if cell.relation == AT_LEAST else 0.0)
        p_delta = test.p_inside(delta) if cell.relation == BETTER_RELATION else math.nan
    return classify(test.d, p, p_delta, cell.relation, delta), p, p_delta


def classify(d: float, p: float, p_delta: float, relation: str, delta: float, alpha: float = ALPHA) -> str:
    """The verdict of a difference d in the paper's direction from its two p-values (module doc)."""
    if relation == ON_PAR:
        if p < alpha:
            return REPRODUCES
        if p_delta < alpha:
            return CONTRADICTS
        return CONSISTENT if abs(d) <= delta else INCONCLUSIVE
    boundary = -delta if relation == AT_LEAST else 0.0
    if p < alpha:
        return REPRODUCES if d > boundary else CONTRADICTS
    if relation == BETTER_RELATION and p_delta < alpha:
        return CONTRADICTS
    return CONSISTENT if d > boundary or (relation == AT_LEAST and d == boundary) else INCONCLUSIVE


def adjusted(rows: Sequence[Verdict]) -> list[Verdict]:
    """The rows with p_adjusted and p_delta_adjusted (Holm over each claim's judged cells), the verdict read
    at those, the per-cell verdict kept as verdict_unadjusted, and the reason's note on delta."""
    rows, out = list(rows), {}
    for claim in dict.fromkeys(r.claim for r in rows):
        family = [i for i, r in enumerate(rows) if r.claim == claim]
        ps = holm([rows[i].p_value for i in family])
        ps_delta = holm([rows[i].p_delta for i in family])
        judged = sum(not math.isnan(rows[i].p_value) for i in family)
        for i, p, p_delta in zip(family, ps, ps_delta):
            out[i] = _readjusted(rows[i], p, p_delta, judged)
    return [out[i] for i in range(len(rows))]


def _readjusted(row: Verdict, p: float, p_delta: float, judged: int) -> Verdict:
    """One row at its adjusted p-values and its look's level (row.alpha), its seeds_to_decide at the next
    look's level over judged (module doc); a row not judged is left as it is."""
    if row.verdict == NOT_TESTABLE:
        return replace(row, verdict_unadjusted=row.verdict, p_adjusted=p, p_delta_adjusted=p_delta)
    own = row.verdict  # as judged, at ALPHA; at a later look's level, read again
    if row.alpha != ALPHA:
        own = classify(row.difference, row.p_value, row.p_delta, row.relation, row.delta, row.alpha)
    base = replace(row, verdict_unadjusted=own, p_adjusted=p, p_delta_adjusted=p_delta)
    verdict = classify(row.difference, p, p_delta, row.relation, row.delta, row.alpha)
    as_judged = judged <= 1 and row.alpha_next == ALPHA
    seeds = row.seeds_to_decide if as_judged else _seeds_at(row.basis, verdict, row.alpha_next / max(judged, 1))
    notes = [row.reason] if row.reason else []
    if row.relation == BETTER_RELATION and verdict == CONTRADICTS and not p < row.alpha:
        notes.append(WITHIN_DELTA)
    elif row.relation == BETTER_RELATION and verdict == REPRODUCES and row.ci_high < row.delta:
        notes.append(BELOW_DELTA)
    return replace(base, verdict=verdict, reason="; ".join(notes), seeds_to_decide=seeds)


def _seeds_at(basis: Basis | None, verdict: str, alpha: float) -> float:
    """seeds_to_decide of a cell with this verdict at level alpha: nan where it is decided or has no
    seeds to add (an exact value), inf at level 0 (no further look decides)."""
    if basis is None or verdict not in (CONSISTENT, INCONCLUSIVE):
        return math.nan
    return basis.seeds(alpha) if alpha > 0 else math.inf


def judged(
    claim: Claim,
    cell: Cell,
    arms: Sequence[Sequence[float] | str],
    reason: str = "",
    shares: bool = False,
    models: Mapping[str, tuple[Sequence[float], float]] | None = None,
    runs: Sequence[str] = (),
) -> Verdict:
    """judge (judge_shares where `shares`) of the arms' per-seed values, or 'not testable here' (with the
    arms' seed counts) where a reason is given: an arm given as text is why it has no values (such texts
    joined by '; '), else `reason` where it is non-empty."""
    why = "; ".join(a for a in arms if isinstance(a, str)) or reason
    if why:
        return untestable(claim, cell, why, *(0 if isinstance(a, str) else len(a) for a in arms), runs=runs)
    if shares:
        return judge_shares(claim, cell, *arms, models=models, runs=runs)
    return judge(claim, cell, *arms, models=models, runs=runs)


def judge_shares(
    claim: Claim,
    cell: Cell,
    a: Sequence[float],
    b: Sequence[float],
    models: Mapping[str, tuple[Sequence[float], float]] | None = None,
    runs: Sequence[str] = (),
) -> Verdict:
    """The verdict of a two-arm cell whose per-seed values are 0 or 1, by the interval of the difference
    of the two shares; models as for judge (see the module doc)."""
    where = f"claim {claim.id!r}, cell {cell.name!r}"
    a, b = _values(a, where, cell.arms[0]), _values(b, where, cell.arms[1])
    if any(v not in (0.0, 1.0) for v in a + b):
        raise ValueError(f"{where}: judge_shares takes 0/1 values per seed")
    why = _not_learned(claim, models, where) or _few(cell, a, b)
    if why:
        return untestable(claim, cell, why, len(a), len(b), runs)
    p_a, p_b = statistics.fmean(a), statistics.fmean(b)
    sign = 1.0 if claim.better == "higher" else -1.0
    d = sign * (p_a - p_b) + 0.0
    low, high = newcombe(p_a, len(a), p_b, len(b), sign)
    verdict, p, p_delta = decided(cell, Spread("shares", d, shares=(p_a, len(a), p_b, len(b), sign)))
    basis = Basis(cell, SHARES, d, (p_a, p_b, sign), min(len(a), len(b)))
    return _row(
        claim, cell, SHARES, (len(a), len(b)), (p_a, p_b), (d, low, high), (p, p_delta), verdict, basis, "", runs
    )


def _zero_width_reason(cell: Cell, interval: str) -> str:
    text, (same, test) = ZERO_WIDTH[0], ZERO_WIDTH[1][interval]
    return text.format(same.format(a=cell.arms[0], b=cell.arms[-1]), test)


def _order_seeds(cell: Cell, d: float, interval: str, n: int, alpha: float = ALPHA, up_to: int = MAX_SEEDS) -> float:
    """The n >= n per arm from which the complete order the seeds show would decide the cell at level alpha
    (inf where no order would: d on the boundary of every test, or none up to up_to)."""
    if decided(cell, Spread("order", d, order_p=0.0))[0] in (CONSISTENT, INCONCLUSIVE):
        return math.inf
    return float(next((m for m in range(n, up_to + 1) if _order_p(interval, m, m) < alpha), math.inf))


def _t_seeds(
    cell: Cell, d: float, spread: float | tuple[float, float], n: int, alpha: float = ALPHA, up_to: int = MAX_SEEDS
) -> float:
    """The smallest n per arm at which the (1 - alpha) t-interval, at the same difference and per-seed
    spread, would decide the cell by either of its tests (module doc); inf beyond up_to."""
    if cell.relation == ON_PAR:
        gaps = [abs(cell.delta - abs(d))]
    elif cell.relation == AT_LEAST:
        gaps = [abs(d + cell.delta)]
    else:
        gaps = [abs(d)] + ([cell.delta - abs(d)] if abs(d) < cell.delta else [])
    return min(seeds_to_decide(gap, spread, n, alpha, up_to) for gap in gaps)


def _order_p(interval: str, n_a: int, n_b: int) -> float:
    """The two-sided p of the exact test of a complete order: sign test of n_a seeds (paired, one-arm), or
    permutation test of n_a seeds against n_b (Welch)."""
    return 2 / math.comb(n_a + n_b, n_a) if interval == WELCH else 2 / 2**n_a


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
        raise ValueError(
            f"{where}: the claim is judged only where every model learned (its key "
            f"'learned'): pass each model's per-seed values and the paper's value for it"
        )
    sign = 1.0 if rule.better == "higher" else -1.0
    failed = []
    for name, (values, paper) in models.items():
        values = _values(values, where, name)
        if not values or sign * (statistics.fmean(values) - paper) < -rule.within:
            failed.append(name if values else f"{name} (no runs)")
    if not failed:
        return ""
    return (
        f"not every model learned the task ({rule.metric}: the mean over seeds more than the claim's "
        f"learned.within {'under' if sign > 0 else 'over'} the paper's): " + "; ".join(failed)
    )


def _few(cell: Cell, a: list[float], b: list[float]) -> str:
    """Why a cell has no interval ('' where it has one): an arm with fewer than 2 seeds."""
    few = [arm for arm, v in zip(cell.arms, (a, b)) if len(v) < 2]
    return f"fewer than 2 seeds of {', '.join(few)}: no interval" if few else ""


def _interval_decides(cell: Cell, low: float, high: float) -> bool:
    """Whether an interval [low, high] at the test's level decides the cell by either of its tests (module doc)."""
    delta = cell.delta
    inside, outside = -delta < low and high < delta, low > delta or high < -delta
    if cell.relation == ON_PAR:
        return inside or outside
    boundary = -delta if cell.relation == AT_LEAST else 0.0
    return low > boundary or high < boundary or (cell.relation == BETTER_RELATION and inside)


def _shares_seeds(
    cell: Cell, shares: tuple[float, float, float], at_least: int, alpha: float = ALPHA, up_to: int = SHARES_MAX_SEEDS
) -> float:
    """The smallest n >= at_least per arm at which the (1 - alpha) interval at the shares p_a, p_b (sign:
    the direction) decides the cell; inf where up_to seeds would not."""
    p_a, p_b, sign = shares

    def decides(n: int) -> bool:
        return _interval_decides(cell, *newcombe(p_a, n, p_b, n, sign, tail=alpha / 2))

    low, high = max(at_least, 2), up_to
    if high < low or not decides(high):
        return math.inf
    if decides(low):
        return float(low)
    while high - low > 1:  # not decided at low, decided at high
        mid = (low + high) // 2
        low, high = (low, mid) if decides(mid) else (mid, high)
    return float(high)


def untestable(claim: Claim, cell: Cell, reason: str, n_a: int = 0, n_b: int = 0, runs: Sequence[str] = ()) -> Verdict:
    """'not testable here' for one cell, with the reason (the precondition that fails)."""
    if not reason:
        raise ValueError(f"claim {claim.id!r}, cell {cell.name!r}: 'not testable here' needs a reason")
    nan = math.nan
    return _row(claim, cell, "", (n_a, n_b), (nan, nan), (nan, nan, nan), (nan, nan), NOT_TESTABLE, None, reason, runs)


def seeds_to_decide(
    gap: float, spread: float | tuple[float, float], at_least: int = 2, alpha: float = ALPHA, up_to: int = MAX_SEEDS
) -> float:
    """The smallest n >= at_least (>= 2) per arm at which the (1 - alpha) interval's half-width falls below
    |gap|, the distance of the observed difference from a test's boundary: t_{1-alpha/2,n-1} s_D / sqrt(n)
    for paired or one-arm values (spread = s_D), Welch's with n in each arm for two (spread = (s_a, s_b)).
    inf when gap = 0 or more than up_to would be needed. The half-width falls as n grows, so bisection
    finds it."""
    tail = alpha / 2

    def half(n: int) -> float:
        if isinstance(spread, float):
            return _paired_half(spread, n, tail)
        return _welch_half(spread[0], n, spread[1], n, tail)

    low, high = max(at_least, 2), up_to
    if gap == 0 or high < low or half(high) >= abs(gap):
        return math.inf
    if half(low) < abs(gap):
        return float(low)
    while high - low > 1:  # half(low) >= |gap| > half(high)
        mid = (low + high) // 2
        low, high = (mid, high) if half(mid) >= abs(gap) else (low, mid)
    return float(high)


def _paired_half(spread: float, n: int, tail: float) -> float:
    """t_{1-tail, n-1} s / sqrt(n)."""
    return t_quantile(n - 1, tail) * spread / math.sqrt(n)


def _welch_half(s_a: float, n_a: int, s_b: float, n_b: int, tail: float) -> float:
    """Welch's half-width t_{1-tail, df} sqrt(s_a^2/n_a + s_b^2/n_b), df by Welch-Satterthwaite."""
    va, vb = s_a**2 / n_a, s_b**2 / n_b
    return t_quantile(welch_df(va, n_a, vb, n_b), tail) * math.sqrt(va + vb)


def _values(values: Sequence[float], where: str, arm: str) -> list[float]:
    out = [float(v) for v in values]
    bad = [v for v in out if not math.isfinite(v)]
    if bad:
        raise ValueError(
            f"{where}: {len(bad)} of the {len(out)} values of {arm} are "
            f"not finite ({bad[0]}); a run that never reached the metric's level or diverged makes "
            f"the cell 'not testable here' (engine.untestable with the reason), or needs another metric"
        )
    return out


def _row(
    claim: Claim,
    cell: Cell,
    interval: str,
    n: tuple[int, int],
    means: tuple[float, float],
    difference: tuple[float, float, float],
    p: tuple[float, float],
    verdict: str,
    basis: Basis | None,
    reason: str,
    runs: Sequence[str],
) -> Verdict:
    """The row of one cell: n = (n_a, n_b), means = (mean_a, mean_b), difference = (d, ci_low, ci_high),
    p = (p_value, p_delta)."""
    arm_b = cell.arms[1] if len(cell.arms) == 2 else f"bound {cell.bound:g}"
    paper = ", ".join(
        f"{k} {v:g}" + (f" ± {cell.paper_se[k]:g}" if k in cell.paper_se else "") for k, v in cell.paper.items()
    )
    return Verdict(
        claim.id,
        claim.kind,
        cell.name,
        claim.source,
        claim.metric,
        claim.unit,
        cell.arms[0],
        arm_b,
        cell.relation,
        cell.delta,
        interval == PAIRED,
        interval,
        *n,
        *means,
        *difference,
        *p,
        verdict,
        _seeds_at(basis, verdict, ALPHA),
        reason,
        *_paper(cell, cell.arms[0]),
        *_paper(cell, arm_b),
        paper,
        cell.paper_source,
        runs=tuple(runs),
        basis=basis,
    )


def _paper(cell: Cell, arm: str) -> tuple[float, float]:
    """The paper's number for an arm and its standard error (nan where the paper gives none)."""
    return cell.paper.get(arm, math.nan), cell.paper_se.get(arm, math.nan)


def judge_exact(claim: Claim, cell: Cell, value: float, margin: float, runs: Sequence[str] = ()) -> Verdict:
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
    verdict, p, p_delta = decided(cell, Spread("exact", d, margin=margin))
    return _row(
        claim,
        cell,
        EXACT,
        (1, 0),
        (value, cell.bound),
        (d, d - margin, d + margin),
        (p, p_delta),
        verdict,
        None,
        "",
        runs,
    )
