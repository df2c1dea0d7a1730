"""results/index.html (cpu profile; index-<profile>.html for the others): one offline page with every paper's tables and figures (ours beside the
paper's, from results/<paper>/<profile>/summary.md, which names the commands that made them), the
training curves of every run, and the environment the runs ran in.

Run folders are not committed and a machine may not have them, so the page is cumulative: the curves
(and the environment rows) of runs that the page already shows and whose folders are not here are
carried over from the page being replaced, and a run folder that is here redraws its own curve
(delete the page to start it afresh).

    python -m noneuclid.report html [--profile cpu] [--runs runs] [--results results]
"""

from __future__ import annotations

import html
import json
import math
import re
from pathlib import Path

import markdown

from noneuclid.papers import PAPERS
from noneuclid.report import aggregate
from noneuclid.train.run_dir import read_metrics

TITLES = {key: paper.title for key, paper in PAPERS.items()}
# The evaluation curve drawn for a run: the first of these its metrics.jsonl holds.
EVAL_METRICS = ("val_accuracy", "dev_accuracy", "val_perplexity", "test_accuracy")
ENV_KEYS = ("python", "torch", "platform", "cpu_count", "torch_threads", "cuda", "git_commit", "git_dirty")

STYLE = """
body { font-family: sans-serif; max-width: 1200px; margin: 2em auto; padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.85em; }
th, td { border: 1px solid #bbb; padding: 0.25em 0.5em; }
th { background: #eee; }
img { max-width: 100%; border: 1px solid #ddd; }
code { background: #f4f4f4; padding: 0 0.2em; }
.curves { display: flex; flex-wrap: wrap; gap: 0.5em; }
.curve { border: 1px solid #ddd; padding: 0.3em; font-size: 0.7em; width: 260px; }
.loss { stroke: #1f77b4; } .eval { stroke: #d62728; }
.missing { color: #a00; }
"""


def curve_svg(points: dict[str, list[tuple[float, float]]], width: int = 250, height: int = 90) -> str:
    """An inline SVG with one polyline per metric, each scaled to the full height (values in the
    caption beside it). points: {css class: [(step, value), ...]}."""
    lines = []
    xs = [x for pts in points.values() for x, _ in pts]
    x0, x1 = min(xs), max(xs)
    for cls, pts in points.items():
        ys = [y for _, y in pts]
        y0, y1 = min(ys), max(ys)
        coords = " ".join(
            f"{(x - x0) / ((x1 - x0) or 1) * (width - 4) + 2:.1f},"
            f"{height - 2 - (y - y0) / ((y1 - y0) or 1) * (height - 4):.1f}" for x, y in pts)
        lines.append(f'<polyline class="{cls}" fill="none" stroke-width="1.5" points="{coords}"/>')
    return f'<svg width="{width}" height="{height}" viewBox="0 0 {width} {height}">{"".join(lines)}</svg>'


def _finite(rows: list[dict], key: str) -> list[tuple[float, float]]:
    """(step, value) of the rows whose `key` is a finite number (a diverged run logs NaN)."""
    return [(r["step"], r[key]) for r in rows if isinstance(r.get(key), (int, float)) and math.isfinite(r[key])]


# What the page being replaced holds: a run's curve (its name in <b>, its environment, if the page
# recorded it, in data-env), a paper's section, and a row of its environment table.
CURVE = re.compile(r'<div class="curve"(?: data-env="([^"]*)")?>.*?<b>(.*?)</b>.*?</div>', re.S)
SECTION = re.compile(r'<h2 id="(\w+)">(.*?)(?=<h2 id="|</body>)', re.S)
ENV_ROW = re.compile(r'<tr( class="earlier")?>((?:<td>.*?</td>)+)</tr>')


def run_curve(folder: Path) -> str:
    """One run's small plot, training loss (blue) and its evaluation metric (red), with its
    environment (env.json) in data-env so that a later page can count it without the folder."""
    rows = read_metrics(folder / "metrics.jsonl")
    loss = _finite(rows, "train_loss")
    name = next((m for m in EVAL_METRICS if any(m in r for r in rows)), None)
    evals = _finite(rows, name) if name else []
    caption = [f"<b>{html.escape(folder.name)}</b> ({aggregate.status(folder)})"]
    if loss:
        caption.append(f'<span class="loss">train loss</span> {loss[0][1]:.4g} &rarr; {loss[-1][1]:.4g}')
    if evals:
        caption.append(f'<span class="eval">{name}</span> {evals[0][1]:.4g} &rarr; {evals[-1][1]:.4g}')
    plot = {k: v for k, v in (("loss", loss), ("eval", evals)) if len(v) > 1}
    env = json.loads((folder / "env.json").read_text()) if (folder / "env.json").exists() else None
    key = f' data-env="{html.escape(json.dumps([str(env.get(k)) for k in ENV_KEYS]))}"' if env else ""
    return (f'<div class="curve"{key}>{curve_svg(plot) if plot else "(fewer than two points)"}'
            f'<br>{"<br>".join(caption)}</div>')


def previous_sections(page: Path) -> dict[str, str]:
    """The page being replaced, by paper: {paper: its section's html} ({} when there is none)."""
    return dict(SECTION.findall(page.read_text())) if page.exists() else {}


