"""The claims engine on hand-made seed values: each of the five verdicts, the direction of the metric,
non-inferiority's delta, paired seeds, one-arm cells against a bound, the seeds that would decide, the
interval each row names, zero-width intervals, and gain cells whose models must have learned the task."""

from __future__ import annotations

import dataclasses
import math
import statistics

import pytest

from noneuclid.claims import engine, significance
from noneuclid.claims.data import Cell, Claim, Learned

T2, T4 = 4.302652729749464, 2.776445105197799  # t_{0.975, 2} and t_{0.975, 4} in closed form (test_student.py)


TINY = 1e-9  # a delta no interval here lies within: superiority decided by its sign alone


def _claim(
    better: str = "higher", relation: str = "better", delta: float = TINY, arms=("a", "b"), bound: float | None = None
) -> Claim:
    cell = Cell(
        "cell",
        tuple(arms),
        relation,
        delta,
        {"a": 1.0, "M2": 3.0},
        {"a": 0.5},
        "Table 1",
        bound,
        "ours" if bound is not None else "",
        "",
    )
    return Claim("c", "paper", "a beats b", "Table 1", "accuracy", "%", better, "ours", "", "", (cell,))


def _judge(a, b=(), paired=False, **kwargs) -> engine.Verdict:
    claim = _claim(**kwargs)
    return engine.judge(claim, claim.cells[0], a, b, paired=paired)


def _unit(n: int) -> list[float]:
    """n values with mean 0 and sample standard deviation 1."""
    raw = [i - (n - 1) / 2 for i in range(n)]
    sd = math.sqrt(sum(r * r for r in raw) / (n - 1))
    return [r / sd for r in raw]


def test_reproduces_beyond_the_welch_interval():
    v = _judge([10, 11, 12], [5, 6, 7])
    # s_a = s_b = 1, n = 3 each: se = sqrt(2/3), Welch df = 4
    half = T4 * math.sqrt(2 / 3)
    assert v.verdict == "reproduces" and v.difference == 5
    assert v.ci_low == pytest.approx(5 - half, rel=1e-12) and v.ci_high == pytest.approx(5 + half, rel=1e-12)
    assert (v.n_a, v.n_b, v.mean_a, v.mean_b) == (3, 3, 11, 6) and math.isnan(v.seeds_to_decide)


def test_contradicts_and_the_direction_of_the_metric():
    assert _judge([5, 6, 7], [10, 11, 12]).verdict == "contradicts"
    lower = _judge([10, 11, 12], [5, 6, 7], better="lower")  # lower is better: a is worse
    assert lower.verdict == "contradicts" and lower.difference == -5


def test_consistent_and_inconclusive_hold_zero_and_say_how_many_seeds_would_decide():
    consistent = _judge([6, 7, 8], [5, 6, 7])  # d = +1, interval +-2.27
    inconclusive = _judge([5, 6, 7], [6, 7, 8])  # d = -1
    assert consistent.verdict == "consistent" and consistent.ci_low < 0 < consistent.ci_high
    assert inconclusive.verdict == "inconclusive" and inconclusive.ci_low < 0 < inconclusive.ci_high
    # Welch with n per arm, s = 1 each: df = 2(n - 1), half-width t sqrt(2/n): 8 -> 2.145 x 0.5 = 1.07 > 1,
    # 9 -> 2.1199 x 0.471 = 0.9993 < 1
    assert consistent.seeds_to_decide == inconclusive.seeds_to_decide == 9


def test_the_seed_estimate_is_where_the_verdict_turns():
    for n, verdict in ((8, "consistent"), (9, "reproduces")):
        z = _unit(n)
        assert _judge([7 + x for x in z], [6 + x for x in z]).verdict == verdict
    assert engine.seeds_to_decide(1.0, 1.0) == 7  # paired: t(5)/sqrt(6) = 1.049, t(6)/sqrt(7) = 0.9248
    assert engine.seeds_to_decide(1.0, (1.0, 1.0)) == 9
    assert engine.seeds_to_decide(1.0, 1.0, at_least=10) == 10
    assert engine.seeds_to_decide(0.0, 1.0) == math.inf  # no difference: no number of seeds decides
    assert engine.seeds_to_decide(1.0, 1e6) == math.inf  # beyond MAX_SEEDS
    same = _judge([6, 6, 6], [6, 6, 6])
    # a tie of constant seeds: no seeds decide superiority, but 4 per arm decide "no effect as large as delta"
    assert same.verdict == "inconclusive" and same.seeds_to_decide == 4


