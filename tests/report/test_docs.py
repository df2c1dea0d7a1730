"""The README and the reports in docs/: short README with one status line per paper, every relative
link and anchor resolves, each paper's report is short, in the ML Reproducibility Challenge's order,
and holds the results block (the claims digest) that the report commands refresh."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from noneuclid import papers

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def _prose(text: str) -> str:
    """The text without fenced code blocks and inline code."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    return re.sub(r"`[^`\n]*`", "", text)


def anchors(page: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered."""
    seen: dict[str, int] = {}
    out = set()
    for line in re.sub(r"^```.*?^```", "", page.read_text(), flags=re.M | re.S).splitlines():
        m = re.match(r"#{1,6} (.*)", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def test_readme_is_at_most_200_lines():
    assert len((ROOT / "README.md").read_text().splitlines()) <= 200


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_relative_links_and_anchors_resolve(page):
    broken = []
    for target in LINK.findall(_prose(page.read_text())):
        if re.match(r"[a-z]+:", target):
            continue  # http(s), mailto
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            broken.append(target)
        elif anchor and (dest.suffix != ".md" or anchor not in anchors(dest)):
            broken.append(target)
    assert not broken, f"{page.name}: {broken}"


# The ML Reproducibility Challenge's order of a reproduction report.
SECTIONS = [
    "## Scope and claims",
    "## The claims table",
    "## Method and deviations",
    "## Results",
    "## What was easy, what was hard",
    "## Compute",
    "## How to rerun at paper scale",
]


@pytest.mark.parametrize("paper", sorted(papers.PAPERS))
def test_each_paper_has_a_report_with_its_results_block(paper):
    text = (ROOT / "docs" / f"{paper}.md").read_text()
    start, end = f"<!-- results:{paper}:start -->", f"<!-- results:{paper}:end -->"
    assert text.count(start) == 1 and text.count(end) == 1 and text.index(start) < text.index(end)
    assert text.count("<!-- results:") == 2
    assert "<!-- results:" not in (ROOT / "README.md").read_text()


@pytest.mark.parametrize("paper", sorted(papers.PAPERS))
def test_each_report_is_short_in_the_report_order_and_states_the_current_result(paper):
    text = (ROOT / "docs" / f"{paper}.md").read_text()
    assert len(text.splitlines()) <= 300
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings == SECTIONS
    assert (
        text.index("## The claims table")
        < text.index(f"<!-- results:{paper}:start -->")
        < text.index("## Method and deviations")
    )
    assert not re.search(r"this machine|earlier machine|\bsession", text, flags=re.I)
    assert (ROOT / "docs" / f"{paper}-notes.md").is_file() and f"({paper}-notes.md" in text


def test_readme_status_has_one_line_per_paper_linking_its_report():
    """The hand-written status rows (one per paper, at most 400 characters) beside the generated block that
    counts every paper's verdicts (report.docs.status)."""
    readme = (ROOT / "README.md").read_text()
    status = readme[readme.index("## Status") :]
    status = status[: status.index("\n## ", 1)]
    block = status[status.index("<!-- status:start -->") : status.index("<!-- status:end -->")]
    assert all(f"| {paper} " in block for paper in papers.PAPERS) and "| paper " in block
    rows = [
        line
        for line in status.replace(block, "").splitlines()
        if line.startswith("| ") and not line.startswith(("| paper", "| ---"))
    ]
    assert len(rows) == len(papers.PAPERS) and all(len(row) <= 400 for row in rows)
    for paper in papers.PAPERS:
        assert sum(f"(docs/{paper}.md)" in row for row in rows) == 1


def test_no_dates_or_issue_numbers_in_the_readme_and_docs():
    for page in PAGES:
        text = page.read_text()
        assert not re.search(r"\b20\d\d-\d\d-\d\d\b", text), page.name
        assert not re.search(r"\bissues? ?#?\d", text, flags=re.I), page.name