def curves(runs_dir: Path, previous: str) -> tuple[dict[str, str], int]:
    """{run name: its curve} for every run folder here and every run of the previous section whose
    folder is not here (sorted by name), and how many of them were carried over."""
    drawn = {folder.name: run_curve(folder) for folder in aggregate.run_folders([runs_dir])}
    carried = {html.unescape(m.group(2)): m.group(0) for m in CURVE.finditer(previous)
               if html.unescape(m.group(2)) not in drawn}
    return dict(sorted({**carried, **drawn}.items())), len(carried)


def environment(cells: dict[str, str], previous: str) -> str:
    """The distinct environments of the runs drawn (their data-env), with how many runs had each,
    and the rows of a previous page whose runs did not record theirs (class "earlier")."""
    counts: dict[tuple, int] = {}
    for cell in cells.values():
        env = CURVE.match(cell).group(1)
        if env:
            key = tuple(json.loads(html.unescape(env)))
            counts[key] = counts.get(key, 0) + 1
    recorded = "data-env=" in previous
    table = previous.partition("<h3>Environment of the runs</h3>")[2]
    earlier = [row for mark, row in ENV_ROW.findall(table) if mark or not recorded]
    if not counts and not earlier:
        return ""
    head = "".join(f"<th>{k}</th>" for k in (*ENV_KEYS, "runs"))
    body = "".join("<tr>" + "".join(f"<td>{html.escape(v)}</td>" for v in (*key, str(n))) + "</tr>"
                   for key, n in counts.items())
    body += "".join(f'<tr class="earlier">{row}</tr>' for row in earlier)
    return f"<table><tr>{head}</tr>{body}</table>"


def summary_html(folder: Path, results: Path) -> str:
    """A results folder's summary.md as HTML, its sections under the paper's heading and its links
    made relative to results/ (where the page is)."""
    lines = folder.joinpath("summary.md").read_text().split("\n", 1)
    title, text = lines[0].lstrip("# "), lines[-1]
    text = re.sub(r"^#{1,2} ", "### ", text, flags=re.M)  # its sections sit under the paper
    text = re.sub(r"^(?!- )(.+)\n- ", r"\1\n\n- ", text, flags=re.M)  # a list needs a blank line before it
    body = markdown.markdown(text, extensions=["tables"])
    prefix = folder.relative_to(results).as_posix() + "/"
    body = body.replace('src="', f'src="{prefix}').replace('href="', f'href="{prefix}').replace(f"{prefix}http", "http")
    return f"<p><i>{html.escape(title)}</i></p>{body}"


def paper_section(paper: str, profile: str, results: Path, runs_dir: Path, previous: str = "") -> str:
    """The paper's results for the profile (results/<paper>/<profile>/, then any variants of it such
    as <profile>-float32/), its runs' curves and their environment (with those of the previous
    page's section whose run folders are not here)."""
    parts = [f'<h2 id="{paper}">{TITLES[paper]}</h2>']
    folders = [results / paper / profile, *sorted((results / paper).glob(f"{profile}-*"))]
    found = [f for f in folders if (f / "summary.md").exists()]
    parts += [summary_html(f, results) for f in found]
    if not found:
        parts.append(f'<p class="missing">No results for the {profile} profile yet: '
                     f'<code>make reproduce-{paper} PROFILE={profile}</code></p>')
    runs = runs_dir / paper / profile
    cells, carried = curves(runs, previous)
    note = f"; {carried} carried over from the earlier page, their folders not here" if carried else ""
    parts.append(f"<h3>Training curves of each run ({html.escape(str(runs))}{note})</h3>")
    parts.append(f'<div class="curves">{"".join(cells.values())}</div>' if cells else "<p>No run folders.</p>")
    env = environment(cells, previous)
    if env:
        parts.append("<h3>Environment of the runs</h3>" + env)
    return "\n".join(parts)


def make(runs_dir: Path, profile: str, results: Path) -> Path:
    """Write results/index.html for the cpu profile, results/index-<profile>.html for the others
    (the paths inside are relative, so the folder can be moved), keeping the curves of the page it
    replaces whose run folders are not here."""
    results.mkdir(parents=True, exist_ok=True)
    out = results / ("index.html" if profile == "cpu" else f"index-{profile}.html")
    previous = previous_sections(out)
    toc = " · ".join(f'<a href="#{p}">{t}</a>' for p, t in TITLES.items())
    sections = "\n".join(paper_section(p, profile, results, runs_dir, previous.get(p, "")) for p in TITLES)
    page = (f"<!doctype html><html><head><meta charset='utf-8'><title>noneuclid results ({profile})</title>"
            f"<style>{STYLE}</style></head><body><h1>noneuclid: results of the {profile} profile</h1>"
            f"<p>Made by <code>python -m noneuclid.report html --profile {profile}</code> from "
            f"<code>{html.escape(str(results))}/</code> and the run folders under "
            f"<code>{html.escape(str(runs_dir))}/</code> (curves of runs whose folders are gone are kept from "
            f"the page this one replaced). {toc}</p>{sections}</body></html>")
    out.write_text(page)
    return out