def test_at_least_delta_moves_the_boundary():
    a, b = [6, 7, 8], [7, 8, 9]  # d = -1, interval [-3.27, 1.27]
    assert _judge(a, b).verdict == "inconclusive"
    assert _judge(a, b, relation="at_least", delta=0.5).verdict == "inconclusive"  # d < -0.5
    on_par = _judge(a, b, relation="at_least", delta=2.0)  # -2 inside the interval, d above it
    assert on_par.verdict == "consistent" and on_par.delta == 2.0
    assert _judge(a, b, relation="at_least", delta=4.0).verdict == "reproduces"  # interval above -4
    # a worse beyond the interval, but by less than the tolerance: on par, not contradicted
    close = ([9.0, 9.1, 9.2], [10.0, 10.1, 10.2])
    assert _judge(*close).verdict == "contradicts"
    assert _judge(*close, relation="at_least", delta=1.5).verdict == "reproduces"
    assert _judge([0, 1, 2], [10, 11, 12], relation="at_least", delta=2.0).verdict == "contradicts"
    # identical values: at least at delta 0 holds exactly at the boundary, no seeds decide
    exact = _judge([6, 6, 6], [6, 6, 6], relation="at_least", delta=0.0)
    assert exact.verdict == "consistent" and exact.seeds_to_decide == math.inf


def test_paired_seeds_use_the_per_seed_differences():
    a, b = [10, 20, 30], [9, 19, 29.5]  # differences 1, 1, 0.5: the seeds' spread cancels
    assert _judge(a, b).verdict == "consistent"
    paired = _judge(a, b, paired=True)
    half = T2 * statistics.stdev([1, 1, 0.5]) / math.sqrt(3)
    assert paired.verdict == "reproduces" and paired.paired
    assert paired.ci_low == pytest.approx(5 / 6 - half, rel=1e-12)
    with pytest.raises(ValueError, match="as many values"):
        _judge([1, 2, 3], [1, 2], paired=True)


def test_one_arm_against_a_bound():
    v = _judge([1e-6, 2e-6, 3e-6], better="lower", arms=("a",), bound=1.19e-5)
    assert v.verdict == "reproduces" and v.arm_b == "bound 1.19e-05" and v.mean_b == 1.19e-5 and v.n_b == 0
    assert v.ci_low == pytest.approx(9.9e-6 - T2 * 1e-6 / math.sqrt(3), rel=1e-12)
    assert _judge([1.1e-5, 1.4e-5, 1.2e-5], better="lower", arms=("a",), bound=1.19e-5).verdict == "inconclusive"
    with pytest.raises(ValueError, match="one-arm"):
        _judge([1, 2], [1, 2], arms=("a",), bound=1.0)


def test_not_testable_here_carries_its_reason():
    claim = _claim()
    v = engine.untestable(claim, claim.cells[0], "no run reached 80 %", 3, 3)
    assert v.verdict == "not testable here" and v.reason == "no run reached 80 %" and (v.n_a, v.n_b) == (3, 3)
    assert math.isnan(v.difference) and math.isnan(v.ci_low)
    assert (v.paper_a, v.paper_se_a, v.paper) == (1.0, 0.5, "a 1 ± 0.5, M2 3")
    few = _judge([1, 2, 3], [4])
    assert few.verdict == "not testable here" and "fewer than 2 seeds of b" in few.reason
    with pytest.raises(ValueError, match="needs a reason"):
        engine.untestable(claim, claim.cells[0], "")
    with pytest.raises(ValueError, match="not testable here"):  # a run that never reached the level
        _judge([1, 2, math.inf], [1, 2, 3])


def test_judged_judges_the_arms_or_names_why_not():
    claim = _claim()
    cell = claim.cells[0]
    assert engine.judged(claim, cell, [[5, 6, 7], [1, 2, 3]]) == engine.judge(claim, cell, [5, 6, 7], [1, 2, 3])
    v = engine.judged(claim, cell, [[5, 6, 7], [1, 2]], "below the precondition")
    assert (v.verdict, v.reason, v.n_a, v.n_b) == ("not testable here", "below the precondition", 3, 2)
    v = engine.judged(claim, cell, ["no runs of a", [1, 2, 3]], "ignored: an arm has no values")
    assert (v.reason, v.n_a, v.n_b) == ("no runs of a", 0, 3)
    assert engine.judged(claim, cell, [[1, 1, 0, 1], [0, 0, 0, 0]], shares=True).interval == "shares"


def test_every_verdict_is_one_of_the_five():
    cases = [
        ([10, 11, 12], [5, 6, 7]),
        ([5, 6, 7], [10, 11, 12]),
        ([6, 7, 8], [5, 6, 7]),
        ([5, 6, 7], [6, 7, 8]),
        ([1], [1, 2]),
    ]
    assert {_judge(a, b).verdict for a, b in cases} == set(engine.VERDICTS)


