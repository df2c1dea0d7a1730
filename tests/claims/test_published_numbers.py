"""Each published number lives once, in claims/<paper>.yaml: no number of a paper's cells or of its
reference block (three or more significant digits, so that 0.5 or 30 do not count) is written as a
number in the package's Python code (comments and docstrings may cite them). The papers are the registry's
(papers.PAPERS, with those kept outside the package: their folders are read too)."""

from __future__ import annotations

import io
import math
import tokenize
from pathlib import Path

from noneuclid import extensions, papers
from noneuclid.claims import data

SRC = Path(data.__file__).resolve().parents[1]


def _numbers(value) -> set[float]:
    """Every number in a loaded YAML value (nested mappings and lists)."""
    if isinstance(value, bool):
        return set()
    if isinstance(value, (int, float)):
        return {float(value)} if math.isfinite(value) else set()
    items = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else ()
    return set().union(*(_numbers(v) for v in items))


def published() -> set[float]:
    """The papers' numbers with three or more significant digits."""
    found = set()
    for paper in papers.PAPERS:
        claims = data.load(paper)
        found |= _numbers([claims.numbers, [r.values for r in claims.references.values()]])
        found |= {v for c in claims.claims for cell in c.cells for v in _numbers([cell.paper, cell.paper_se])}
    return {x for x in found if len(f"{abs(x):g}".replace(".", "").strip("0")) >= 3}


def code_numbers(path: Path) -> set[float]:
    """The numeric literals of a Python file's code (not its comments or strings)."""
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text()).readline)
    literals = [t.string.replace("_", "") for t in tokens if t.type == tokenize.NUMBER]
    return {
        float(s) if s[:2].lower() not in ("0o", "0x", "0b") else float(int(s, 0))
        for s in literals
        if not s.lower().endswith("j")
    }


def test_no_published_number_is_written_in_python():
    numbers = published()
    assert len(numbers) > 50  # the papers' tables are read
    files = [p for folder in (SRC, *extensions.folders()) for p in sorted(folder.rglob("*.py"))]
    hits = {str(p): sorted(code_numbers(p) & numbers) for p in files}
    assert {k: v for k, v in hits.items() if v} == {}


def test_code_numbers_reads_code_not_prose(tmp_path):
    path = tmp_path / "m.py"
    path.write_text('"""Table 1: 79.34."""\nX = 72.10  # the paper\'s 76.87\nMODE = 0o644\n')
    assert code_numbers(path) == {72.1, 420.0}
