"""PHYDI's report: Tables 1-2 (phydi_resnet), Fig. 4 (phydi_fig4, phydi_figure), training speed and compute,
redrawn from the per-run data with every claim of claims/phydi.yaml judged, all gathered in summary.md; the
prose is templates/phydi.md's.

    python -m noneuclid.report phydi [--runs runs] [--profile cpu]
"""

from __future__ import annotations

import functools
from pathlib import Path

import pandas as pd

from noneuclid.config import sweep_values
from noneuclid.report import prose, tables
from noneuclid.report.phydi_fig4 import fig4_rows, fig4_verdicts, lm_cells, threshold_ratio
from noneuclid.report.phydi_figure import fig4
from noneuclid.runs import table as run_table
from noneuclid.report.phydi_resnet import (IMAGES, PAPER_TABLE1, PAPER_TABLE2, TABLES, images_per_epoch,
                                           lead_verdicts, not_run, resnet_cells, resnet_shown, resnet_speed,
                                           resnet_tables)
from noneuclid.report.phydi_runs import NUMBERS, of_model

MODELS = {"phresnet": "PHResNet", "phtransformer": "PHTransformer"}  # cfg.model.name -> the paper's name
PAPER_TABLES = {"table1": PAPER_TABLE1, "table2": PAPER_TABLE2}
_fill = functools.partial(prose.fill, "phydi")  # a section of templates/phydi.md, its fields filled in


def make(runs_dir: Path, profile: str, out: Path, seeds=None, overrides=()) -> list[Path]:
    """Write every table (CSV, Markdown, LaTeX), fig4 (PNG, PDF) and summary.md into out from its per-run data,
    after merging into it the runs under runs/phydi/<profile>."""
    if seeds or overrides:
        raise ValueError("the phydi report reads every run under runs/phydi/<profile>: drop --seeds and overrides")
    runs, curves = run_table.load(runs_dir, "phydi", profile, out)
    if runs.empty:
        raise FileNotFoundError(f"no phydi runs under {runs_dir}/phydi/{profile}: run `python -m noneuclid.train "
                                f"-m experiment=phydi/table1 profile={profile}` (and table2, fig4) first")
    resnets, resnet_curves = of_model(runs, curves, "phresnet")
    transformers, transformer_curves = of_model(runs, curves, "phtransformer")
    skipped = []  # cells of the paper with no runs here
    blocks = (_resnet_section(resnets, resnet_curves, out, skipped)
              + _fig4_section(transformers, transformer_curves, out, skipped)
              + [_compute_section(runs, out)])
    head = [_fill("summary", profile=profile) + "\n", *([_fill("skipped", skipped="; ".join(skipped)) + "\n"] * bool(skipped))]
    (out / "summary.md").write_text("\n".join(head + blocks))
    return sorted(out.iterdir())


def _resnet_section(resnets: pd.DataFrame, curves: pd.DataFrame, out: Path, skipped: list) -> list[str]:
    """Tables 1-2 and the training speed written into out; their summary blocks. Appends to skipped."""
    if resnets.empty:
        skipped.append(_fill("no_runs", title="Tables 1-2"))
        return []
    caption = _fill("table_caption", settings=_reductions(resnets, "resnet_reductions", images=IMAGES),
                    x_fraction=NUMBERS["x_fraction"])
    blocks = [block for name, keys in TABLES.items() for block in _table_section(
        name, keys, resnets[resnets["cfg.experiment_name"] == f"phydi/{name}"], curves, out, caption, skipped)]
    speed = resnet_speed(resnets)
    shown = tables.shown(speed, {"seconds_per_epoch": "{:.1f}", "images_per_second": "{:.0f}"}).rename(
        columns={"seconds_per_epoch": "s / epoch", "images_per_second": "images / s"})
    return blocks + [tables.section(out, "speed", speed, shown, _fill("speed_title"), _fill("speed_caption"))]