@pytest.mark.parametrize(
    "a, b, verdict",
    [
        ([1, 1], [0, 0], engine.CONSISTENT),  # every seed against none: not decided from 2 seeds per arm ...
        ([1, 1, 1], [0, 0, 0], engine.CONSISTENT),  # ... nor 3 (Fisher's exact p = 0.1) ...
        ([1] * 4, [0] * 4, engine.REPRODUCES),  # ... but from 4 (p = 0.029)
        ([0] * 4, [1] * 4, engine.CONTRADICTS),
        ([0, 0, 0], [0, 0, 0], engine.INCONCLUSIVE),  # no seed differs: no number of seeds decides
    ],
)
def test_shares_of_a_yes_no_outcome_are_judged_with_exact_intervals(a, b, verdict):
    """A 0/1 outcome per seed (the run diverged): no zero-width t-interval when no seed varies."""
    claim = _claim()
    row = engine.judge_shares(claim, claim.cells[0], a, b)
    assert row.verdict == verdict and row.ci_high - row.ci_low > 0
    seeds = {engine.CONSISTENT: 4.0, engine.INCONCLUSIVE: math.inf}.get(verdict)  # decided: none needed
    assert row.seeds_to_decide == seeds if seeds else math.isnan(row.seeds_to_decide)
    lower = engine.judge_shares(_claim(better="lower"), _claim(better="lower").cells[0], b, a)
    assert lower.verdict == verdict  # the same cell with the outcome counted the other way
    assert significance.clopper_pearson(1.0, 2)[0] == pytest.approx(0.025**0.5)  # k = n: lower bound (alpha/2)^(1/n)
    with pytest.raises(ValueError, match="0/1 values"):
        engine.judge_shares(claim, claim.cells[0], [0.5, 1], [0, 0])


def test_each_row_names_its_interval():
    assert _judge([10, 11, 12], [5, 6, 7]).interval == engine.WELCH
    assert _judge([10, 20, 30], [9, 19, 29.5], paired=True).interval == engine.PAIRED
    assert _judge([1e-6, 2e-6], better="lower", arms=("a",), bound=1e-5).interval == engine.ONE_ARM
    claim = _claim()
    assert engine.judge_shares(claim, claim.cells[0], [1, 0], [0, 0]).interval == engine.SHARES
    assert _judge([1], [1, 2]).interval == ""  # not testable: no interval


@pytest.mark.parametrize(
    "a, b, kwargs, verdict, seeds, p",
    [
        # one arm against a bound, lower is better: the sign test, 2 / 2^n
        ([1.49e-6] * 2, (), dict(better="lower", arms=("a",), bound=1.19e-5), engine.CONSISTENT, 6, 0.5),
        ([1.49e-6] * 6, (), dict(better="lower", arms=("a",), bound=1.19e-5), engine.REPRODUCES, math.nan, 2 / 64),
        ([9.0] * 5, (), dict(arms=("a",), bound=10.0), engine.INCONCLUSIVE, 6, 2 / 32),
        # two arms each constant: the permutation test, 2 / C(n_a + n_b, n_a)
        ([7.0] * 3, [6.0] * 3, {}, engine.CONSISTENT, 4, 0.1),
        ([6.0] * 3, [7.0] * 3, {}, engine.INCONCLUSIVE, 4, 0.1),
        ([7.0] * 4, [6.0] * 4, {}, engine.REPRODUCES, math.nan, 2 / 70),
        ([6.0] * 4, [7.0] * 5, {}, engine.CONTRADICTS, math.nan, 2 / 126),
        ([6.0] * 3, [6.5] * 3, dict(relation="at_least", delta=1.0), engine.CONSISTENT, 4, 0.1),  # above -1
        # paired seeds with the same difference: the sign test
        ([10.0, 20.0, 30.0], [9.0, 19.0, 29.0], dict(paired=True), engine.CONSISTENT, 6, 0.25),
    ],
)
def test_a_zero_width_interval_is_judged_by_the_exact_test_of_the_order_it_shows(a, b, kwargs, verdict, seeds, p):
    """Every seed gives the same value: the t-interval [d, d] would read as decided at any d; the exact
    test of the seeds' complete order decides instead, and the reason says so."""
    v = _judge(a, b, **kwargs)
    assert v.ci_low == v.ci_high == v.difference != 0
    assert v.verdict == verdict and v.reason.startswith("zero-width interval (every ")
    interval = engine.WELCH if b and not kwargs.get("paired") else engine.PAIRED if b else engine.ONE_ARM
    assert v.reason.endswith(f"exact {'permutation' if interval == engine.WELCH else 'sign'} test")
    assert engine._order_p(interval, v.n_a, v.n_b) == pytest.approx(p, rel=0.05)  # the p the legend gives
    assert v.seeds_to_decide == seeds or math.isnan(v.seeds_to_decide) and math.isnan(seeds)


