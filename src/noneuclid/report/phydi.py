"""PHYDI's report: Tables 1-2 (phydi_resnet, judged by phydi_resnet_claims), Fig. 4 (phydi_fig4, judged by
phydi_fig4_claims), the ResNets' training speed (speed) and every sweep's training time (compute), redrawn
from the per-run data with every claim of claims/phydi.yaml judged, all gathered in summary.md; the prose is
templates/phydi.md's.

    python -m noneuclid.report phydi [--runs runs] [--profile cpu]
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from noneuclid import tables
from noneuclid.config import sweep_values
from noneuclid.figures.phydi import fig4
from noneuclid.report import phydi_resnet as resnet, phydi_resnet_claims as judged, provenance, table_engine
from noneuclid.report.phydi_fig4 import fig4_rows, threshold_ratio
from noneuclid.report.phydi_fig4_claims import fig4_verdicts
from noneuclid.runs import select, table as run_table
from noneuclid.runs.curves import evaluated
from noneuclid.runs.phydi import MODELS, NO_RUNS, NUMBERS, fill, lm_runs


def make(runs_dir: Path, profile: str, out: Path, seeds=None, overrides=()) -> list[Path]:
    """Write every table (CSV, Markdown, LaTeX), fig4 (PNG, PDF) and summary.md into out from its per-run data,
    after merging into it the runs under runs/phydi/<profile>."""
    if seeds or overrides:
        raise ValueError(fill("options_error"))
    runs, curves = run_table.load(runs_dir, "phydi", profile, out)
    if runs.empty:
        raise FileNotFoundError(fill("no_runs_error", runs_dir=runs_dir, profile=profile))
    curves = evaluated(curves)
    skipped, hours = [], compute(runs)  # the paper's parts and cells with no runs here; training time
    blocks = (
        _resnet_section(runs[select.chosen(runs, {"model.name": "phresnet"})], curves, out, skipped)
        + _fig4_section(runs[select.chosen(runs, {"model.name": "phtransformer"})], curves, out, skipped)
        + [table_engine.section("phydi", out, "compute", hours, runs=hours.runs.sum(), hours=hours.train_hours.sum())]
    )
    skips = [fill("skipped", skipped="; ".join(skipped)) + "\n"] if skipped else []
    (out / "summary.md").write_text("\n".join([fill("summary", profile=profile) + "\n", *skips, *blocks]))
    return sorted(out.iterdir())


def _resnet_section(resnets: pd.DataFrame, curves: pd.DataFrame, out: Path, skipped: list) -> list[str]:
    """Tables 1-2, their claims and the training speed written into out; their summary blocks. Appends to
    skipped what has no runs."""
    if resnets.empty:
        skipped.append(fill("no_runs", title="Tables 1-2"))
        return []
    reductions = _reductions(resnets, "resnet_reductions", images=resnet.IMAGES)
    caption, blocks = fill("table_caption", settings=reductions, x_fraction=NUMBERS["x_fraction"]), []
    for name in resnet.TABLES:
        runs, title = resnets[select.chosen(resnets, {"experiment_name": f"phydi/{name}"})], f"Table {name[-1]}"
        scored = resnet.resnet_runs(runs, curves, name)
        leads = judged.lead_verdicts(scored) if name == "table1" else []  # a claim over depths, listed without runs too
        if scored.empty:
            skipped.append(fill("no_runs", title=title))
            blocks.append(_claims(out, name, f"## {skipped[-1]}", leads, None) if leads else f"## {skipped[-1]}\n")
            continue
        missing = resnet.not_run(resnet.cells(scored, name), resnet.PAPER[name])
        skipped += [f"{title}: {missing}"] * bool(missing)
        numbers = resnet.numbers(scored, name)
        shown = table_engine.displayed("phydi", "resnet", numbers, level=resnet.M1_LEVEL)
        blocks += [
            _claims(out, name, fill("claims_heading", title=title), judged.resnet_claims(scored, name) + leads, scored),
            tables.section(out, name, numbers, shown, fill("table_title", title=title), caption),
        ]
    return blocks + [table_engine.section("phydi", out, "speed", speed(resnets))]


def _fig4_section(transformers: pd.DataFrame, curves: pd.DataFrame, out: Path, skipped: list) -> list[str]:
    """Fig. 4, its table and claims written into out; their summary blocks. Appends to skipped what has no runs."""
    lm, unigram = lm_runs(transformers, curves) if not transformers.empty else (NO_RUNS, {})
    if lm.empty:  # the claims still listed, each not testable here
        skipped.append(fill("no_runs", title="Fig. 4"))
        return [_claims(out, "fig4", f"## {skipped[-1]}", fig4_verdicts(NO_RUNS, {}), None)]
    missing_n = [n for n in (int(v) for v in sweep_values("phydi/fig4", "model.n")) if n not in set(lm["cfg.model.n"])]
    skipped += [f"Fig. 4: n = {', '.join(map(str, missing_n))}"] * bool(missing_n)
    ratio = threshold_ratio(transformers)
    rows = fig4_rows(lm, unigram, ratio)
    fig4(rows, out / "fig4")
    settings = _reductions(transformers, "fig4_reductions")  # the caption's, beside the paper's numbers
    numbers = {"perplexity": NUMBERS["fig4_perplexity"], "paper_unigram": NUMBERS["paper_unigram_perplexity"]}
    return [
        _claims(out, "fig4", fill("claims_heading", title="Fig. 4"), fig4_verdicts(lm, unigram, ratio), lm),
        table_engine.section("phydi", out, "fig4", rows, settings=settings, **numbers),
        fill("fig4_image") + "\n",
    ]


def _claims(out: Path, stem: str, heading: str, claims: list, runs: pd.DataFrame | None) -> str:
    """The claims table <stem>_claims written into out (provenance.write), with the provenance of the
    `runs` it read; its summary block."""
    return f"{heading}\n\n{provenance.write(out, f'{stem}_claims', claims, runs, 'phydi')}\n"


def _reductions(runs: pd.DataFrame, section: str, **fields) -> str:
    """'label values; ...' of the settings a profile reduces, listed in template `section` as 'setting: label'."""
    parts = []
    for key, label in (line.split(": ", 1) for line in fill(section, **fields).splitlines()):
        if f"cfg.{key}" in runs:
            values = sorted(set(runs[f"cfg.{key}"]), key=lambda v: (isinstance(v, str), v if v == v else 0))
            shown = (str(int(v)) if isinstance(v, float) and v.is_integer() else str(v) for v in values)
            parts.append(f"{label} {', '.join(shown)}")
    return "; ".join(parts)


def speed(resnets: pd.DataFrame) -> pd.DataFrame:
    """Per depth, n and torch threads of the finished runs: the median of their median seconds per epoch,
    images per second (data.train_size; null: all of CIFAR-10's)."""
    rows = []
    for s, g in select.by_settings(select.finished(resnets), ["model.depth", "model.n"]):
        model = f"{resnet.RESNET}{int(s['model.depth'])}"
        for threads, t in g.groupby("env.torch_threads"):
            images = t["cfg.data.train_size"].fillna(resnet.IMAGES).median()
            seconds = t.median_seconds_per_epoch.median()
            rows.append([model, int(s["model.n"]), len(t), int(threads), seconds, images / seconds])
    return pd.DataFrame(rows, columns=["model", "n", "runs", "threads", "seconds_per_epoch", "images_per_second"])


def compute(runs: pd.DataFrame) -> pd.DataFrame:
    """Per sweep, model and n of the finished runs: runs, training hours in all, median minutes per run."""
    rows, keys = [], ["experiment_name", "model.name", "model.depth", "model.n"]
    for s, g in select.by_settings(select.finished(runs), keys):
        model = f"{MODELS[s['model.name']]}{int(s['model.depth'])}"
        hours, minutes = g.train_seconds.sum() / 3600, g.train_seconds.median() / 60
        rows.append([s["experiment_name"], model, int(s["model.n"]), len(g), hours, minutes])
    return pd.DataFrame(rows, columns=["experiment", "model", "n", "runs", "train_hours", "minutes_per_run"])
