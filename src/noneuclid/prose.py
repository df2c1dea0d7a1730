"""The reports' prose: one Markdown template per paper under templates/, cut into named sections by
`<!-- section: NAME -->` lines, each filled from the numbers with str.format fields ({accuracy:.1f}),
so that a sentence is edited in the template without touching Python; and a page's block between two markers
replaced by generated text."""

import functools
import re
from pathlib import Path

from noneuclid import extensions

TEMPLATES = Path(__file__).parent / "templates"
SECTION = re.compile(r"^<!-- section: (\S+) -->\n", re.MULTILINE)


@functools.cache
def sections(paper: str) -> dict[str, str]:
    """{name: text} of templates/<paper>.md (or that of a paper kept outside: extensions.py), each text without
    its trailing blank lines."""
    parts = SECTION.split(extensions.file(TEMPLATES, f"{paper}.md").read_text())
    return {name: text.rstrip("\n") for name, text in zip(parts[1::2], parts[2::2])}


def fill(paper: str, section: str, **fields) -> str:
    """The template section `section` of `paper` with its {fields} filled in."""
    return sections(paper)[section].format_map(fields)


def replace_block(page: Path, name: str, body: str) -> bool:
    """Put `body` between the page's markers <!-- name:start --> and <!-- name:end -->; False where the page
    or its markers are missing."""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    block, old = re.compile(f"{re.escape(start)}.*?{re.escape(end)}", re.S), page.read_text() if page.exists() else ""
    if not block.search(old):
        return False
    page.write_text(block.sub(lambda _: f"{start}\n{body}\n{end}", old))
    return True
