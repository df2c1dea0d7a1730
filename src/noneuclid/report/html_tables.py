"""The claims tables of results/index.html (claims/render.py's Markdown, columns claim ... verdict ...),
marked as they are converted to HTML: the paper's column moves beside ours, each verdict cell gets its
verdict's class (html_summary.verdict_class), a long reason folds into a details element under the verdict,
and the first row of each claim gets the id the paper's summary links to."""

import xml.etree.ElementTree as etree

import markdown
from markdown.treeprocessors import Treeprocessor

from noneuclid.claims.engine import VERDICTS
from noneuclid.report.html_summary import claim_anchor, verdict_class

FOLD = 40  # a verdict's reason longer than this (characters) folds under the verdict
PRIORITY = 5  # after the inline patterns (20), before the backslash escapes are restored (0)
BESIDE = ("paper", "ours")  # the column moved, and the one it follows


def fold(cell: etree.Element) -> None:
    """Give a verdict cell its verdict's class; fold a reason (plain text) longer than FOLD under the verdict."""
    text = (cell.text or "").strip()
    verdict = next((v for v in VERDICTS if text.startswith(v)), None)
    if verdict is None:
        return
    cell.set("class", verdict_class(verdict))
    reason = text[len(verdict) :].lstrip(": ")
    if len(reason) > FOLD and not len(cell):
        cell.text = None
        details = etree.SubElement(cell, "details")
        etree.SubElement(details, "summary").text = verdict
        details[0].tail = reason


class ClaimsTables(Treeprocessor):
    """Marks every table with a claim and a verdict column (module doc); `anchored`: the claims whose first
    row has its id already (shared by the pages of one paper)."""

    def __init__(self, md: markdown.Markdown, paper: str, anchored: set[str]):
        super().__init__(md)
        self.paper, self.anchored = paper, anchored

    def run(self, root: etree.Element) -> None:
        for table in root.iter("table"):
            header = ["".join(th.itertext()).strip() for th in table.iter("th")]
            if not {"claim", "verdict"} <= set(header):
                continue
            for row in table.iter("tr"):
                cells = row.findall("td")
                if len(cells) == len(header):
                    claim = (cells[header.index("claim")].text or "").strip()
                    if claim and claim not in self.anchored:
                        row.set("id", claim_anchor(self.paper, claim))
                        self.anchored.add(claim)
                    fold(cells[header.index("verdict")])
                move_beside(row, header)


def move_beside(row: etree.Element, header: list[str]) -> None:
    """Move the row's cell (th or td) of BESIDE's first column right after the cell of its second, where the
    table has both."""
    moved, after = BESIDE
    if moved in header and after in header and len(row) == len(header):
        cell = row[header.index(moved)]
        row.remove(cell)
        row.insert(header.index(after) + (header.index(after) < header.index(moved)), cell)


def to_html(text: str, paper: str, anchored: set[str]) -> str:
    """Markdown (with tables) as HTML, its claims tables marked."""
    md = markdown.Markdown(extensions=["tables"])
    md.treeprocessors.register(ClaimsTables(md, paper, anchored), "claims_tables", PRIORITY)
    return md.convert(text)
