"""A claim cell's arm as runs: the settings of claims/data.py's Cell.select pick an arm's runs from a frame
of runs (one row per run, its settings in columns cfg.<key>, as in runs.csv)."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd


def arm_values(runs: pd.DataFrame, selector: Mapping[str, object], column):
    """seed -> `column` of the runs whose settings are the selector's (config key -> value), by seed; with a
    list of columns, seed x those columns. An arm of one cell has one run per seed; a selector of fewer
    settings (a cell's where) may pick several runs of a seed."""
    return runs.loc[_chosen(runs, selector)].set_index("cfg.seed")[column].sort_index(kind="stable")


def _chosen(runs: pd.DataFrame, selector: Mapping[str, object]) -> pd.Series:
    """Per run: whether its settings are the selector's (config key -> value)."""
    return pd.concat([runs[f"cfg.{k}"] == v for k, v in selector.items()], axis=1).all(axis=1)


def cell_runs(runs: pd.DataFrame, cell) -> tuple[str, ...]:
    """The names of the runs any arm of the cell (a claims Cell) selects by its settings; () where it selects
    none by settings (Cell.select {}) or `runs` lacks a setting it names."""
    chosen = [runs.loc[_chosen(runs, selector), "run"]
              for selector in cell.select.values() if all(f"cfg.{k}" in runs for k in selector)]
    return tuple(sorted(set(pd.concat(chosen)))) if chosen else ()
