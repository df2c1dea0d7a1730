"""Copy a paper's results/<paper>/<profile>/summary.md into README.md between its markers:

    <!-- results:brantner:start --> ... <!-- results:brantner:end -->
"""

from __future__ import annotations

import os
import re
from pathlib import Path


def update(readme: Path, folder: Path, paper: str, source: str = "summary.md") -> bool:
    """Replace the paper's block in the README with folder/<source>, its links made relative to
    the README; False when the README has no such block."""
    text = readme.read_text()
    start, end = f"<!-- results:{paper}:start -->", f"<!-- results:{paper}:end -->"
    if start not in text or not (folder / source).exists():
        return False
    prefix = os.path.relpath(folder, readme.parent) + "/"
    body = re.sub(r"\]\((?!http)", "](" + prefix, (folder / source).read_text())
    body = re.sub(r"^# ", "### ", body, flags=re.M)
    body = re.sub(r"^## ", "#### ", body, flags=re.M)
    pattern = re.compile(re.escape(start) + ".*?" + re.escape(end), re.S)
    readme.write_text(pattern.sub(lambda _: f"{start}\n{body}\n{end}", text))
    return True