def test_a_zero_width_tie_and_one_varying_seed():
    tie = _judge([6, 6, 6], [6, 6, 6])  # d = 0: only the test against delta can decide (4 seeds per arm)
    assert tie.verdict == engine.INCONCLUSIVE and tie.seeds_to_decide == 4
    assert tie.reason.startswith("zero-width interval") and not any(c.isdigit() for c in tie.reason)
    assert _judge([6.0, 6.0, 6.1], [5, 5, 5]).reason == ""  # one seed differs: a t-interval with width


def _gain_claim(within: float = 10.0) -> Claim:
    """A gain of a hyperbolic over a Euclidean model on PREFIX-10 against PREFIX-30, with the precondition
    that each of the four models is within `within` points of the paper's accuracy."""
    cell = Cell(
        "RNN, PREFIX-10 vs PREFIX-30",
        ("prefix10", "prefix30"),
        "better",
        TINY,
        {"prefix10": 7.29, "prefix30": 6.12},
        {},
        "Table 1",
        None,
        "",
        "",
    )
    learned = Learned("test accuracy %", "higher", within, "ours")
    return Claim(
        "gain",
        "paper",
        "the gain grows",
        "Table 1",
        "hyperbolic_gain",
        "points",
        "higher",
        "ours",
        "",
        "",
        (cell,),
        learned,
    )


PAPER_ACCURACY = {
    "PREFIX-10, hyperbolic": 96.91,
    "PREFIX-10, euclidean": 89.62,
    "PREFIX-30, hyperbolic": 87.83,
    "PREFIX-30, euclidean": 81.71,
}


def _models(model: str = "", shift: float = 0.0) -> dict:
    """Each model at the paper's accuracy (+- 0.3 over three seeds), `model` moved by `shift` points."""
    return {
        name: ([paper + (shift if name == model else 0.0) + e for e in (-0.3, 0.0, 0.3)], paper)
        for name, paper in PAPER_ACCURACY.items()
    }


def test_a_gain_is_not_testable_where_a_model_has_not_learned_the_task():
    claim = _gain_claim()
    cell = claim.cells[0]
    gains = ([9.0, 9.5, 10.0], [2.0, 2.5, 3.0])  # a clear gain from PREFIX-30 to PREFIX-10
    learned = engine.judge(claim, cell, *gains, models=_models())
    assert learned.verdict == engine.REPRODUCES
    under = engine.judge(claim, cell, *gains, models=_models("PREFIX-30, hyperbolic", -20.0))
    assert under.verdict == engine.NOT_TESTABLE and (under.n_a, under.n_b) == (3, 3)
    assert under.reason == (
        "not every model learned the task (test accuracy %: the mean over seeds more than "
        "the claim's learned.within under the paper's): PREFIX-30, hyperbolic"
    )
    assert engine.judge(claim, cell, *gains, models=_models("PREFIX-30, hyperbolic", -9.0)).verdict == engine.REPRODUCES
    assert engine.judge(claim, cell, *gains, models=_models("PREFIX-10, euclidean", +20.0)).verdict == engine.REPRODUCES
    empty = engine.judge(claim, cell, *gains, models={**_models(), "PREFIX-10, euclidean": ([], 89.62)})
    assert empty.verdict == engine.NOT_TESTABLE and "PREFIX-10, euclidean (no runs)" in empty.reason
    lower = dataclasses.replace(claim, learned=Learned("perplexity", "lower", 10.0, "ours"))  # lower is better
    worse = engine.judge(lower, cell, *gains, models=_models("PREFIX-30, hyperbolic", +20.0))
    assert worse.verdict == engine.NOT_TESTABLE and "learned.within over the paper's" in worse.reason


def test_the_learned_precondition_needs_the_models_and_only_where_the_claim_states_it():
    claim = _gain_claim()
    with pytest.raises(ValueError, match="pass each model's per-seed values"):
        engine.judge(claim, claim.cells[0], [1, 2], [0, 1])
    with pytest.raises(ValueError, match="pass each model's per-seed values"):
        engine.judge_shares(claim, claim.cells[0], [1, 1], [0, 1])
    plain = _claim()
    with pytest.raises(ValueError, match="no key 'learned'"):
        engine.judge(plain, plain.cells[0], [1, 2], [0, 1], models=_models())
    shares = engine.judge_shares(claim, claim.cells[0], [1, 1], [0, 0], models=_models("PREFIX-10, hyperbolic", -20.0))
    assert shares.verdict == engine.NOT_TESTABLE and shares.reason.endswith("): PREFIX-10, hyperbolic")
