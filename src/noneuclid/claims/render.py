"""The claims table, one row per claim cell (engine.Verdict), as CSV (one number per column), Markdown
and LaTeX (booktabs), with the legend, the rules behind the verdicts, as the caption every page shows:
legend(rows) names the intervals the table's rows use (INTERVALS) and the caps of their seeds-to-decide
estimates (CAPS); LEGEND names them all."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import asdict, fields
from pathlib import Path

import pandas as pd

from noneuclid import tables
from noneuclid.claims.data import AT_LEAST, ON_PAR
from noneuclid.claims.engine import (
    CONSISTENT,
    EXACT,
    INCONCLUSIVE,
    MAX_SEEDS,
    NOT_TESTABLE,
    ONE_ARM,
    PAIRED,
    SHARES,
    SHARES_MAX_SEEDS,
    WELCH,
    Verdict,
)
from noneuclid.claims.significance import ALPHA

LEGEND_TEMPLATE = (
    "Difference: ours, in the paper's direction (> 0 is what the paper says of the first arm), with its 95 % "
    "interval: {intervals}. The relation is the paper's: better (superiority), at least (non-inferiority down to "
    "minus delta), on par (equivalence within plus or minus delta); delta is the claim's smallest effect of "
    "interest. reproduces: the interval lies above 0 (better), above minus delta (at least) or inside plus or "
    "minus delta (on par); contradicts: it lies below 0 or below minus delta, or, for better, inside plus or "
    "minus delta (no effect as large as delta), or, for on par, wholly beyond delta; consistent: not decided, "
    "the difference on the claim's side; inconclusive: not decided, the difference on the other side; both say "
    "about how many seeds per arm would decide at the same difference and spread, at the claim's adjusted level "
    "(the cell's p below 5 % over the number of the claim's judged cells, where Holm's method decides it whatever "
    "the other cells show; {caps}). Each test's p-value is "
    "adjusted over the claim's cells by Holm's method and the verdict read at the adjusted level of its look (p: "
    "adjusted, unadjusted): 5 % at a cell's first look, stricter at a look after seeds were added (the level is "
    "named; results/engine/levels.csv); a verdict that the adjustment changed names its per-cell verdict. Where "
    "every seed gives the same value, the interval has zero width and the exact test of the order the seeds show "
    "decides instead (the sign test, p = 2 / 2^n_a; for two arms the permutation test, p = 2 / C(n_a + n_b, n_a)). "
    "not testable here: a stated precondition fails (the reason is given). rule after runs: the claim's rule was "
    "registered after the newest of its runs. beyond validated looks: decided after more looks (seed counts it "
    "was judged at, over its table's history) than the validation of the levels covers for its kind of interval "
    "(results/engine/levels.csv)."
)
INTERVALS = {  # engine.INTERVALS in words, for the legend
    WELCH: "Welch's t-interval (unequal variances; t at the Welch-Satterthwaite degrees of freedom, fractional)",
    PAIRED: "Student's t-interval of the per-seed differences where the seeds are paired (n - 1 degrees of freedom)",
    ONE_ARM: "against a bound, Student's t-interval of the per-seed values (n - 1 degrees of freedom)",
    SHARES: (
        "for shares of seeds (such as runs that failed), the exact Clopper-Pearson interval of each share, "
        "squared and added as in Newcombe's interval for a difference of shares"
    ),
    EXACT: (
        "for one exact value of a fixed artifact (such as the authors' stored network), the value plus or "
        "minus its floating-point rounding bound"
    ),
}
CAPS = f"searched up to {MAX_SEEDS:,} seeds per arm", f"up to {SHARES_MAX_SEEDS:,} for shares"  # t-intervals, shares
NOT_COLUMNS = ("paper", "label", "runs", "basis")  # text the other columns repeat, run names, the engine's basis
CSV_COLUMNS = [f.name for f in fields(Verdict) if f.name not in NOT_COLUMNS]
DISPLAY_COLUMNS = [
    "claim",
    "cell",
    "source",
    "metric",
    "arms",
    "relation",
    "n",
    "ours",
    "difference [95 % interval]",
    "p",
    "verdict",
    "paper",
]
RELATIONS = {ON_PAR: "on par within ±{:g}", AT_LEAST: "at least, down to -{:g}"}  # else: better (delta)


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
    return LEGEND_TEMPLATE.format(
        intervals="; ".join(INTERVALS[i] for i in INTERVALS if i in used), caps="; ".join(caps)
    )


LEGEND = legend()  # every interval: for a page that gathers several claims tables


def to_markdown(rows: Iterable[Verdict]) -> str:
    """A Markdown table of display(row) per row ('|' escaped), then the legend."""
    rows = list(rows)
    table = pd.DataFrame(
        [{k: v.replace("|", r"\|") for k, v in display(r).items()} for r in rows], columns=DISPLAY_COLUMNS
    )
    return table.to_markdown(index=False) + "\n\n" + legend(rows) + "\n"


def to_latex(rows: Iterable[Verdict], label: str = "tab:claims") -> str:
    """A booktabs table of display(row) per row, every cell escaped for LaTeX, with the legend as caption."""
    rows = list(rows)
    spec = "".join("p{3cm}" if c in ("cell", "verdict", "paper") else "l" for c in DISPLAY_COLUMNS)
    cells = ([tables.latex_escape(v) for v in display(r).values()] for r in rows)
    return tables.booktabs(spec, DISPLAY_COLUMNS, cells, legend(rows), label)


def display(row: Verdict) -> dict[str, str]:
    """One row in words and rounded numbers (DISPLAY_COLUMNS)."""
    tested = row.verdict != NOT_TESTABLE
    return {
        "claim": row.claim,
        "cell": row.cell,
        "source": row.source,
        "metric": row.label or row.metric,
        "arms": f"{row.arm_a} vs {row.arm_b}",
        "relation": RELATIONS.get(row.relation, "better (delta {:g})").format(row.delta),
        "n": f"{row.n_a} pairs" if row.paired else f"{row.n_a}" + (f" + {row.n_b}" if row.n_b else ""),
        "ours": f"{_number(row.mean_a)} vs {_number(row.mean_b)}" if tested else "",
        "difference [95 % interval]": (
            f"{_number(row.difference, '+')} [{_number(row.ci_low, '+')}, {_number(row.ci_high, '+')}]"
        )
        if tested
        else "",
        "p": f"{_p(row.p_adjusted)}, {_p(row.p_value)}" if tested else "",
        "verdict": _verdict(row),
        "paper": f"{row.paper} ({row.paper_source})" if row.paper else "",
    }


def _verdict(row: Verdict) -> str:
    flag = " [rule after runs]" if row.rule_after_runs is True else ""
    flag += " [beyond validated looks]" if row.beyond_validated_looks is True else ""
    if row.verdict == NOT_TESTABLE:
        return f"{row.verdict}: {row.reason}{flag}"
    reason = row.reason if isinstance(row.reason, str) else ""  # a row read back from a CSV has nan for ""
    unadjusted = row.verdict_unadjusted if isinstance(row.verdict_unadjusted, str) else ""
    notes = (
        ([reason] if reason else [])
        + (_seeds(row) if row.verdict in (CONSISTENT, INCONCLUSIVE) else [])
        + ([f"{unadjusted} before the adjustment"] if unadjusted and unadjusted != row.verdict else [])
        + ([f"read at look {row.looks:.0f}'s level, {row.alpha:.2g}"] if row.alpha < ALPHA else [])
    )
    return (f"{row.verdict} ({'; '.join(notes)})" if notes else row.verdict) + flag


def _p(p: float) -> str:
    """A p-value in two significant digits ('<1e-6' below that)."""
    return "<1e-6" if p < 1e-6 else f"{p:.2g}"


def _seeds(row: Verdict) -> list[str]:
    """The seeds-to-decide estimate in words ([] where there is none: a zero-width interval)."""
    if math.isnan(row.seeds_to_decide) or row.seeds_to_decide <= min(row.n_a, row.n_b or row.n_a):
        return []
    if not math.isinf(row.seeds_to_decide):
        return [f"~{row.seeds_to_decide:.0f} seeds per arm would decide"]
    if abs(row.difference) in (0.0, row.delta):
        return ["no number of seeds would decide: the difference lies on a boundary"]
    return [f"more than {SHARES_MAX_SEEDS if row.interval == SHARES else MAX_SEEDS:,} seeds per arm would be needed"]


def _number(x: float, sign: str = "") -> str:
    """Three significant digits (1.34, 0.254, 1.19e-05, 2.86e+03)."""
    return f"{x:{sign}.3g}"


def write(out: Path, stem: str, rows: list[Verdict], title: str | None = None) -> str:
    """out/<stem>.csv, .md (under `title`, when given) and .tex of the verdicts; returns the Markdown table."""
    out.mkdir(parents=True, exist_ok=True)
    md = to_markdown(rows)
    (out / f"{stem}.csv").write_text(to_csv(rows))
    (out / f"{stem}.md").write_text(f"# {title}\n\n{md}" if title else md)
    (out / f"{stem}.tex").write_text(to_latex(rows, tables.label(out, stem)))
    return md
