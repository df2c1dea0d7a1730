"""Which undecided cells more seeds would decide, and what the seeds cost: the validated practice of
claims/validation.py (a further look at up to LOOK_UP_TO seeds per arm, where seeds_to_decide says so)
as a list to work from.

    python -m noneuclid.claims next [--results results] [--kind paper] [--up-to 10]

A cell qualifies when its verdict is consistent or inconclusive and its seeds_to_decide (at the claim's
adjusted level) is at most up_to. Its cost: the runs it lacks (each arm up to seeds_to_decide; an arm
against a bound has no runs) times the mean train time of the runs it reads now (cpu_hours / runs read);
unknown (NaN) where the cell reads no training runs (an evaluation), listed last; on the hardware those runs
were trained on (the hardware column)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from noneuclid.claims.engine import CONSISTENT, DECIDED, INCONCLUSIVE
from noneuclid.claims.validation import LOOK_UP_TO

COLUMNS = "file claim cell verdict n_a n_b seeds_to_decide runs_to_add hours_to_add hardware".split()


def read(results: Path) -> pd.DataFrame:
    """Every cell of every claims table under results/<paper>/<profile>/, with its file (relative)."""
    files = sorted(Path(results).glob("*/*/*claims.csv"))
    frames = [pd.read_csv(f).assign(file=str(f.relative_to(results))) for f in files]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["file", "kind", "verdict"])


def next_seeds(cells: pd.DataFrame, up_to: int = LOOK_UP_TO) -> pd.DataFrame:
    """The undecided cells that at most up_to seeds per arm would decide, cheapest first (COLUMNS)."""
    undecided = cells[cells.verdict.isin([CONSISTENT, INCONCLUSIVE]) & (cells.seeds_to_decide <= up_to)]
    target = undecided.seeds_to_decide
    add_a = (target - undecided.n_a).clip(lower=0)
    add_b = (target - undecided.n_b).clip(lower=0).where(undecided.n_b > 0, 0)
    runs = (add_a + add_b).astype(int)
    hours = runs * undecided.cpu_hours / (undecided.n_a + undecided.n_b)
    plan = undecided.assign(runs_to_add=runs, hours_to_add=hours.round(2))[COLUMNS]
    return plan.sort_values(["hours_to_add", "runs_to_add"], na_position="last", kind="stable")


def decided_share(cells: pd.DataFrame) -> tuple[int, int]:
    """(cells decided at the adjusted level, cells)."""
    return int(cells.verdict.isin(DECIDED).sum()), len(cells)
