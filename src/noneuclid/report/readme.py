"""Copy each paper's results/<paper>/summary.md into README.md between its markers:

    <!-- results:brantner:start --> ... <!-- results:brantner:end -->
"""

from __future__ import annotations

import re
from pathlib import Path


def update(readme: Path, results: Path, paper: str) -> bool:
    """Replace the paper's block in the README; False when the README has no such block."""
    text = readme.read_text()
    start, end = f"<!-- results:{paper}:start -->", f"<!-- results:{paper}:end -->"
    if start not in text or not (results / paper / "summary.md").exists():
        return False
    body = (results / paper / "summary.md").read_text()
    body = body.replace("](", f"]({results.name}/{paper}/").replace(f"]({results.name}/{paper}/http", "](http")
    body = re.sub(r"^# ", "### ", body, flags=re.M)
    body = re.sub(r"^## ", "#### ", body, flags=re.M)
    pattern = re.compile(re.escape(start) + ".*?" + re.escape(end), re.S)
    readme.write_text(pattern.sub(lambda _: f"{start}\n{body}\n{end}", text))
    return True
