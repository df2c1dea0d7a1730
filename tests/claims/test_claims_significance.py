"""The engine's tests against delta and its p-values: superiority contradicted by an effect confidently
smaller than delta, equivalence by two one-sided tests, non-inferiority; each p-value decides exactly
where the 95 % interval the table shows decides; Holm's adjustment over a claim's cells; shares' p-values
by inverting their interval."""

from __future__ import annotations

import dataclasses
import math
import statistics

import pytest

from noneuclid.claims import engine, significance
from noneuclid.claims.data import Cell, Claim


def _claim(relation: str = "better", delta: float = 1.0, cells: int = 1, paper=None) -> Claim:
    cell = Cell("cell", ("a", "b"), relation, delta, paper or {}, {}, "Table 1" if paper else "", None, "", "")
    return Claim(
        "c",
        "paper",
        "a beats b",
        "Table 1",
        "accuracy",
        "%",
        "higher",
        "ours",
        "",
        "",
        tuple(dataclasses.replace(cell, name=f"cell {i}") for i in range(cells)),
    )


def _judge(a, b, **kwargs) -> engine.Verdict:
    claim = _claim(**kwargs)
    return engine.judge(claim, claim.cells[0], a, b)


def test_superiority_is_contradicted_by_an_effect_confidently_smaller_than_delta():
    near = _judge([10.0, 10.1, 9.9, 10.05], [10.02, 9.98, 10.0, 10.01], paper={"a": 12.0, "b": 10.0})
    assert near.ci_low < 0 < near.ci_high and -1 < near.ci_low and near.ci_high < 1
    assert near.verdict == engine.CONTRADICTS and near.p_value > 0.05 and near.p_delta < 0.05
    row = engine.adjusted([near])[0]
    assert row.reason == engine.WITHIN_DELTA and "1" not in row.reason  # delta is its own column
    wide = _judge([8.5, 10.5, 12.5], [9.0, 10.0, 11.0])  # the interval reaches past +-1: not decided
    assert wide.verdict == engine.CONSISTENT and wide.p_delta > 0.05
    small = _judge([10.3, 10.35, 10.4, 10.3], [10.0, 10.01, 10.02, 9.99])  # above 0, below delta
    assert small.verdict == engine.REPRODUCES and small.ci_high < 1
    assert engine.adjusted([small])[0].reason == engine.BELOW_DELTA


def test_equivalence_reproduces_inside_delta_and_contradicts_beyond_it():
    inside = _judge([10.0, 10.1, 9.9, 10.05], [10.02, 9.98, 10.0, 10.01], relation="on_par")
    assert inside.verdict == engine.REPRODUCES and inside.p_value < 0.05
    beyond = _judge([13.0, 13.1, 12.9, 13.05], [10.02, 9.98, 10.0, 10.01], relation="on_par")
    assert beyond.verdict == engine.CONTRADICTS and beyond.p_delta < 0.05 and beyond.ci_low > 1
    unsure = _judge([10.5, 11.5, 9.5], [10.0, 10.5, 9.5], relation="on_par")
    assert unsure.verdict == engine.CONSISTENT and unsure.seeds_to_decide > 3
    behind = _judge([8.5, 9.5, 7.5], [10.0, 10.5, 9.5], relation="on_par")  # |d| > delta, not decided
    assert behind.verdict == engine.INCONCLUSIVE


@pytest.mark.parametrize(
    "a, b",
    [
        ([10, 11, 12], [5, 6, 7]),
        ([6, 7, 8], [5, 6, 7]),
        ([6.0, 6.5, 7.4], [6, 6.6, 7]),
        ([1, 2, 3, 4, 5], [2, 3, 4.5, 5, 6]),
    ],
)
@pytest.mark.parametrize("relation", ["better", "at_least", "on_par"])
def test_each_p_value_decides_where_the_interval_decides(a, b, relation):
    row = _judge(a, b, relation=relation, delta=0.7)
    boundary = {"better": 0.0, "at_least": -0.7}.get(relation)
    if boundary is not None:
        assert (row.p_value < 0.05) == (row.ci_low > boundary or row.ci_high < boundary)
    else:
        assert (row.p_value < 0.05) == (-0.7 < row.ci_low and row.ci_high < 0.7)
    if relation == "better":
        assert (row.p_delta < 0.05) == (-0.7 < row.ci_low and row.ci_high < 0.7)


