"""What PHYDI's Tables 1-2 (phydi_resnet) and Fig. 4 (phydi_fig4) share: claims/phydi.yaml, the prose of
templates/phydi.md, the runs with their curves, and the first epoch a curve reaches a level."""

from __future__ import annotations

import functools
import math

import pandas as pd

from noneuclid import prose
from noneuclid.claims import data as claims_data

CLAIMS = claims_data.load("phydi")
NUMBERS = CLAIMS.numbers  # the levels and reference values the metrics use (claims/phydi.yaml, numbers)
NAMES = CLAIMS.labels["arms"]  # model.init / model.norm -> the paper's name
fill = functools.partial(prose.fill, "phydi")  # a section of templates/phydi.md, its fields filled in


def no_runs(arms, have) -> str:
    """'no finished runs of A, B' naming the arms that are not in `have`; '' where none is missing."""
    missing = [NAMES[a] for a in arms if a not in have]
    return f"no finished runs of {', '.join(missing)}" if missing else ""


def with_curves(runs: pd.DataFrame, curves: pd.DataFrame, column: str, cell: list[str]) -> pd.DataFrame:
    """The runs, one per seed of a cell (the settings `cell`, cfg.<key>), sorted by cell and seed, each with
    its curve: `column` by epoch (a Series, empty where none was logged)."""
    twins = runs[runs.duplicated([*cell, "cfg.seed"], keep=False)]
    if not twins.empty:
        raise ValueError(f"runs {', '.join(twins.run)} share a cell and a seed but differ in another setting: "
                         f"keep one setting per profile under runs/phydi/<profile> (move the others away)")
    logged = {run: c.set_index("epoch")[column].dropna().sort_index()
              for run, c in curves[curves.run.isin(runs.run)].groupby("run")}
    runs = runs.sort_values([*cell, "cfg.seed"])
    return runs.assign(curve=pd.Series([logged.get(r, pd.Series(dtype=float)) for r in runs.run],
                                       index=runs.index, dtype=object))


def epochs_to(curve: pd.Series, threshold: float, above: bool = True) -> float:
    """The first epoch (curve's index) whose value is >= threshold (above) or <= threshold; inf if none."""
    hit = curve[curve >= threshold] if above else curve[curve <= threshold]
    return float(hit.index.min()) if len(hit) else math.inf
