"""PHYDI's report: Tables 1 and 2 (PHResNets on CIFAR-10, phydi_resnet), Fig. 4 (PHTransformers on
WikiText-2, phydi_fig4 and phydi_figure), the training speed and compute, redrawn from the per-run data,
with every claim of claims/phydi.yaml judged by the claims engine and gathered by outcome in summary.md.

    python -m noneuclid.report phydi [--runs runs] [--profile cpu]

Only finished runs count (`seeds` = their number); tables show mean +- standard error over seeds (the
paper's +-). Each verdict is reproduces, consistent, inconclusive, contradicts or not testable here (why).
The prose is templates/phydi.md's.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from noneuclid.claims import engine, render
from noneuclid.config import sweep_values
from noneuclid.report import prose, run_table, tables
from noneuclid.report.phydi_fig4 import fig4_rows, fig4_verdicts, lm_cells, threshold_ratio
from noneuclid.report.phydi_figure import fig4
from noneuclid.report.phydi_resnet import (IMAGES, PAPER_TABLE1, PAPER_TABLE2, TABLES, images_per_epoch,
                                           lead_verdicts, not_run, resnet_cells, resnet_shown, resnet_speed,
                                           resnet_tables)
from noneuclid.report.phydi_runs import NUMBERS, of_model

MODELS = {"phresnet": "PHResNet", "phtransformer": "PHTransformer"}  # cfg.model.name -> the paper's name
PAPER_TABLES = {"table1": PAPER_TABLE1, "table2": PAPER_TABLE2}
Checks = list[tuple[str, list[engine.Verdict]]]  # (table title, its verdicts)


def make(runs_dir: Path, profile: str, out: Path, seeds=None, overrides=()) -> list[Path]:
    """Write table1, table2, their claims, fig4 and its claims, speed and compute (CSV + Markdown + LaTeX),
    fig4 (PNG + PDF) and summary.md from the per-run data in out (runs.csv, curves.csv.gz), after merging
    into it the runs under runs/phydi/<profile> (seeds and overrides are not chosen here)."""
    if seeds or overrides:
        raise ValueError("the phydi report reads every run under runs/phydi/<profile>: drop --seeds and overrides")
    runs, curves = run_table.load(runs_dir, "phydi", profile, out)
    resnets, resnet_curves = of_model(runs, curves, "phresnet")
    transformers, transformer_curves = of_model(runs, curves, "phtransformer")
    if resnets.empty and transformers.empty:
        raise FileNotFoundError(f"no phydi runs under {runs_dir}/phydi/{profile}: run `python -m noneuclid.train "
                                f"-m experiment=phydi/table1 profile={profile}` (and table2, fig4) first")
    out.mkdir(parents=True, exist_ok=True)
    checks, skipped = [], []  # (title, claims table); cells of the paper with no runs here
    lines = (_resnet_section(resnets, resnet_curves, out, checks, skipped)
             + _fig4_section(transformers, transformer_curves, out, checks, skipped)
             + _compute_section(pd.concat([resnets, transformers]), out))
    head = [_fill("summary", profile=profile), "", *digest(checks),
            *([_fill("skipped", skipped="; ".join(skipped)), ""] if skipped else [])]
    (out / "summary.md").write_text("\n".join(head + lines))
    return sorted(out.iterdir())


def _resnet_section(resnets: pd.DataFrame, curves: pd.DataFrame, out: Path, checks: Checks, skipped: list) -> list[str]:
    """Tables 1-2 and the training speed written into out; their summary lines. Appends to checks and
    skipped."""
    if resnets.empty:
        skipped.append(_fill("no_runs", title="Tables 1-2"))
        return []
    caption = _fill("table_caption", settings=_reductions(resnets, "resnet_reductions", images=IMAGES),
                    x_fraction=NUMBERS["x_fraction"])
    lines = [line for name, keys in TABLES.items() for line in _table_section(
        name, keys, resnets[resnets["cfg.experiment_name"] == f"phydi/{name}"], curves, out, caption, checks, skipped)]
    speed = resnet_speed(resnets)
    shown = tables.shown(speed, {"seconds_per_epoch": "{:.1f}", "images_per_second": "{:.0f}"}).rename(
        columns={"seconds_per_epoch": "s / epoch", "images_per_second": "images / s"})
    return lines + _table(out, "speed", speed, shown, _fill("speed_title"), _fill("speed_caption"))


def _table_section(name: str, keys: list[str], runs: pd.DataFrame, curves: pd.DataFrame, out: Path, caption: str,
                   checks: Checks, skipped: list) -> list[str]:
    """Table 1 or 2 (name) and its claims written into out; their summary lines. Appends to checks and
    skipped."""
    cells, paper, title = resnet_cells(runs, curves, keys), PAPER_TABLES[name], f"Table {name[-1]}"
    if not cells:
        skipped.append(_fill("no_runs", title=title))
        if name != "table1":
            return ["## " + skipped[-1], ""]
        checks.append((title, lead_verdicts({})))  # the claim over depths still listed, not testable here
        return ["## " + skipped[-1], "", tables.write_claims(out, f"{name}_claims", checks[-1][1]), ""]
    images = {k: int(images_per_epoch(g).max()) for k, g in runs.groupby([f"cfg.{k}" for k in keys])}
    numbers, claims = resnet_tables(cells, keys, paper, name, images)
    checks.append((title, claims + (lead_verdicts(cells) if name == "table1" else [])))
    if not_run(cells, paper):
        skipped.append(f"{title}: {not_run(cells, paper)}")
    return [_fill("claims_heading", title=title), "",
            tables.write_claims(out, f"{name}_claims", checks[-1][1]), "",
            *_table(out, name, numbers, resnet_shown(numbers, keys), _fill("table_title", title=title), caption)]


def _fig4_section(transformers: pd.DataFrame, curves: pd.DataFrame, out: Path, checks: Checks,
                  skipped: list) -> list[str]:
    """Fig. 4 written into out; its summary lines. Appends to checks and skipped."""
    cells, unigram = lm_cells(transformers, curves) if not transformers.empty else ({}, {})
    if not cells:  # the claims still listed, each not testable here
        skipped.append(_fill("no_runs", title="Fig. 4"))
        checks.append(("Fig. 4", fig4_verdicts({}, {})))
        return ["## " + skipped[-1], "",
                tables.write_claims(out, "fig4_claims", checks[-1][1]), ""]
    missing_n = [n for n in (int(v) for v in sweep_values("phydi/fig4", "model.n")) if n not in {m for m, _ in cells}]
    if missing_n:
        skipped.append(f"Fig. 4: n = {', '.join(map(str, missing_n))}")
    ratio = threshold_ratio(transformers)
    rows, claims = fig4_rows(cells, unigram, ratio), fig4_verdicts(cells, unigram, ratio)
    checks.append(("Fig. 4", claims))
    fig4(rows, out / "fig4")
    data = rows.drop(columns=[c for c in rows if c.endswith("(ours)") or c.startswith("reached ")])
    shown = rows.drop(columns=[c for c in rows if c.endswith((" mean", " se")) or c.startswith("seeds reached ")])
    caption = _fill("fig4_caption", settings=_reductions(transformers, "fig4_reductions"),
                    perplexity=NUMBERS["fig4_perplexity"], paper_unigram=NUMBERS["paper_unigram_perplexity"])
    return [_fill("claims_heading", title="Fig. 4"), "",
            tables.write_claims(out, "fig4_claims", claims), "",
            *_table(out, "fig4", data, shown, _fill("fig4_title"), caption), _fill("fig4_image"), ""]


def compute(runs: pd.DataFrame) -> pd.DataFrame:
    """Training time of the finished runs per sweep (experiment), model and n: runs, hours in all and
    median minutes per run (train_seconds: the training epochs, without evaluations or start-up)."""
    done = runs[runs.status == "done"]
    rows = [{"experiment": experiment, "model": f"{MODELS[model]}{int(depth)}", "n": int(n), "runs": len(g),
             "train_hours": g.train_seconds.sum() / 3600, "minutes_per_run": g.train_seconds.median() / 60}
            for (experiment, model, depth, n), g in done.groupby(
                ["cfg.experiment_name", "cfg.model.name", "cfg.model.depth", "cfg.model.n"], sort=True)]
    return pd.DataFrame(rows, columns=["experiment", "model", "n", "runs", "train_hours", "minutes_per_run"])


def _compute_section(runs: pd.DataFrame, out: Path) -> list[str]:
    """The compute table written into out; its summary lines."""
    table = compute(runs)
    shown = tables.shown(table, {"train_hours": "{:.2f}", "minutes_per_run": "{:.1f}"}).rename(
        columns={"train_hours": "training h", "minutes_per_run": "min / run"})
    caption = _fill("compute_caption", runs=table.runs.sum(), hours=table.train_hours.sum())
    return _table(out, "compute", table, shown, _fill("compute_title"), caption)


def _table(out: Path, stem: str, data: pd.DataFrame, shown: pd.DataFrame, title: str, caption: str) -> list[str]:
    """The table written into out (tables.write); its summary lines: title, caption and Markdown."""
    tables.write(out, stem, data, shown, title, caption)
    return [f"## {title}", "", caption, "", tables.markdown(shown), ""]


def _fill(section: str, **fields) -> str:
    """The section of templates/phydi.md with its fields filled in (prose.fill)."""
    return prose.fill("phydi", section, **fields)


def _reductions(runs: pd.DataFrame, section: str, **fields) -> str:
    """The settings of the runs that a profile reduces, as 'label values; ...', with the settings and their
    labels of the template section `section` (lines 'setting: label')."""
    parts = []
    for line in _fill(section, **fields).splitlines():
        key, label = line.split(": ", 1)
        if f"cfg.{key}" in runs:
            values = sorted(set(runs[f"cfg.{key}"]), key=lambda v: (isinstance(v, str), v if v == v else 0))
            shown = (str(int(v)) if isinstance(v, float) and v.is_integer() else str(v) for v in values)
            parts.append(f"{label} {', '.join(shown)}")
    return "; ".join(parts)


def digest(checks: Checks) -> list[str]:
    """Markdown bullets grouping every verdict by outcome, each naming its cell in the paper's terms (the
    cells of a table without any runs of an arm: one bullet per table and claim); only the outcomes that
    have checks."""
    outcomes = dict(line.split(": ", 1) for line in _fill("outcomes").splitlines())
    groups = {outcome: [] for outcome in outcomes}
    for title, claims in checks:
        unrun = {}  # claim -> its cells without runs
        for row in claims:
            if row.verdict == engine.NOT_TESTABLE and row.reason.startswith("no finished runs"):
                unrun.setdefault(row.claim, []).append(row.cell)
            else:
                groups[row.verdict].append(_bullet(title, row))
        groups[engine.NOT_TESTABLE] += [_fill("bullet_unrun", title=title, claim=claim, count=len(cells),
                                              cells_word="cell" if len(cells) == 1 else "cells", cells="; ".join(cells))
                                        for claim, cells in unrun.items()]
    lines = []
    for outcome, text in outcomes.items():
        count = sum(row.verdict == outcome for _, claims in checks for row in claims)
        lines += [_fill("outcome", outcome=text, count=count, checks="check" if count == 1 else "checks"),
                  "", *groups[outcome], ""] if count else []
    return lines


def _bullet(title: str, row: engine.Verdict) -> str:
    """e.g. '- Table 1, PHResNet152, n = 4, vs standard, auc: ours 71.2 vs 65.3 (phydi vs standard),
    difference +5.9 [+1.2, +10.6]; ~9 seeds per arm would decide'."""
    shown = render.display(row)
    detail = shown["verdict"].removeprefix(row.verdict).strip(" ():")
    ours = _fill("bullet_ours", ours=shown["ours"], arms=shown["arms"],
                 difference=shown["difference [95 % interval]"]) if shown["ours"] else ""
    paper = _fill("bullet_paper", published=shown["paper"]) if row.paper else ""
    return _fill("bullet", title=title, cell=row.cell, metric=row.metric, ours=ours, published=paper,
                 detail=f"; {detail}" if detail else "")
