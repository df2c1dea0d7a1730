"""The verdict summary that opens each paper's section of results/index.html, from its claims CSVs: the cells'
verdicts counted for the paper's claims and for ours as coloured bars, the budget (our training hours beside a
paper-scale reproduction's), one line per claim (its sentence, counts, reasons not testable, a link to its first
row in the claims tables); and the legend of the verdicts' colours."""

import html
from pathlib import Path

import pandas as pd

from noneuclid import prose
from noneuclid.bench.paper_scale_docs import totals
from noneuclid.claims import data as claims_data
from noneuclid.claims.data import KINDS
from noneuclid.claims.engine import NOT_TESTABLE, VERDICTS
from noneuclid.report import docs


def verdict_class(verdict: str) -> str:
    """The CSS class of a verdict: verdict-reproduces, ..., verdict-not-testable (for 'not testable here')."""
    return "verdict-" + verdict.removesuffix(" here").replace(" ", "-")


def claim_anchor(paper: str, claim: str) -> str:
    """The id of the claim's first row in the page's claims tables."""
    return f"claim-{paper}-{claim}"


def legend() -> str:
    """One swatch per verdict, in the engine's order."""
    return " ".join(f'<span class="verdict {verdict_class(v)}">{v}</span>' for v in VERDICTS)


def bar(verdicts: pd.Series) -> str:
    """The verdicts' counts as a bar of coloured segments, each as wide as its count, then in words."""
    counts = verdicts.value_counts()
    used = [(v, int(counts[v])) for v in VERDICTS if v in counts]
    segments = "".join(f'<span class="{verdict_class(v)}" style="flex: {n}" title="{n} {v}"></span>' for v, n in used)
    words = " · ".join(f'<span class="verdict {verdict_class(v)}">{n} {v}</span>' for v, n in used)
    return f'<span class="bar">{segments}</span> {words}'


def claim_line(paper: str, claim: str, cells: pd.DataFrame) -> str:
    """A row of the summary's claims: the claim's sentence and id (linked to its cells), its cells' counts and
    the distinct reasons of those not testable here (folded)."""
    found = claims_data.load(paper)[claim]
    reasons = cells.reason[cells.verdict == NOT_TESTABLE].dropna().unique()
    why = prose.fill("index", "summary_untested", reasons="".join(f"<li>{html.escape(r)}</li>" for r in reasons))
    text = dict(
        anchor=claim_anchor(paper, claim), claim=html.escape(claim), kind=found.kind, text=html.escape(found.text)
    )
    counted = dict(cells=len(cells), bar=bar(cells.verdict), why=why if len(reasons) else "")
    return prose.fill("index", "summary_claim", **text, **counted)


def budget(paper: str, runs: pd.DataFrame, hardware: pd.Series, bench: Path) -> str:
    """The budget line: our runs' training hours (runs.csv's train_seconds; `hardware`: the cells' machines, as
    "A; B"), then, per device that `bench` (results/bench/) has timed, a full paper-scale reproduction's hours
    (paper_scale_docs.totals); "" without train_seconds."""
    if "train_seconds" not in runs:
        return ""
    machines = sorted({m for found in hardware.dropna() for m in str(found).split("; ")})
    scale = [
        prose.fill("index", "summary_scale", hours=row.sweep_hours, runs=row.runs, device=row.device, file=path.name)
        for path in sorted(bench.glob("paper_scale_*.csv"))
        for row in totals(pd.read_csv(path)).itertuples()
        if row.paper == paper
    ]
    hours, hardware = runs.train_seconds.sum() / 3600, ", ".join(machines)
    return prose.fill("index", "summary_budget", runs=len(runs), hours=hours, hardware=hardware, scale="".join(scale))


def summary(paper: str, folder: Path, runs: pd.DataFrame, bench: Path) -> str:
    """The paper's summary (an element of class summary), "" where the folder has no claims CSV; `runs`: its
    runs.csv, `bench`: results/bench/ (budget)."""
    cells = docs.read(folder)
    if cells.empty:
        return ""
    kinds = [
        prose.fill("index", f"summary_{kind}", cells=len(rows), claims=rows.claim.nunique(), bar=bar(rows.verdict))
        for kind in KINDS
        if len(rows := cells[cells.kind == kind])
    ]
    known = [c.id for c in claims_data.load(paper).claims]  # the claims file's order; one it lacks: claim_line says so
    order = sorted(cells.claim.unique(), key=lambda claim: known.index(claim) if claim in known else len(known))
    lines = [claim_line(paper, claim, cells[cells.claim == claim]) for claim in order]
    budgeted = budget(paper, runs, cells.hardware, bench)
    return prose.fill("index", "summary", kinds="".join(kinds), budget=budgeted, claims="".join(lines))
