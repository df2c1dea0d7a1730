"""The reports' prose: one Markdown template per paper under templates/, cut into named sections by
`<!-- section: NAME -->` lines, each filled from the numbers with str.format fields ({accuracy:.1f}),
so that a sentence is edited in the template without touching Python."""

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