def _table_section(name: str, keys: list[str], runs: pd.DataFrame, curves: pd.DataFrame, out: Path, caption: str,
                   skipped: list) -> list[str]:
    """Table 1 or 2 (name) and its claims written into out; their summary blocks. Appends to skipped."""
    cells, paper, title = resnet_cells(runs, curves, keys), PAPER_TABLES[name], f"Table {name[-1]}"
    if not cells:
        skipped.append(_fill("no_runs", title=title))
        if name != "table1":
            return [f"## {skipped[-1]}\n"]
        return [_claims(out, name, f"## {skipped[-1]}", lead_verdicts({}))]  # the claim over depths, not testable
    images = {k: int(images_per_epoch(g).max()) for k, g in runs.groupby([f"cfg.{k}" for k in keys])}
    numbers, claims = resnet_tables(cells, keys, paper, name, images)
    if not_run(cells, paper):
        skipped.append(f"{title}: {not_run(cells, paper)}")
    return [_claims(out, name, _fill("claims_heading", title=title), claims + (lead_verdicts(cells) if name == "table1" else [])),
            tables.section(out, name, numbers, resnet_shown(numbers, keys), _fill("table_title", title=title), caption)]


def _fig4_section(transformers: pd.DataFrame, curves: pd.DataFrame, out: Path, skipped: list) -> list[str]:
    """Fig. 4 written into out; its summary blocks. Appends to skipped."""
    cells, unigram = lm_cells(transformers, curves) if not transformers.empty else ({}, {})
    if not cells:  # the claims still listed, each not testable here
        skipped.append(_fill("no_runs", title="Fig. 4"))
        return [_claims(out, "fig4", f"## {skipped[-1]}", fig4_verdicts({}, {}))]
    missing_n = [n for n in (int(v) for v in sweep_values("phydi/fig4", "model.n")) if n not in {m for m, _ in cells}]
    if missing_n:
        skipped.append(f"Fig. 4: n = {', '.join(map(str, missing_n))}")
    ratio = threshold_ratio(transformers)
    rows = fig4_rows(cells, unigram, ratio)
    fig4(rows, out / "fig4")
    data = rows.drop(columns=[c for c in rows if c.endswith("(ours)") or c.startswith("reached ")])
    shown = rows.drop(columns=[c for c in rows if c.endswith((" mean", " se")) or c.startswith("seeds reached ")])
    caption = _fill("fig4_caption", settings=_reductions(transformers, "fig4_reductions"),
                    perplexity=NUMBERS["fig4_perplexity"], paper_unigram=NUMBERS["paper_unigram_perplexity"])
    return [_claims(out, "fig4", _fill("claims_heading", title="Fig. 4"), fig4_verdicts(cells, unigram, ratio)),
            tables.section(out, "fig4", data, shown, _fill("fig4_title"), caption), _fill("fig4_image") + "\n"]


def _claims(out: Path, stem: str, heading: str, claims: list) -> str:
    """The claims table <stem>_claims written into out (tables.write_claims); its summary block."""
    return f"{heading}\n\n{tables.write_claims(out, f'{stem}_claims', claims)}\n"


def compute(runs: pd.DataFrame) -> pd.DataFrame:
    """Per sweep, model and n of the finished runs: runs, training hours in all, median minutes per run."""
    done = runs[runs.status == "done"]
    rows = [{"experiment": experiment, "model": f"{MODELS[model]}{int(depth)}", "n": int(n), "runs": len(g),
             "train_hours": g.train_seconds.sum() / 3600, "minutes_per_run": g.train_seconds.median() / 60}
            for (experiment, model, depth, n), g in done.groupby(
                ["cfg.experiment_name", "cfg.model.name", "cfg.model.depth", "cfg.model.n"], sort=True)]
    return pd.DataFrame(rows, columns=["experiment", "model", "n", "runs", "train_hours", "minutes_per_run"])


def _compute_section(runs: pd.DataFrame, out: Path) -> str:
    """The compute table written into out; its summary block."""
    table = compute(runs)
    shown = tables.shown(table, {"train_hours": "{:.2f}", "minutes_per_run": "{:.1f}"}).rename(
        columns={"train_hours": "training h", "minutes_per_run": "min / run"})
    caption = _fill("compute_caption", runs=table.runs.sum(), hours=table.train_hours.sum())
    return tables.section(out, "compute", table, shown, _fill("compute_title"), caption)


def _reductions(runs: pd.DataFrame, section: str, **fields) -> str:
    """'label values; ...' of the settings a profile reduces, listed in template `section` as 'setting: label'."""
    parts = []
    for line in _fill(section, **fields).splitlines():
        key, label = line.split(": ", 1)
        if f"cfg.{key}" in runs:
            values = sorted(set(runs[f"cfg.{key}"]), key=lambda v: (isinstance(v, str), v if v == v else 0))
            shown = (str(int(v)) if isinstance(v, float) and v.is_integer() else str(v) for v in values)
            parts.append(f"{label} {', '.join(shown)}")
    return "; ".join(parts)
