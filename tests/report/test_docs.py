"""The README and the reports in docs/: short README, every relative link and anchor resolves, each
paper's report holds the results blocks that the report commands refresh."""

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


@pytest.mark.parametrize("paper", sorted(papers.PAPERS))
def test_each_paper_has_a_report_with_its_results_block(paper):
    text = (ROOT / "docs" / f"{paper}.md").read_text()
    blocks = [paper, *(["hnn_table2"] if paper == "hnn" else [])]
    for block in blocks:
        start, end = f"<!-- results:{block}:start -->", f"<!-- results:{block}:end -->"
        assert text.count(start) == 1 and text.count(end) == 1 and text.index(start) < text.index(end)
    assert "<!-- results:" not in (ROOT / "README.md").read_text()


def test_no_dates_or_issue_numbers_in_the_readme_and_docs():
    for page in PAGES:
        text = page.read_text()
        assert not re.search(r"\b20\d\d-\d\d-\d\d\b", text), page.name
        assert not re.search(r"\bissues? ?#?\d", text, flags=re.I), page.name
