"""The claims digest of a paper's results folder, copied into its report docs/<paper>.md between the
markers <!-- results:<paper>:start --> and <!-- results:<paper>:end -->; and the README's count of every
paper's verdicts (the paper's claims and ours apart), between <!-- status:start --> and <!-- status:end -->."""

import os
import re
from pathlib import Path

import pandas as pd

from noneuclid import papers, prose
from noneuclid.claims import data, plan
from noneuclid.claims.engine import DECIDED, VERDICTS, Verdict
from noneuclid.claims.render import CSV_COLUMNS, LEGEND, display

WHOSE = {"paper": "the paper", "ours": "ours"}  # the digest's total row of each kind of claim (claims.data.KINDS)


def update(report: Path, folder: Path, paper: str) -> bool:
    """Replace the results block of the paper's report (docs/<paper>.md) with digest(folder, paper), its links
    relative to that file; False when the file, the block or a claims table is missing."""
    text = digest(folder, paper)
    if text is None:
        return False
    body = re.sub(r"\]\((?!http)", "](" + os.path.relpath(folder, report.parent) + "/", text)
    return prose.replace_block(report, f"results:{paper}", body)


def claims_files(folder: Path) -> list[Path]:
    """The folder's *claims.csv: claims.csv, then table*_claims.csv, then the others, by name."""
    files = Path(folder).glob("*claims.csv")
    return sorted(files, key=lambda p: (p.name != "claims.csv", not p.name.startswith("table"), p.name))


def read(folder: Path) -> pd.DataFrame:
    """Every cell of the folder's claims tables (claims_files' rows in order); none: an empty frame."""
    frames = [pd.read_csv(f) for f in claims_files(folder)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def read_current(folder: Path) -> pd.DataFrame:
    """read(folder), where every table has today's columns (CSV_COLUMNS); else an error that says how to
    redraw the table written before one of them."""
    for file in claims_files(folder):
        if lacking := [c for c in CSV_COLUMNS if c not in pd.read_csv(file, nrows=0)]:
            paper, profile = Path(folder).parent.name, Path(folder).name
            raise ValueError(
                f"{file} lacks {', '.join(lacking)}: redraw it, python -m noneuclid.report {paper} --profile {profile}"
            )
    return read(folder)


def digest(folder: Path, paper: str) -> str | None:
    """Markdown: each claim (in the paper's words) with its cells counted by verdict, every decided cell
    (reproduces or contradicts), the legend and links to the full tables and pages; None without tables."""
    files, rows = claims_files(folder), read_current(folder)
    if not files:
        return None
    texts = {c.id: c.text for c in data.load(paper).claims}
    by_claim = rows.groupby("claim", sort=False)
    counts = [_tally(group, claim, texts.get(claim, ""), group.source.iloc[0]) for claim, group in by_claim]
    counts += [_tally(group, f"all of {WHOSE[kind]}") for kind, group in rows.groupby("kind")]
    decided = [
        display(Verdict(**{k: row[k] for k in CSV_COLUMNS}, paper=""))
        for _, row in rows[rows.verdict.isin(DECIDED)].iterrows()
    ]
    columns = ["claim", "cell", "arms", "relation", "ours", "difference [95 % interval]", "verdict"]
    links = ", ".join(f"[{f.name[:-4]}.md]({f.name[:-4]}.md)" for f in files)
    parts = [prose.fill("digest", "intro", profile=Path(folder).name, key=paper), _markdown(pd.DataFrame(counts))]
    if decided:
        parts += [prose.fill("digest", "decided"), _markdown(pd.DataFrame(decided, columns=columns))]
    pages = ", ".join(f"[{stem}.md]({stem}.md)" for stem in papers.PAPERS[paper].pages)
    parts += [LEGEND, prose.fill("digest", "links", links=links, pages=pages)]
    return "\n\n".join(parts) + "\n"


def _counts(cells: pd.DataFrame) -> dict[str, int]:
    """The number of cells, and how many of them have each verdict (at the adjusted level)."""
    tally = cells.verdict.value_counts()
    return {"cells": len(cells), **{v: int(tally.get(v, 0)) for v in VERDICTS}}


def _tally(cells: pd.DataFrame, claim: str, says: str = "", source: str = "") -> dict:
    """A row of the digest: the claim, whose it is (kind), its cells' _counts, how many of them were judged by
    a rule registered after their runs, and how many were decided after more looks than validated."""
    row = {"claim": claim, "kind": "/".join(sorted(set(cells.kind))), "the paper says": says, "source": source}
    flags = {"rule after runs": cells.rule_after_runs, "beyond validated looks": cells.beyond_validated_looks}
    return row | _counts(cells) | {name: int(flag.astype(bool).sum()) for name, flag in flags.items()}


def status(results: Path) -> str:
    """Markdown: per paper and profile, the cells of the paper's claims and of ours by verdict, the share
    decided (reproduces or contradicts, at the adjusted level) and how many of those decided cells had more
    looks than validated for their kind of interval."""
    rows = []
    for folder in sorted(p for p in Path(results).glob("*/*") if any(p.glob("*claims.csv"))):
        where = {"paper": folder.parent.name, "profile": folder.name}
        for kind, group in read_current(folder).groupby("kind"):
            done, cells = plan.decided_share(group)
            beyond = int(group.beyond_validated_looks.astype(bool).sum())  # of the decided cells
            shares = {"decided": f"{done / cells:.0%}", "beyond validated looks": beyond}
            rows.append({**where, "claims": kind, **_counts(group), **shares})
    return _markdown(pd.DataFrame(rows))


def _markdown(frame: pd.DataFrame) -> str:
    return frame.map(lambda v: v.replace("|", r"\|") if isinstance(v, str) else v).to_markdown(index=False)
