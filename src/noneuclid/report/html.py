"""results/index.html (index-<profile>.html but for cpu): one offline page with every paper's verdict summary
(html_summary), its report pages (papers.Paper.pages, in results/<paper>/<profile>/ and its variants; their
claims tables coloured by verdict, html_tables), the training curve of every run in its runs.csv (inline SVG,
folded) and their environments; made from results/ alone, so a clean clone makes the same page."""

import functools
import html
import math
import re
from collections import Counter
from pathlib import Path

import pandas as pd

from noneuclid import prose
from noneuclid.papers import PAPERS
from noneuclid.report import html_summary, html_tables
from noneuclid.runs import table as run_table

# The evaluation curve drawn for a run: the first of these its metrics.jsonl holds.
EVAL_METRICS = ("val_accuracy", "dev_accuracy", "val_perplexity", "test_accuracy")
SVG_SIZE = (250, 90)  # a run's plot: width and height in pixels
ENV_KEYS = ("python", "torch", "platform", "cpu_count", "torch_threads", "cuda", "git_commit", "git_dirty")

STYLE = prose.TEMPLATES / "index.css"  # the page's style sheet, inlined
SCRIPT = prose.TEMPLATES / "index.js"  # its script (the legend's verdicts hide their rows), inlined


def _finite(rows: pd.DataFrame, key: str | None) -> list[tuple[float, float]]:
    """(step, value) of the rows whose `key` is a finite number (a diverged run logs NaN; no column: none)."""
    if key not in rows:
        return []
    values = rows[["step", key]].dropna()
    values = values[values[key].map(math.isfinite)]
    return list(zip(values.step.tolist(), values[key].tolist()))