def test_holm_adjusts_over_a_claims_cells_and_keeps_the_cell_verdict():
    assert significance.holm([0.01, 0.04, 0.03, math.nan]) == pytest.approx([0.03, 0.06, 0.06, math.nan], nan_ok=True)
    assert significance.holm([]) == []
    claim = _claim(cells=3, delta=1e-9)
    a, b = [10.0, 11.0, 12.0, 11.5], [8.5, 9.5, 10.3, 10.0]  # p = 0.037 in each cell, 0.11 adjusted
    rows = engine.adjusted([engine.judge(claim, cell, a, b) for cell in claim.cells])
    assert all(r.verdict_unadjusted == engine.REPRODUCES and r.p_value < 0.05 for r in rows)
    assert all(r.verdict == engine.CONSISTENT and r.p_adjusted == pytest.approx(min(1, 3 * r.p_value)) for r in rows)
    other = _claim(cells=1, delta=1e-9)
    alone = engine.adjusted([engine.judge(other, other.cells[0], a, b)])[0]  # a family of one: unchanged
    assert alone.verdict == engine.REPRODUCES and alone.p_adjusted == alone.p_value


def test_seeds_to_decide_is_read_at_the_claims_adjusted_level():
    claim, other = _claim(cells=3, delta=1e-9), _claim(cells=1, delta=1e-9)
    a, b = [10.0, 11.0, 12.0, 11.5], [8.5, 9.5, 10.3, 10.0]  # decided alone, not among three cells
    rows = engine.adjusted([engine.judge(claim, cell, a, b) for cell in claim.cells])
    alone = engine.adjusted([engine.judge(other, other.cells[0], a, b)])[0]
    assert math.isnan(alone.seeds_to_decide) and all(r.seeds_to_decide > 4 for r in rows)
    n = int(rows[0].seeds_to_decide)  # at n seeds (same means and spreads) p < 0.05 / 3; at n - 1, not
    spread = (statistics.stdev(a), statistics.stdev(b))
    assert engine.seeds_to_decide(rows[0].difference, spread, 2, 0.05 / 3) == n
    assert engine.seeds_to_decide(rows[0].difference, spread, 2, 0.05) < n


def test_share_and_order_cells_get_their_seeds_at_the_adjusted_level_too():
    claim = _claim(cells=8, relation="at_least", delta=0.5)
    same = [0.0] * 6  # no run of either arm fails: decided alone at 6 seeds, at 9 among eight cells
    rows = engine.adjusted([engine.judge_shares(claim, c, same, same) for c in claim.cells])
    assert {(r.verdict_unadjusted, r.verdict, r.seeds_to_decide) for r in rows} == {
        (engine.REPRODUCES, engine.CONSISTENT, 9.0)
    }
    paired = _claim(cells=4, delta=1e-9)
    order = [engine.judge(paired, c, [2.0] * 6, [1.0] * 6, paired=True) for c in paired.cells]  # sign test
    assert {r.seeds_to_decide for r in engine.adjusted(order)} == {8.0}  # 2 / 2^8 < 0.05 / 4 < 2 / 2^7


def test_untestable_cells_are_left_out_of_the_family():
    claim = _claim(cells=2, delta=1e-9)
    judged = engine.judge(claim, claim.cells[0], [10.0, 11.0, 12.0, 11.5], [8.5, 9.5, 10.3, 10.0])
    rows = engine.adjusted([judged, engine.untestable(claim, claim.cells[1], "no runs")])
    assert rows[0].verdict == engine.REPRODUCES and rows[0].p_adjusted == rows[0].p_value
    assert rows[1].verdict == engine.NOT_TESTABLE and rows[1].verdict_unadjusted == engine.NOT_TESTABLE


@pytest.mark.parametrize("a, b", [([1] * 4, [0] * 4), ([1, 1, 0], [0, 0, 0]), ([1] * 6, [0, 1, 0, 0, 0, 0])])
def test_a_shares_p_value_inverts_its_interval(a, b):
    claim = _claim(delta=0.5)
    row = engine.judge_shares(claim, claim.cells[0], a, b)
    assert (row.p_value < 0.05) == (row.ci_low > 0 or row.ci_high < 0)
    low, high = significance.newcombe(sum(a) / len(a), len(a), sum(b) / len(b), len(b), 1.0, tail=row.p_value / 2)
    assert min(abs(low), abs(high)) < 1e-6 or row.p_value == 1.0  # at its p the interval touches 0


def test_an_exact_value_decides_by_its_margin_alone():
    spread = significance.Spread("exact", 0.5, margin=0.1)
    assert (spread.p_two(0.0), spread.p_two(0.45), spread.p_inside(1.0), spread.p_inside(0.55)) == (0.0, 1.0, 0.0, 1.0)
