"""Runs selected by their settings, the one way every table, claim, figure and evaluation picks runs from a
frame of runs (one row per run, its status, settings_id and its settings in columns cfg.<key>, as in
runs.csv): by settings values (a claims Cell's where and select: config key -> value), or by all the
settings of a training command (the settings_id its config composes to). "Finished" is defined here."""

from __future__ import annotations

import functools
import itertools
from collections.abc import Mapping

import pandas as pd
from omegaconf import OmegaConf

from noneuclid.config import compose, sweep_params
from noneuclid.runs.settings import OFF_WHEN_DEFAULT, settings_id

# a run that ended (will not train further; its row is kept in runs.csv): finished (trained to its end),
# diverged (stopped at a non-finite loss) or failed
FINISHED, DIVERGED, FAILED = ENDED = ("done", "diverged", "failed")


def finished(runs: pd.DataFrame) -> pd.DataFrame:
    """The finished runs of `runs` (those that trained to their end)."""
    return runs[ended_as(runs, (FINISHED,))] if len(runs) else runs


def ended_as(runs: pd.DataFrame, statuses=ENDED) -> pd.Series:
    """Per run: whether it ended with one of `statuses` (default: any end)."""
    return runs.status.isin(statuses)


def arm_values(runs: pd.DataFrame, selector: Mapping[str, object], column):
    """seed -> `column` of the runs whose settings are the selector's (config key -> value), by seed; with a
    list of columns, seed x those columns. An arm of one cell has one run per seed; a selector of fewer
    settings (a cell's where) may pick several runs of a seed."""
    return runs.loc[chosen(runs, selector)].set_index("cfg.seed")[column].sort_index(kind="stable")


def chosen(runs: pd.DataFrame, selector: Mapping[str, object]) -> pd.Series:
    """Per run: whether its settings are the selector's (config key -> value; None: the key unset or null). A
    setting added after runs existed with the default those runs computed (runs.settings.OFF_WHEN_DEFAULT)
    reads that default where a run lacks it."""
    unset = pd.Series(None, index=runs.index, dtype=object)
    have = {k: runs[f"cfg.{k}"] if f"cfg.{k}" in runs else unset for k in selector}
    have = {k: v.fillna(OFF_WHEN_DEFAULT[k]) if k in OFF_WHEN_DEFAULT else v for k, v in have.items()}
    return pd.concat([have[k].isna() if v is None else have[k] == v for k, v in selector.items()], axis=1).all(axis=1)


def by_settings(runs: pd.DataFrame, keys) -> list[tuple[dict, pd.DataFrame]]:
    """(settings: config key -> value, its runs) per distinct value of the settings `keys` the runs have (a
    run without one of them in none), in the order of those values."""
    groups = runs.groupby([f"cfg.{k}" for k in keys], sort=True)
    return [(dict(zip(keys, values)), group) for values, group in groups]


def any_of(runs: pd.DataFrame, selectors) -> pd.Series:
    """Per run: whether its settings are those of one of the selectors (`chosen`)."""
    return pd.concat([pd.Series(False, index=runs.index), *(chosen(runs, s) for s in selectors)], axis=1).any(axis=1)


def cell_runs(runs: pd.DataFrame, cell) -> tuple[str, ...]:
    """The names of the runs any arm of the cell (a claims Cell) selects by its settings; () where it selects
    none by settings (Cell.select {}) or `runs` lacks a setting it names."""
    found = [
        runs.loc[chosen(runs, selector), "run"]
        for selector in cell.select.values()
        if all(f"cfg.{k}" in runs for k in selector)
    ]
    return tuple(sorted(set(pd.concat(found)))) if found else ()


def trained_by(runs: pd.DataFrame, overrides) -> pd.DataFrame:
    """The finished runs of `runs` whose settings, but the seed, are those `python -m noneuclid.train
    <overrides>` composes (on a machine with or without a GPU), in their order."""
    done = finished(runs)
    return done[done.settings_id.isin(settings_ids(tuple(overrides)))] if len(done) else done


def swept(runs: pd.DataFrame, experiment: str, overrides, data=None, named: str | None = None) -> pd.DataFrame:
    """The finished runs of experiment `experiment` with `overrides` (e.g. profile=cpu) on each of the `data`
    (None: the experiment's own), of every combination of the values it sweeps but the seed
    (config.sweep_params; a run's settings leave its seed out), by the settings each composes (trained_by):
    one run per seed (the last) of each, in that order; with `named` (a key it sweeps), that key's value of
    each run's combination in a column of that name."""
    params = {k: v for k, v in sweep_params(experiment).items() if k != "seed"}
    combinations = [dict(zip(params, values)) for values in itertools.product(*params.values())]
    found = [
        trained_by(runs, [f"experiment={experiment}", *(f"{k}={v}" for k, v in c.items()), *d, *overrides]).assign(
            **({named: c[named]} if named else {})
        )
        for c in combinations
        for d in ([[]] if data is None else [[f"data={d}"] for d in data])
    ]
    kept = [f.drop_duplicates("cfg.seed", keep="last") for f in found if len(f)]
    return pd.concat(kept or found[:1] or [runs.iloc[0:0]])  # none found: empty, with the `named` column


@functools.cache
def settings_ids(overrides: tuple[str, ...]) -> frozenset[str]:
    """The settings_id of the runs of `python -m noneuclid.train <overrides>`, on the CPU and with a GPU."""
    c = OmegaConf.to_container(compose(list(overrides)), resolve=True)
    return frozenset(settings_id(c, cuda) for cuda in (False, True))
