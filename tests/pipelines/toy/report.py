"""The toy paper's report: Table 1 (claims/toy_tables.yaml) and the claim of claims/toy.yaml judged, gathered in
summary.md; the prose is templates/toy.md's.

    python -m noneuclid.report toy [--runs runs] [--profile smoke]
"""

from __future__ import annotations

import functools
from pathlib import Path

import pandas as pd

from noneuclid import prose, tables
from noneuclid.claims import data as claims_data, engine, render
from noneuclid.report import provenance, table_engine
from noneuclid.runs import select, table as run_table

fill = functools.partial(prose.fill, "toy")  # a section of templates/toy.md, its fields filled in


def make(runs_dir: Path, profile: str, out: Path) -> list[Path]:
    """Table 1 (CSV, Markdown, LaTeX), the claims' verdicts and summary.md written into out, from the runs
    under runs/toy/<profile> merged into its runs.csv."""
    runs, _ = run_table.load(runs_dir, "toy", profile, out)
    finished = select.finished(runs)
    if finished.empty:
        raise FileNotFoundError(fill("no_runs", runs=Path(runs_dir) / "toy" / profile, profile=profile))
    spec = table_engine.load("toy")["table1"]
    cells = [(row, column) for row in spec["rows"]["settings"] for column in spec["columns"]["settings"]]
    data = table_engine.data("toy", "table1", finished, cells)
    caption = fill("table1_caption", epochs=int(finished["cfg.trainer.epochs"].max()))
    table = tables.section(
        out, "table1", data, table_engine.shown("toy", "table1", data), fill("table1_title"), caption
    )
    claims = render.write(out, "claims", provenance.final(verdicts(finished), finished, "toy"))
    (out / "summary.md").write_text(fill("summary", profile=profile, table=table, claims=claims) + "\n")
    return sorted(out.iterdir())


def verdicts(finished: pd.DataFrame) -> list[engine.Verdict]:
    """Every cell of claims/toy.yaml, judged on the per-seed metric of its arms' runs."""
    return [
        engine.judge(
            claim,
            cell,
            *(list(select.arm_values(finished, cell.select[arm], claim.metric)) for arm in cell.arms),
            runs=select.cell_runs(finished, cell),
        )
        for claim in claims_data.load("toy").claims
        for cell in claim.cells
    ]
