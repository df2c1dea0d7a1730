"""Brantner's drift figure and its drift and timing tables (claims/brantner_tables.yaml), from the CSVs
`python -m noneuclid.evaluate` writes into results/brantner/<profile>/ (drift.csv, drift_authors.csv,
drift_one_step.csv, timing.csv and, from a GPU machine, timing_gpu.csv)."""

from __future__ import annotations

from pathlib import Path

from noneuclid.figures import brantner as drawn
from noneuclid.report import table_engine
from noneuclid.report.brantner_claims import BOUND, OPTIMIZERS, TIMINGS, read, summarised


def drift_section(out: Path) -> str:
    """Draw drift and write drift_summary (per optimizer and retraction at the last step, max and median over
    the projections: mean and range over seeds, the authors' and the bound) and, with drift_one_step.csv,
    drift_one_step (the change of YᵀY in one update over the samples) in `out` from its CSVs; their part of
    summary.md ("" without)."""
    if (ours := read(out, "drift.csv")) is None or (authors := read(out, "drift_authors.csv")) is None:
        return ""
    drawn.drift(ours, authors, out / "drift", OPTIMIZERS, BOUND)
    last = ours[ours.step == ours.step.max()]
    last = last.merge(authors.add_prefix("authors_"), left_on="optimizer", right_on="authors_optimizer")
    fields = {"projections": authors.projections.iloc[0], "steps": ours.step.max()}
    section = table_engine.section("brantner", out, "drift_summary", summarised("drift_summary", last), **fields)
    section += "\n![drift](drift.png)\n"
    if (steps := read(out, "drift_one_step.csv")) is not None:
        shown = table_engine.displayed("brantner", "drift_one_step", steps)
        fields = {"samples": steps.samples.iloc[0], "lr": steps.lr.iloc[0]}
        section += "\n" + table_engine.section("brantner", out, "drift_one_step", None, shown, **fields)
    return section


def timing_section(out: Path) -> str:
    """Write timing_summary and timing_gpu_summary in `out` from timing.csv and timing_gpu.csv (per arm,
    seconds per step: mean, s.d.; per epoch; the ratio to Euclidean Adam's mean); their part of summary.md
    ("" without either file)."""
    parts = []
    for claim, (name, _) in TIMINGS.items():
        if (timing := read(out, name)) is not None:
            data, first = summarised("timing", timing), timing.iloc[0]
            fields = {"rounds": timing.repeat.nunique(), "threads": first.threads, "processor": first.processor}
            shown, stem = table_engine.displayed("brantner", "timing", data), name.removesuffix(".csv") + "_summary"
            parts.append(table_engine.section("brantner", out, stem, data, shown, claim=claim, **fields))
    return "\n".join(parts)
