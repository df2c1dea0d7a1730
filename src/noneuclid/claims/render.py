"""The claims table, one row per claim cell (engine.Verdict), as CSV (one number per column), Markdown
and LaTeX (booktabs), with the legend, the rules behind the verdicts, as the caption every page shows:
legend(rows) names the intervals the table's rows use (INTERVALS) and the caps of their seeds-to-decide
estimates (CAPS); LEGEND names them all."""

from __future__ import annotations

import math
from dataclasses import asdict, fields
from typing import Iterable

import pandas as pd

from noneuclid.claims.data import ON_PAR
from noneuclid.claims.engine import (CONSISTENT, EXACT, INCONCLUSIVE, MAX_SEEDS, NOT_TESTABLE, ONE_ARM, PAIRED, SHARES,
                                     SHARES_MAX_SEEDS, WELCH, Verdict)

LEGEND_TEMPLATE = (
    "Difference: ours, in the paper's direction (> 0 is what the paper says of the first arm), with its 95 % "
    "interval: {intervals}. An on-par claim holds down to minus its tolerance. reproduces: the interval lies "
    "past that boundary (0, or minus the tolerance) on the paper's side; contradicts: on the other side; "
    "consistent: the interval holds the boundary, the difference is on the paper's side; inconclusive: the "
    "interval holds the boundary, the difference is not on the paper's side; both say about how many seeds "
    "per arm would decide at the same difference and spread ({caps}). Where every seed gives the same value, "
    "the interval has zero width and the exact test of the order the seeds show decides instead (the sign "
    "test, p = 2 / 2^n_a; for two arms the permutation test, p = 2 / C(n_a + n_b, n_a)). not testable here: "
    "a stated precondition fails (the reason is given).")
INTERVALS = {  # engine.INTERVALS in words, for the legend
    WELCH: "Welch's t-interval (unequal variances; t at the Welch-Satterthwaite degrees of freedom, fractional)",
    PAIRED: "Student's t-interval of the per-seed differences where the seeds are paired (n - 1 degrees of freedom)",
    ONE_ARM: "against a bound, Student's t-interval of the per-seed values (n - 1 degrees of freedom)",
    SHARES: ("for shares of seeds (such as runs that failed), the exact Clopper-Pearson interval of each share, "
             "squared and added as in Newcombe's interval for a difference of shares"),
    EXACT: ("for one exact value of a fixed artifact (such as the authors' stored network), the value plus or "
            "minus its floating-point rounding bound"),
}
CAPS = f"searched up to {MAX_SEEDS:,} seeds per arm", f"up to {SHARES_MAX_SEEDS:,} for shares"  # t-intervals, shares
CSV_COLUMNS = [f.name for f in fields(Verdict) if f.name not in ("paper", "label")]  # text repeats of numbers
DISPLAY_COLUMNS = ["claim", "cell", "source", "metric", "arms", "relation", "n", "ours", "difference [95 % interval]",
                   "verdict", "paper"]


def frame(rows: Iterable[Verdict]) -> pd.DataFrame:
    """The rows as a DataFrame, one number per column (the CSV's)."""
    return pd.DataFrame([asdict(r) for r in rows], columns=[f.name for f in fields(Verdict)])[CSV_COLUMNS]


def to_csv(rows: Iterable[Verdict]) -> str:
    return frame(rows).to_csv(index=False)


def legend(rows: Iterable[Verdict] = ()) -> str:
    """The legend naming the intervals the rows use (every one where no row was judged) and the caps of
    their seeds-to-decide estimates."""
    used = {r.interval for r in rows} & set(INTERVALS) or set(INTERVALS)
    caps = [CAPS[0]] * bool(used - {SHARES, EXACT}) + [CAPS[1]] * (SHARES in used)
    return LEGEND_TEMPLATE.format(intervals="; ".join(INTERVALS[i] for i in INTERVALS if i in used),
                                  caps="; ".join(caps))


LEGEND = legend()  # every interval: for a page that gathers several claims tables


def to_markdown(rows: Iterable[Verdict]) -> str:
    """A Markdown table of display(row) per row ('|' escaped), then the legend."""
    rows = list(rows)
    table = pd.DataFrame([{k: v.replace("|", r"\|") for k, v in display(r).items()} for r in rows],
                         columns=DISPLAY_COLUMNS)
    return table.to_markdown(index=False) + "\n\n" + legend(rows) + "\n"


