"""Runs with their curves: each run's logged evaluations (curves.csv.gz) as a Series by epoch, and the first
epoch a curve reaches a level."""

from __future__ import annotations

import math

import pandas as pd


def evaluated(curves: pd.DataFrame) -> pd.DataFrame:
    """The rows of curves.csv.gz of evaluated epochs, the last where one is logged twice."""
    curves = curves[curves["epoch"].notna() & curves.filter(like="val_").notna().any(axis=1)]
    return curves.drop_duplicates(["run", "epoch"], keep="last")


def with_curves(runs: pd.DataFrame, curves: pd.DataFrame, column: str, cell: list[str]) -> pd.DataFrame:
    """The runs, one per seed of a cell (the settings `cell`: config keys), sorted by cell and seed, each with
    its curve: `column` by epoch (a Series, empty where none was logged)."""
    cell = [f"cfg.{k}" for k in [*cell, "seed"]]
    twins = runs[runs.duplicated(cell, keep=False)]
    if not twins.empty:
        raise ValueError(
            f"runs {', '.join(twins.run)} share a cell and a seed but differ in another setting: "
            f"keep one setting per profile under runs/<paper>/<profile> (move the others away)"
        )
    logged = {
        run: c.set_index("epoch")[column].dropna().sort_index()
        for run, c in curves[curves.run.isin(runs.run)].groupby("run")
    }
    runs = runs.sort_values(cell)
    return runs.assign(
        curve=pd.Series([logged.get(r, pd.Series(dtype=float)) for r in runs.run], index=runs.index, dtype=object)
    )


def epochs_to(curve: pd.Series, threshold: float, above: bool = True) -> float:
    """The first epoch (curve's index) whose value is >= threshold (above) or <= threshold; inf if none."""
    hit = curve[curve >= threshold] if above else curve[curve <= threshold]
    return float(hit.index.min()) if len(hit) else math.inf
