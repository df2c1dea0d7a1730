"""The claims table in its three formats: CSV with one number per column, Markdown with the verdicts in
words and the legend, LaTeX with booktabs rules and every special character escaped."""

from __future__ import annotations

import io
import math

import pandas as pd

from noneuclid.claims import data, engine, render


def _rows() -> list[engine.Verdict]:
    claims = data.load("brantner")
    below, cpu = claims["stiefel_adam_below_euclidean"], claims["stiefel_epoch_time_on_par_cpu"]
    ortho = claims["orthonormality_to_machine_precision"]
    return [engine.judge(below, below.cells[0], [0.30, 0.35, 0.28], [1.34, 1.3436, 1.35]),
            engine.judge(cpu, cpu.cells[0], [1.05, 1.20, 0.98], [1.0, 0.97, 1.03]),
            engine.judge(ortho, ortho.cells[0], [1e-6, 2e-6, 3e-6]),
            engine.untestable(cpu, cpu.cells[1], "no runs of momentum_stiefel | here")]


def test_csv_has_one_number_per_column():
    rows = _rows()
    table = pd.read_csv(io.StringIO(render.to_csv(rows)))
    assert list(table.columns) == render.CSV_COLUMNS and len(table) == 4 and "paper" not in table
    numeric = ["boundary", "n_a", "n_b", "mean_a", "mean_b", "difference", "ci_low", "ci_high", "seeds_to_decide",
               "paper_a", "paper_se_a", "paper_b", "paper_se_b"]
    assert all(pd.api.types.is_numeric_dtype(table[c]) for c in numeric)
    assert table.verdict.tolist() == ["reproduces", "consistent", "reproduces", "not testable here"]
    assert table.seeds_to_decide[1] == rows[1].seeds_to_decide == 98
    assert table.paper_a[0] == 0.254 and table.boundary[1] == -0.1 and table.arm_b[2] == "bound 1.19e-05"
    assert math.isnan(table.difference[3]) and table.reason[3] == "no runs of momentum_stiefel | here"


def test_markdown_says_the_verdicts_in_words_with_the_legend():
    md = render.to_markdown(_rows())
    header, rule, *body = md.split("\n\n")[0].splitlines()
    assert [c.strip() for c in header.strip("|").split("|")] == render.DISPLAY_COLUMNS
    assert len(body) == 4
    assert "| +1.03 [+0.947, +1.12]" in body[0] and "| 0.31 vs 1.34 " in body[0]
    assert "consistent (~98 seeds per arm would decide)" in body[1] and "on par within 0.1" in body[1]
    assert "adam_stiefel 2855, adam_euclidean 2783 (Table 2, CPU" in body[1]
    assert r"not testable here: no runs of momentum_stiefel \| here" in body[3]  # a '|' kept out of the columns
    assert md.rstrip().endswith(render.LEGEND)
    claim = data.load("brantner")["stiefel_adam_below_euclidean"]
    same = engine.judge(claim, claim.cells[0], [1, 1, 1], [1, 1, 1])  # d = 0: no seeds decide
    tiny = engine.judge(claim, claim.cells[0], [1, 2, 3], [1.000001, 2.000001, 3.000001])
    assert render.display(same)["verdict"] == "inconclusive (no number of seeds would decide: no difference)"
    assert render.display(tiny)["verdict"] == "consistent (more than 100,000 seeds per arm would be needed)"


def test_latex_is_a_booktabs_table_with_escaped_text():
    tex = render.to_latex(_rows(), label="tab:brantner-claims")
    lines = tex.splitlines()
    assert lines[:3] == [r"\begin{table}", r"\centering", r"\small"] and lines[-1] == r"\end{table}"
    assert [i for i, l in enumerate(lines) if l in (r"\toprule", r"\midrule", r"\bottomrule")] == [4, 6, 11]
    rows = lines[7:11]
    assert all(r.endswith(r" \\") and r.count(" & ") == len(render.DISPLAY_COLUMNS) - 1 for r in rows)
    assert r"stiefel\_adam\_below\_euclidean" in rows[0] and r"\textasciitilde{}98 seeds" in rows[1]
    assert r"95 \% interval" in lines[5] and r"$|$ here" in rows[3]
    assert r"\label{tab:brantner-claims}" in tex and r"\caption{Difference: ours" in tex
    assert "_" not in tex.replace(r"\_", "")  # every underscore escaped
    assert render.latex_escape("a ± b ≥ c & 5 % $x^2$ {y} ~z") == \
        r"a $\pm$ b $\geq$ c \& 5 \% \$x\textasciicircum{}2\$ \{y\} \textasciitilde{}z"
