"""One table, three renderings: the data as CSV (one number per column), its display (numbers as text)
as Markdown and as LaTeX (booktabs), with the caption and the best cells in bold."""

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from noneuclid import prose

FLOAT_FORMAT = "%.10g"  # what is read back writes the same bytes
NUMBER = r"[-+]?[\d,.]+(e[-+]?\d+)?( ± [\d.]+)?( \(n=\d+\))?|-"  # a cell right-aligned in LaTeX
Bold = set[tuple[int, str]]  # the (row position, column) of the cells shown in bold


def write(
    out: Path,
    stem: str,
    data: pd.DataFrame | None,
    shown: pd.DataFrame,
    title: str,
    caption: str,
    bold: Bold = frozenset(),
) -> list[Path]:
    """out/<stem>.csv (data; None: left as it is), .md and .tex (shown, the cells of `bold` in bold); returns
    the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    if data is not None:
        data.to_csv(out / f"{stem}.csv", index=False, float_format=FLOAT_FORMAT)
    (out / f"{stem}.md").write_text(f"# {title}\n\n{caption}\n\n{markdown(shown, bold)}\n")
    (out / f"{stem}.tex").write_text(latex(shown, f"{title}. {caption}", label(out, stem), bold))
    return [out / f"{stem}.{ext}" for ext in ("csv", "md", "tex") if ext != "csv" or data is not None]


def files(out: Path, stems: Iterable[str], page: str) -> list[Path]:
    """The paths of the tables `stems` (their .csv, .md and .tex) and of the page <page>.md in `out`."""
    return [*(out / f"{stem}.{ext}" for stem in stems for ext in ("csv", "md", "tex")), out / f"{page}.md"]


def section(out: Path, stem: str, *table) -> str:
    """`write(out, stem, *table)` (table: data, shown, title, caption and bold, as `write` takes them), and return
    the table as a section of a summary page: its Markdown a heading level down."""
    write(out, stem, *table)
    return "#" + (out / f"{stem}.md").read_text()


def label(out: Path, stem: str) -> str:
    """The LaTeX label of table `stem` written to results/<paper>/<profile>: tab:<paper>_<stem>."""
    return f"tab:{out.parent.name}_{stem}"


def shown(data: pd.DataFrame, formats: dict[str, str] | None = None, missing: str = "-") -> pd.DataFrame:
    """`data` with the columns of `formats` ({column: "{:.1e}"}) as text, every missing value as `missing`."""
    display = data.astype(object)
    for column, fmt in (formats or {}).items():
        display[column] = [missing if pd.isna(v) else fmt.format(v) for v in data[column]]
    return display.fillna(missing)


def markdown(shown: pd.DataFrame, bold: Bold = frozenset()) -> str:
    """A Markdown table, '|' escaped, the `bold` cells as **text**."""
    cells = _cells(shown, bold, lambda text: f"**{text}**", lambda text: text.replace("|", r"\|"))
    return cells.to_markdown(index=False, disable_numparse=True)


def latex(shown: pd.DataFrame, caption: str, label: str, bold: Bold = frozenset()) -> str:
    """booktabs of the cells (numbers right, text left), escaped, `bold` in \\textbf."""
    spec = "".join("r" if shown[c].astype(str).str.fullmatch(NUMBER).all() else "l" for c in shown.columns)
    cells = _cells(shown, bold, lambda text: rf"\textbf{{{text}}}", latex_escape)
    return booktabs(spec, shown.columns, cells.itertuples(index=False), caption, label)


def _cells(shown: pd.DataFrame, bold, emphasise, escape) -> pd.DataFrame:
    """Every cell as escaped text, the `bold` ones emphasised."""
    cells = shown.reset_index(drop=True).astype(str).map(escape)
    for position, column in bold:
        cells.at[position, column] = emphasise(cells.at[position, column])
    return cells


def booktabs(spec: str, columns: Iterable[str], rows: Iterable[Iterable[str]], caption: str, label: str) -> str:
    """A LaTeX table in booktabs rules (templates/tables.md; column spec `spec`): the column names and caption
    escaped, the rows' cells as given (already LaTeX), and the label."""
    header, body = " & ".join(map(latex_escape, columns)), "".join(" & ".join(row) + " \\\\\n" for row in rows)
    fields = dict(spec=spec, header=header, rows=body, caption=latex_escape(caption), label=label)
    return prose.fill("tables", "booktabs", **fields) + "\n"


# LaTeX's special characters escaped, a few symbols written as LaTeX, dashes as TeX's, a line break as a space
LATEX = str.maketrans(
    {c: "\\" + c for c in "&%$#_{}"}
    | {c: f"${c}$" for c in "<>|"}
    | {"\\": r"\textbackslash{}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\n": " "}
    | {"±": r"$\pm$", "≥": r"$\geq$", "≤": r"$\leq$", "≈": r"$\approx$", "×": r"$\times$"}
    | {"−": "-", "–": "--", "—": "---"}
)


def latex_escape(text: str) -> str:
    """text with LaTeX's special characters escaped and a few symbols written as LaTeX."""
    return str(text).translate(LATEX)
