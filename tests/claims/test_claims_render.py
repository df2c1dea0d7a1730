"""The claims table in its three formats: CSV with one number per column, Markdown with the verdicts in
words and the legend, LaTeX with booktabs rules and every special character escaped."""

from __future__ import annotations

import dataclasses
import io
import math

import pandas as pd

from noneuclid import tables
from noneuclid.claims import data, engine, render


def _rows() -> list[engine.Verdict]:
    claims = data.load("brantner")
    below, cpu = claims["stiefel_adam_below_euclidean"], claims["stiefel_epoch_time_on_par_cpu"]
    ortho = claims["orthonormality_to_machine_precision"]
    return [
        engine.judge(below, below.cells[0], [0.30, 0.35, 0.28], [1.34, 1.3436, 1.35]),
        engine.judge(cpu, cpu.cells[0], [1.05, 1.20, 0.98], [1.0, 0.97, 1.03]),
        engine.judge(ortho, ortho.cells[0], [1e-6, 2e-6, 3e-6]),
        engine.untestable(cpu, cpu.cells[1], "no runs of momentum_stiefel | here"),
    ]


def test_csv_has_one_number_per_column():
    rows = _rows()
    table = pd.read_csv(io.StringIO(render.to_csv(rows)))
    assert list(table.columns) == render.CSV_COLUMNS and len(table) == 4 and "paper" not in table
    numeric = [
        "delta",
        "n_a",
        "n_b",
        "mean_a",
        "mean_b",
        "difference",
        "ci_low",
        "ci_high",
        "p_value",
        "p_delta",
        "seeds_to_decide",
        "paper_a",
        "paper_se_a",
        "paper_b",
        "paper_se_b",
        "p_adjusted",
        "cpu_hours",
    ]
    assert all(pd.api.types.is_numeric_dtype(table[c]) for c in numeric)
    assert table.verdict.tolist() == ["reproduces", "consistent", "reproduces", "not testable here"]
    assert table.seeds_to_decide[1] == rows[1].seeds_to_decide == 98
    assert table.paper_a[0] == 0.254 and (table.relation[1], table.delta[1]) == ("at_least", 0.1)
    assert table.arm_b[2] == "bound 1.19e-05" and table.kind[0] == "paper"
    assert math.isnan(table.difference[3]) and table.reason[3] == "no runs of momentum_stiefel | here"


def test_markdown_says_the_verdicts_in_words_with_the_legend():
    md = render.to_markdown(_rows())
    header, rule, *body = md.split("\n\n")[0].splitlines()
    assert [c.strip() for c in header.strip("|").split("|")] == render.DISPLAY_COLUMNS
    assert len(body) == 4
    assert "| +1.03 [+0.947, +1.12]" in body[0] and "| 0.31 vs 1.34 " in body[0]
    assert "consistent (~98 seeds per arm would decide)" in body[1] and "at least, down to -0.1" in body[1]
    assert "adam_stiefel 2855, adam_euclidean 2783 (Table 2, CPU" in body[1]
    assert r"not testable here: no runs of momentum_stiefel \| here" in body[3]  # a '|' kept out of the columns
    assert md.rstrip().endswith(render.legend(_rows()))
    claim = data.load("brantner")["stiefel_adam_below_euclidean"]
    same = engine.judge(claim, claim.cells[0], [1, 1, 1], [1, 1, 1])  # d = 0: only "within delta" can decide
    assert render.display(same)["verdict"] == (
        "inconclusive (zero-width interval (every seed of adam_stiefel gives the same value, and every seed of "
        "adam_euclidean): judged by the exact permutation test; ~4 seeds per arm would decide)"
    )
    tiny_delta = dataclasses.replace(claim, cells=(dataclasses.replace(claim.cells[0], delta=1e-9),))
    tiny = engine.judge(tiny_delta, tiny_delta.cells[0], [1, 2, 3], [1.000001, 2.000001, 3.000001])
    assert render.display(tiny)["verdict"] == "consistent (more than 100,000 seeds per arm would be needed)"
    on_boundary = dataclasses.replace(
        claim, cells=(dataclasses.replace(claim.cells[0], relation="at_least", delta=0.5),)
    )
    at = engine.judge(on_boundary, on_boundary.cells[0], [2.0, 3.0, 4.0], [1.5, 2.5, 3.5])  # d = -0.5 = -delta
    assert render.display(at)["verdict"].endswith("no number of seeds would decide: the difference lies on a boundary)")
    shares = engine.judge_shares(tiny_delta, tiny_delta.cells[0], [1] + [0] * 99, [1] * 2 + [0] * 98)  # lower better
    assert render.display(shares)["verdict"] == "consistent (more than 1,000 seeds per arm would be needed)"


def test_the_legend_names_the_intervals_the_table_uses_and_the_caps_of_the_seed_estimate():
    rows = _rows()  # Welch, Welch, one-arm, not testable
    text = render.legend(rows)
    assert "Welch's t-interval" in text and "against a bound, Student's t-interval" in text
    assert "paired" not in text and "Clopper-Pearson" not in text
    assert "searched up to 100,000" in text and "1,000 for shares" not in text and "{" not in text
    claim = data.load("brantner")["stiefel_adam_below_euclidean"]
    shares = engine.judge_shares(claim, claim.cells[0], [1, 1, 0], [0, 0, 0])
    text = render.legend(rows + [shares])
    assert "Clopper-Pearson" in text and "Newcombe" in text and "up to 1,000 for shares" in text
    assert render.legend(rows[3:]) == render.LEGEND  # nothing judged: every interval
    bound = data.load("brantner")["orthonormality_to_machine_precision"]
    exact = engine.judge_exact(bound, bound.cells[0], 1e-6, margin=1e-7)
    assert "rounding bound" in render.legend([exact]) and "searched up to" not in render.legend([exact])
    assert rf"\caption{{{tables.latex_escape(render.legend(rows))}}}" in render.to_latex(rows)


def _paired() -> engine.Verdict:
    claim = data.load("brantner")["stiefel_adam_below_euclidean"]
    return engine.judge(claim, claim.cells[0], [0.3, 0.35, 0.28], [1.34, 1.3436, 1.35], paired=True)


def test_a_zero_width_interval_says_so():
    claim = data.load("brantner")["orthonormality_to_machine_precision"]
    row = engine.judge(claim, claim.cells[0], [1.49e-6, 1.49e-6])  # below the bound on both seeds, no spread
    assert row.ci_low == row.ci_high == row.difference > 0
    assert render.display(row)["verdict"] == (
        "consistent (zero-width interval (every seed gives the same value): judged by the exact sign test; ~6 "
        "seeds per arm would decide)"
    )


def test_rows_read_back_from_the_csv_display_as_written_and_legend_names_every_interval():
    """A page that gathers several claims tables rebuilds the rows from their CSVs (empty text comes back
    as nan) and shows LEGEND, which names every interval and both caps."""
    rows = _rows()
    table = pd.read_csv(io.StringIO(render.to_csv(rows)))
    back = [
        engine.Verdict(**{k: row[k] for k in render.CSV_COLUMNS}, paper=r.paper)
        for r, (_, row) in zip(rows, table.iterrows())
    ]
    assert math.isnan(back[0].reason)
    assert [render.display(r)["verdict"] for r in back] == [render.display(r)["verdict"] for r in rows]
    assert all(text in render.LEGEND for text in render.INTERVALS.values()) and "{" not in render.LEGEND
    assert "100,000 seeds per arm; up to 1,000 for shares" in render.LEGEND
