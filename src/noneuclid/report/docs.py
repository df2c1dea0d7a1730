"""Copy a paper's results into its reproduction report docs/<paper>.md, between the block's markers:

    <!-- results:brantner:start --> ... <!-- results:brantner:end -->

Paper key X (papers.PAPERS) has its report in <docs>/X.md; a report may hold several blocks, each
named by its markers (docs/hnn.md: `hnn` from summary.md and `hnn_table2` from table2.md).
"""

from __future__ import annotations

import os
import re
from pathlib import Path


def path(docs: Path, paper: str) -> Path:
    """The report of paper key `paper` in the docs folder."""
    return Path(docs) / f"{paper}.md"


def update(docs: Path, folder: Path, paper: str, block: str | None = None, source: str = "summary.md") -> bool:
    """Replace block `block` (default: the paper key) of <docs>/<paper>.md with folder/<source>, its
    links made relative to that file; False when the file, the block or the source is missing."""
    block = block or paper
    report = path(docs, paper)
    start, end = f"<!-- results:{block}:start -->", f"<!-- results:{block}:end -->"
    if not report.exists() or not (folder / source).exists():
        return False
    text = report.read_text()
    if start not in text or end not in text:
        return False
    prefix = os.path.relpath(folder, report.parent) + "/"
    body = re.sub(r"\]\((?!http)", "](" + prefix, (folder / source).read_text())
    body = re.sub(r"^# ", "### ", body, flags=re.M)
    body = re.sub(r"^## ", "#### ", body, flags=re.M)
    pattern = re.compile(re.escape(start) + ".*?" + re.escape(end), re.S)
    report.write_text(pattern.sub(lambda _: f"{start}\n{body}\n{end}", text))
    return True
