"""The paper-scale tables (bench/paper_scale.py) as Markdown, and their block in docs/benchmarks.md
between the markers <!-- bench:paper_scale:start --> and <!-- bench:paper_scale:end -->."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from noneuclid import prose, tables

BLOCK = "bench:paper_scale"  # docs/benchmarks.md's markers: <!-- bench:paper_scale:start --> and :end
SHOWN = {
    "paper": None,
    "experiment": None,
    "model": None,
    "device": None,
    "data": None,
    "samples_per_s": "{:,.1f}",
    "baseline_samples_per_s": "{:,.1f}",
    "ratio": "{:.2f}",
    "peak_mem_gib": "{:.2f}",
    "data_wait_share": "{:.1%}",
    "sweep_hours": "{:,.1f}",
    "runs": "{:d}",
    "stacked": "{:d}",
    "epochs": "{:d}",
    "same_runs_as": None,
    "note": None,
}


def totals(frame: pd.DataFrame) -> pd.DataFrame:
    """Per paper and device: the sweep hours of every experiment, runs shared with an earlier row counted once."""
    own = frame[frame.same_runs_as.fillna("").astype(str) == ""]
    return (
        own.groupby(["paper", "device"], sort=False)
        .agg(sweep_hours=("sweep_hours", "sum"), runs=("runs", "sum"))
        .reset_index()
    )


def markdown(frame: pd.DataFrame) -> str:
    """The rows, then the sweep hours per paper and device."""
    formats = {k: v for k, v in SHOWN.items() if v}
    shown = tables.shown(frame[list(SHOWN)], formats, missing="")
    total = totals(frame)
    sums = tables.shown(total, {"sweep_hours": "{:,.1f}", "runs": "{:d}"})
    per_paper = "Per paper (runs shared by two experiments counted once):"
    return f"{tables.markdown(shown)}\n\n{per_paper}\n\n{tables.markdown(sums)}"


def _read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype={"same_runs_as": str, "note": str}, keep_default_na=False)


def update(docs: Path, csvs: list[Path]) -> None:
    """Replace the block of `docs` with one section per CSV (its file name, then its tables)."""
    if not csvs:
        raise FileNotFoundError("no results/bench/paper_scale_*.csv: run python -m noneuclid.bench paper-scale first")
    sections = [f"`{path}`:\n\n{markdown(_read(path))}" for path in csvs]
    if not prose.replace_block(docs, BLOCK, "\n\n".join(sections)):
        raise ValueError(f"{docs} lacks <!-- {BLOCK}:start --> ... <!-- {BLOCK}:end -->: add them where the tables go")
