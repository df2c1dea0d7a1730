"""The per-run data committed with the results, so that tables can be redrawn without run folders:

    results/<paper>/<profile>/runs.csv    one row per ended run (done, diverged, failed): its folder
                                          name, status, experiment, settings id, seed, dtype, every
                                          setting (cfg.*), the metrics of summary.json, and the commit,
                                          torch version and threads it ran with (env.*)
    results/<paper>/<profile>/curves.csv.gz  one row per run and logged evaluation (metrics.jsonl),
                                             gzipped

Written from the run folders under runs/<paper>/<profile> and merged with the rows already there: a
run whose folder is gone (another machine, an earlier session) keeps its rows, a run found again
replaces them. Numbers are written with 10 significant digits, so that writing what was read gives
the same bytes.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from noneuclid.report import aggregate
from noneuclid.runs.folder import CSV_COMPRESSION

FLOAT_FORMAT = "%.10g"
FILES = ("runs.csv", "curves.csv.gz")

LEADING = ["run", "status", "experiment", "settings_id", "seed", "dtype"]
LEFT_OUT = ("path", "cfg.paths.", "env.command", "env.platform", "env.processor", "env.python", "env.numpy")


def commits(runs: pd.DataFrame) -> str:
    """The commits (7 digits) the runs ran with, sorted and comma-separated; '-' for no runs."""
    return ", ".join(sorted(runs["env.git_commit"].astype(str).str[:7].unique())) if len(runs) else "-"


def ended_runs(runs_dir: Path, paper: str, profile: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(runs, curves) of the ended runs under runs_dir/paper/profile, in the columns of the files."""
    root = Path(runs_dir) / paper / profile
    if not root.is_dir():
        return pd.DataFrame(), pd.DataFrame()
    runs = aggregate.runs([root])
    if runs.empty:
        return runs, pd.DataFrame()
    runs = runs[runs.status.isin(["done", "diverged", "failed"])]
    runs = runs.assign(experiment=runs["cfg.experiment_name"], seed=runs["cfg.seed"], dtype=runs["cfg.trainer.dtype"])
    runs = runs[[c for c in runs.columns if not c.startswith(LEFT_OUT)]]
    curves = aggregate.curves([root])
    curves = curves[curves.run.isin(runs.run)] if not curves.empty else curves
    return runs, curves


def merged(old: pd.DataFrame, new: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """old's rows of runs that new does not have, and new's rows; sorted by keys, LEADING columns first."""
    if not old.empty and not new.empty:
        old = old[~old.run.isin(set(new.run))]
    parts = [t for t in (old, new) if not t.empty]
    if not parts:
        return pd.DataFrame()
    table = pd.concat(parts, ignore_index=True)
    first = [c for c in (*keys, *LEADING) if c in table.columns]
    first = list(dict.fromkeys(first))
    return table[first + sorted(c for c in table.columns if c not in first)].sort_values(keys, kind="stable")


def export(runs_dir: Path, paper: str, profile: str, out: Path) -> list[Path]:
    """Write (merge into) out/runs.csv and out/curves.csv.gz; returns the files written."""
    runs, curves = ended_runs(runs_dir, paper, profile)
    written = []
    for name, new, keys in zip(FILES, (runs, curves), (["run"], ["run", "step"])):
        path = Path(out) / name
        old = pd.read_csv(path, low_memory=False) if path.exists() else pd.DataFrame()
        table = merged(old, new, keys)
        if table.empty:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(path, index=False, float_format=FLOAT_FORMAT, compression=CSV_COMPRESSION)
        written.append(path)
    return written



def load(runs_dir: Path, paper: str, profile: str, out: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(runs, curves): out/runs.csv and out/curves.csv.gz after merging into them the ended runs under
    runs_dir/paper/profile (`export`); an empty frame for a file that is not there."""
    export(runs_dir, paper, profile, out)
    runs, curves = (pd.read_csv(Path(out) / name, low_memory=False) if (Path(out) / name).is_file() else pd.DataFrame()
                    for name in FILES)
    return runs, curves


@dataclass(frozen=True)
class Runs:
    """The per-run data of a results folder (`load`) or of run folders (`ended_runs`), looked up by run
    (folder) name: its finished runs (status done) and each run's logged evaluations."""
    table: pd.DataFrame
    curves: pd.DataFrame

    @functools.cached_property
    def done(self) -> pd.DataFrame:
        """The rows of the finished runs, indexed by run name."""
        if self.table.empty:
            return pd.DataFrame(columns=["run"]).set_index("run", drop=False)
        return self.table[self.table.status == "done"].set_index("run", drop=False)

    @functools.cached_property
    def _curves(self) -> dict[str, pd.DataFrame]:
        return dict(tuple(self.curves.groupby("run", sort=False))) if not self.curves.empty else {}

    def finished(self, names) -> pd.DataFrame:
        """The rows of the finished runs among `names`, in their order."""
        return self.done.loc[[n for n in names if n in self.done.index]]

    def is_done(self, name: str) -> bool:
        return name in self.done.index

    def curve(self, name: str) -> pd.DataFrame:
        """A run's rows of the curves (its metrics.jsonl), in the order logged; empty without any."""
        return self._curves.get(name, self.curves.iloc[0:0])

    def metrics(self, name: str) -> list[dict]:
        """A run's logged rows as metrics.jsonl has them: each with the metrics logged in it (no NaN)."""
        return [{k: v for k, v in row.items() if v == v} for row in self.curve(name).to_dict("records")]
