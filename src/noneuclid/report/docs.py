"""Copy a paper's results into its reproduction report docs/<paper>.md, between the block's markers:

    <!-- results:brantner:start --> ... <!-- results:brantner:end -->

Paper key X (papers.PAPERS) has its report in <docs>/X.md. The block is the claims digest of the paper's
results folder (digest(): each claim with its verdicts counted, then the decided cells), short enough
for a report of a few hundred lines, with links to the full tables.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pandas as pd

from noneuclid import papers
from noneuclid.claims import data
from noneuclid.claims.engine import CONTRADICTS, REPRODUCES, VERDICTS, Verdict
from noneuclid.claims.render import CSV_COLUMNS, LEGEND, display


def path(docs: Path, paper: str) -> Path:
    """The report of paper key `paper` in the docs folder."""
    return Path(docs) / f"{paper}.md"


def update(docs: Path, folder: Path, paper: str) -> bool:
    """Replace the block of <docs>/<paper>.md with digest(folder, paper), its links made relative to that
    file; False when the file, the block or a *claims.csv in folder is missing."""
    report, text = path(docs, paper), digest(folder, paper)
    start, end = f"<!-- results:{paper}:start -->", f"<!-- results:{paper}:end -->"
    if not report.exists() or text is None:
        return False
    report_text = report.read_text()
    if start not in report_text or end not in report_text:
        return False
    body = re.sub(r"\]\((?!http)", "](" + os.path.relpath(folder, report.parent) + "/", text)
    pattern = re.compile(re.escape(start) + ".*?" + re.escape(end), re.S)
    report.write_text(pattern.sub(lambda _: f"{start}\n{body}\n{end}", report_text))
    return True


def claims_files(folder: Path) -> list[Path]:
    """The claims tables of a results folder: claims.csv, then the tables' (table*_claims.csv), then the
    others (fig4_claims.csv)."""
    return sorted(Path(folder).glob("*claims.csv"),
                  key=lambda p: (p.name != "claims.csv", not p.name.startswith("table"), p.name))


def digest(folder: Path, paper: str) -> str | None:
    """Markdown: each claim of folder's claims tables (in the paper's words, from claims/<paper>.yaml)
    with its cells counted by verdict, then every decided cell (reproduces or contradicts) with our
    numbers, the legend, and links to the full tables and the paper's pages (papers.PAPERS[paper].pages:
    summary.md and the like); None without a claims table."""
    files = claims_files(folder)
    if not files:
        return None
    rows = pd.concat([pd.read_csv(f) for f in files], ignore_index=True)
    texts = {c.id: c.text for c in data.load(paper).claims} if paper in data.papers() else {}
    counts = []
    for claim, cells in rows.groupby("claim", sort=False):
        tally = cells.verdict.value_counts()
        counts.append({"claim": claim, "the paper says": texts.get(claim, ""), "source": cells.source.iloc[0],
                       "cells": len(cells), **{v: int(tally.get(v, 0)) for v in VERDICTS}})
    tally = rows.verdict.value_counts()
    counts.append({"claim": "all", "the paper says": "", "source": "", "cells": len(rows),
                   **{v: int(tally.get(v, 0)) for v in VERDICTS}})
    decided = [display(Verdict(**{k: row[k] for k in CSV_COLUMNS}, paper=""))
               for _, row in rows[rows.verdict.isin([REPRODUCES, CONTRADICTS])].iterrows()]
    columns = ["claim", "cell", "arms", "relation", "ours", "difference [95 % interval]", "verdict"]
    links = ", ".join(f"[{f.name[:-4]}.md]({f.name[:-4]}.md)" for f in files)
    parts = [f"The claims engine's verdicts on our runs ({Path(folder).name} profile), claim by claim "
             f"(claims/{paper}.yaml):", _markdown(pd.DataFrame(counts))]
    if decided:
        parts += ["The decided cells (arms: the one the claim favours first):",
                  _markdown(pd.DataFrame(decided, columns=columns))]
    stems = papers.PAPERS[paper].pages if paper in papers.PAPERS else ("summary",)
    pages = ", ".join(f"[{stem}.md]({stem}.md)" for stem in stems)
    parts += [LEGEND, f"Every cell with its numbers and the paper's: {links}; every table and figure: {pages}."]
    return "\n\n".join(parts) + "\n"


def _markdown(frame: pd.DataFrame) -> str:
    return frame.map(lambda v: v.replace("|", r"\|") if isinstance(v, str) else v).to_markdown(index=False)