def to_latex(rows: Iterable[Verdict], label: str = "tab:claims") -> str:
    """A booktabs table of display(row) per row, every cell escaped for LaTeX, with the legend as caption."""
    rows = list(rows)
    spec = "".join("p{3cm}" if c in ("cell", "verdict", "paper") else "l" for c in DISPLAY_COLUMNS)
    cells = ([latex_escape(v) for v in display(r).values()] for r in rows)
    return booktabs(spec, DISPLAY_COLUMNS, cells, legend(rows), label)


def booktabs(spec: str, columns: Iterable[str], rows: Iterable[Iterable[str]], caption: str, label: str) -> str:
    """A LaTeX table in booktabs rules (column spec `spec`): the column names and caption escaped, the rows'
    cells as given (already LaTeX), and the label."""
    lines = [r"\begin{table}", r"\centering", r"\small", rf"\begin{{tabular}}{{{spec}}}", r"\toprule",
             " & ".join(map(latex_escape, columns)) + r" \\", r"\midrule",
             *(" & ".join(row) + r" \\" for row in rows),
             r"\bottomrule", r"\end{tabular}", rf"\caption{{{latex_escape(caption)}}}", rf"\label{{{label}}}",
             r"\end{table}"]
    return "\n".join(lines) + "\n"


def display(row: Verdict) -> dict[str, str]:
    """One row in words and rounded numbers (DISPLAY_COLUMNS)."""
    tested = row.verdict != NOT_TESTABLE
    return {
        "claim": row.claim, "cell": row.cell, "source": row.source, "metric": row.label or row.metric,
        "arms": f"{row.arm_a} vs {row.arm_b}",
        "relation": f"on par within {-row.boundary:g}" if row.relation == ON_PAR else "better",
        "n": f"{row.n_a} pairs" if row.paired else f"{row.n_a}" + (f" + {row.n_b}" if row.n_b else ""),
        "ours": f"{_number(row.mean_a)} vs {_number(row.mean_b)}" if tested else "",
        "difference [95 % interval]": (f"{_number(row.difference, '+')} [{_number(row.ci_low, '+')}, "
                                       f"{_number(row.ci_high, '+')}]") if tested else "",
        "verdict": _verdict(row),
        "paper": f"{row.paper} ({row.paper_source})" if row.paper else "",
    }


def _verdict(row: Verdict) -> str:
    if row.verdict == NOT_TESTABLE:
        return f"{row.verdict}: {row.reason}"
    reason = row.reason if isinstance(row.reason, str) else ""  # a row read back from a CSV has nan for ""
    notes = ([reason] if reason else []) + (_seeds(row) if row.verdict in (CONSISTENT, INCONCLUSIVE) else [])
    return f"{row.verdict} ({'; '.join(notes)})" if notes else row.verdict


def _seeds(row: Verdict) -> list[str]:
    """The seeds-to-decide estimate in words ([] where there is none: a zero-width interval)."""
    if math.isnan(row.seeds_to_decide):
        return []
    if not math.isinf(row.seeds_to_decide):
        return [f"~{row.seeds_to_decide:.0f} seeds per arm would decide"]
    if row.difference == row.boundary:
        return ["no number of seeds would decide: no difference"]
    return [f"more than {SHARES_MAX_SEEDS if row.interval == SHARES else MAX_SEEDS:,} seeds per arm would be needed"]


def _number(x: float, sign: str = "") -> str:
    """Three significant digits (1.34, 0.254, 1.19e-05, 2.86e+03)."""
    return f"{x:{sign}.3g}"


LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
         "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "±": r"$\pm$", "≥": r"$\geq$",
         "≤": r"$\leq$", "≈": r"$\approx$", "×": r"$\times$", "<": r"$<$", ">": r"$>$", "|": r"$|$", "−": "-",
         "–": "--", "—": "---", "\n": " "}


def latex_escape(text: str) -> str:
    """text with LaTeX's special characters escaped and a few symbols written as LaTeX."""
    return "".join(LATEX.get(ch, ch) for ch in str(text))