def curve_svg(points: dict[str, list[tuple[float, float]]]) -> str:
    """An inline SVG of SVG_SIZE, a polyline per css class of points ({class: [(step, value), ...]}) at full
    height, at most one point per two pixels of width (every k-th point and the last)."""
    (width, height), lines = SVG_SIZE, []
    points = {cls: _thinned(pts, width // 2) for cls, pts in points.items()}
    xs = [x for pts in points.values() for x, _ in pts]
    x0, x1 = min(xs), max(xs)
    for cls, pts in points.items():
        ys = [y for _, y in pts]
        y0, y1 = min(ys), max(ys)
        coords = " ".join(
            f"{(x - x0) / ((x1 - x0) or 1) * (width - 4) + 2:.1f},"
            f"{height - 2 - (y - y0) / ((y1 - y0) or 1) * (height - 4):.1f}"
            for x, y in pts
        )
        lines.append(f'<polyline class="{cls}" fill="none" stroke-width="1.5" points="{coords}"/>')
    return f'<svg width="{width}" height="{height}" viewBox="0 0 {width} {height}">{"".join(lines)}</svg>'


def _thinned(pts: list, most: int) -> list:
    """Every k-th point of pts, k the smallest step that keeps at most `most`, and the last point."""
    kept = pts[:: -(-len(pts) // most)]
    return kept if kept[-1] == pts[-1] else kept + pts[-1:]


def run_curve(run: pd.Series, rows: pd.DataFrame) -> str:
    """One run's small plot from its rows of curves.csv.gz: training loss and its evaluation metric."""
    name = next((m for m in EVAL_METRICS if m in rows and rows[m].notna().any()), None)
    curves = {"loss": ("train loss", _finite(rows, "train_loss")), "eval": (name, _finite(rows, name))}
    values = "".join(
        prose.fill("index", "curve_value", cls=cls, label=label, first=pts[0][1], last=pts[-1][1])
        for cls, (label, pts) in curves.items()
        if pts
    )
    plot = {cls: pts for cls, (_, pts) in curves.items() if len(pts) > 1}
    plot = curve_svg(plot) if plot else prose.fill("index", "curve_unplotted")
    return prose.fill(
        "index", "curve", plot=plot, run=html.escape(run.run), status=html.escape(str(run.status)), values=values
    )


def environment(runs: pd.DataFrame) -> str:
    """A heading and a table of the runs' distinct environments (env.*), with how many runs had each; "" for none."""
    columns = [f"env.{k}" for k in ENV_KEYS]
    if not any(c in runs for c in columns):
        return ""
    counts = Counter(
        tuple("None" if pd.isna(v) else str(v) for v in row)
        for row in runs.reindex(columns=columns).itertuples(index=False)
    )
    rows = [("th", (*ENV_KEYS, "runs")), *(("td", (*key, str(n))) for key, n in counts.items())]
    table = "".join(f"<tr>{''.join(f'<{tag}>{html.escape(v)}</{tag}>' for v in cells)}</tr>" for tag, cells in rows)
    return prose.fill("index", "environment", table=table)


def page_html(page: Path, results: Path, anchored: set[str]) -> str:
    """A report's Markdown page as HTML, its sections under the paper's heading, its links relative to results/,
    its claims tables marked (html_tables; `anchored`: the paper's claims whose first row has its id)."""
    lines = page.read_text().split("\n", 1)
    title, text = lines[0].lstrip("# "), lines[-1]
    text = re.sub(r"^#{1,2} ", "### ", text, flags=re.M)  # its sections sit under the paper
    text = re.sub(r"^(?!- )(.+)\n- ", r"\1\n\n- ", text, flags=re.M)  # a list needs a blank line before it
    body = html_tables.to_html(text, page.relative_to(results).parts[0], anchored)
    prefix = page.parent.relative_to(results).as_posix() + "/"
    body = body.replace('src="', f'src="{prefix}').replace('href="', f'href="{prefix}').replace(f"{prefix}http", "http")
    return f"<p><i>{html.escape(title)}</i></p>{body}"


def paper_section(paper: str, profile: str, results: Path) -> str:
    """The paper's verdict summary, its pages for the profile (then its variants, e.g. <profile>-float32/), run
    curves (folded) and environments."""
    folders = [results / paper / profile, *sorted((results / paper).glob(f"{profile}-*"))]
    pages = [f / f"{name}.md" for f in folders for name in PAPERS[paper].pages if (f / f"{name}.md").exists()]
    runs, curves = run_table.read(results / paper / profile)
    logged = runs[runs.run.isin(curves.run)] if len(curves) else runs.iloc[0:0]
    drawn = "".join(run_curve(run, curves[curves.run == run.run].sort_values("step")) for _, run in logged.iterrows())
    unlogged = len(runs) - len(logged)
    fill = functools.partial(prose.fill, "index", key=paper, profile=profile, unlogged=unlogged)
    anchored = set()
    parts = [
        f'<h2 id="{paper}">{PAPERS[paper].title}</h2>',
        html_summary.summary(paper, results / paper / profile, runs, results / "bench"),
        *([page_html(page, results, anchored) for page in pages] or [fill("missing")]),
        fill("curves", runs=len(logged), drawn=drawn) if drawn else fill("no_curves"),
        fill("unlogged") if unlogged else "",
        environment(runs),
    ]
    return "\n".join(part for part in parts if part)


def make(profile: str, results: Path) -> Path:
    """Write the page (its paths relative, so the folder can be moved); returns its path."""
    results.mkdir(parents=True, exist_ok=True)
    out = results / ("index.html" if profile == "cpu" else f"index-{profile}.html")
    toc = " · ".join(f'<a href="#{key}">{paper.title}</a>' for key, paper in PAPERS.items())
    sections = "\n".join(paper_section(key, profile, results) for key in PAPERS)
    page = dict(profile=profile, style=STYLE.read_text(), results=html.escape(results.name), script=SCRIPT.read_text())
    out.write_text(prose.fill("index", "page", **page, toc=toc, legend=html_summary.legend(), sections=sections))
    return out
