"""The verdict summary that opens each paper's section of results/index.html, read from the claims CSVs
(results/<paper>/<profile>/*claims.csv): the cells' verdicts counted for the paper's own claims and for
ours, each as a coloured bar, then one line per claim (its sentence from claims/<paper>.yaml, its counts,
a link to its first row in the claims tables); and the legend of the verdicts' colours."""

import html
from pathlib import Path

import pandas as pd

from noneuclid import prose
from noneuclid.claims import data as claims_data
from noneuclid.claims.data import KINDS
from noneuclid.claims.engine import VERDICTS


def verdict_class(verdict: str) -> str:
    """The CSS class of a verdict: verdict-reproduces, ..., verdict-not-testable (for 'not testable here')."""
    return "verdict-" + verdict.removesuffix(" here").replace(" ", "-")


def claim_anchor(paper: str, claim: str) -> str:
    """The id of the claim's first row in the page's claims tables."""
    return f"claim-{paper}-{claim}"


def legend() -> str:
    """One swatch per verdict, in the engine's order."""
    return " ".join(f'<span class="verdict {verdict_class(v)}">{v}</span>' for v in VERDICTS)


def read(folder: Path) -> pd.DataFrame:
    """claim, kind and verdict of every cell in the folder's *claims.csv (by file name; none: no rows)."""
    frames = [pd.read_csv(path, usecols=["claim", "kind", "verdict"]) for path in sorted(folder.glob("*claims.csv"))]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["claim", "kind", "verdict"])


def bar(verdicts: pd.Series) -> str:
    """The verdicts' counts as a bar of coloured segments, each as wide as its count, then in words."""
    counts = verdicts.value_counts()
    used = [(v, int(counts[v])) for v in VERDICTS if v in counts]
    segments = "".join(f'<span class="{verdict_class(v)}" style="flex: {n}" title="{n} {v}"></span>' for v, n in used)
    words = " · ".join(f'<span class="verdict {verdict_class(v)}">{n} {v}</span>' for v, n in used)
    return f'<span class="bar">{segments}</span> {words}'


def claim_line(paper: str, claim: str, verdicts: pd.Series) -> str:
    """A row of the summary's claims: the claim's sentence and id (linked to its cells), its counts."""
    found = claims_data.load(paper)[claim]
    return prose.fill("index", "summary_claim", anchor=claim_anchor(paper, claim), claim=html.escape(claim),
                      kind=found.kind, text=html.escape(found.text), cells=len(verdicts), bar=bar(verdicts))


def summary(paper: str, folder: Path) -> str:
    """The paper's summary (an element of class summary), "" where the folder has no claims CSV."""
    cells = read(folder)
    if cells.empty:
        return ""
    kinds = [prose.fill("index", f"summary_{kind}", cells=len(rows), claims=rows.claim.nunique(), bar=bar(rows.verdict))
             for kind in KINDS if len(rows := cells[cells.kind == kind])]
    known = [c.id for c in claims_data.load(paper).claims]  # the claims file's order; one it lacks: claim_line says so
    order = sorted(cells.claim.unique(), key=lambda claim: known.index(claim) if claim in known else len(known))
    lines = [claim_line(paper, claim, cells.verdict[cells.claim == claim]) for claim in order]
    return prose.fill("index", "summary", kinds="".join(kinds), claims="".join(lines))
