"""The table of runs: run folders read into tidy tables, and the per-run data committed with the results
(results/<paper>/<profile>/runs.csv: one row per ended run, its settings cfg.*, metrics and env.*;
curves.csv.gz: one row per run and logged evaluation; for the experiments whose curves a paper summarizes
into runs.csv, papers.Paper.summarized, only their evaluated epochs, in Paper.thin_curves). A run whose
folder is gone keeps its rows; 10 significant digits, so writing what was read gives the same bytes.
Reports select runs by their settings (runs.select)."""

from __future__ import annotations

import functools
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import yaml

from noneuclid.papers import PAPERS
from noneuclid.runs import is_held, read_metrics, select, settings_id
from noneuclid.runs.folder import CSV_COMPRESSION
from noneuclid.runs.settings import flatten

FLOAT_FORMAT = "%.10g"
THIN_DIGITS = 6  # the significant digits of a summarized experiment's curves (`thinned`), kept for every run
FILES = ("runs.csv", "curves.csv.gz")
LEADING = ["run", "status", "experiment", "settings_id", "seed", "dtype"]
LEFT_OUT = ("path", "cfg.paths.", "env.command", "env.platform", "env.processor", "env.python", "env.numpy")


# -- run folders ----------------------------------------------------------------------------------------
def run_folders(roots) -> list[Path]:
    """Every run folder (a folder with config.yaml) under the given roots, sorted; symbolic links to folders
    are followed (a root of links to run folders stored elsewhere)."""
    return sorted(
        {Path(d) for root in roots for d, _, files in os.walk(root, followlinks=True) if "config.yaml" in files}
    )


def status(folder: Path) -> str:
    """done | diverged | failed | running (a live process trains it) | stopped (killed or interrupted:
    the same command resumes it)."""
    for marker in ("DONE", "DIVERGED", "FAILED"):
        if (folder / marker).exists():
            return marker.lower()
    return "running" if is_held(folder) else "stopped"


def runs(roots) -> pd.DataFrame:
    """One row per run folder under the roots: name, path, status, flattened config, summary and env."""
    rows = []
    for folder in run_folders(roots):
        cfg = yaml.safe_load((folder / "config.yaml").read_text())
        row = {"run": folder.name, "path": str(folder), "status": status(folder), **flatten(cfg, "cfg.")}
        if (folder / "summary.json").exists():
            row.update(json.loads((folder / "summary.json").read_text()))
        env = json.loads((folder / "env.json").read_text()) if (folder / "env.json").exists() else {}
        row.update(flatten(env, "env."))
        row["settings_id"] = settings_id(cfg, bool(env.get("cuda")))
        rows.append(row)
    return pd.DataFrame(rows)


def curves(roots) -> pd.DataFrame:
    """One row per run and logged epoch, from metrics.jsonl."""
    frames = [
        pd.DataFrame(lines).assign(run=folder.name)
        for folder in run_folders(roots)
        if (lines := read_metrics(folder / "metrics.jsonl"))
    ]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def grouped(table: pd.DataFrame) -> pd.DataFrame:
    """Runs of the same settings (folder name without seed and hash, settings_id) as one row: runs per
    status, seeds, training minutes, and mean and s.d. over the finished runs of each final metric."""
    if table.empty:
        return table
    table = table.assign(settings=table.run.str.replace(r"-s\d+-[0-9a-f]{8}$", "", regex=True))
    metrics = sorted(
        c for c in table.columns if re.fullmatch(r"final_\w+_(accuracy|loss|perplexity)|test_accuracy_at_best_dev", c)
    )
    rows = []
    keys = ["cfg.study.paper", "cfg.profile.name", "settings", "settings_id"]
    for (paper, profile, settings, sid), g in table.groupby(keys, sort=True):
        done = select.finished(g)
        row = {
            "paper": paper,
            "profile": profile,
            "settings": settings,
            "settings_id": sid,
            "runs": len(g),
            "status": ", ".join(f"{n} {s}" for s, n in g.status.value_counts().sort_index().items()),
            "seeds": ",".join(str(x) for x in sorted(g["cfg.seed"])),
            "train minutes": g.train_seconds.sum() / 60 if "train_seconds" in g else float("nan"),
        }
        rows.append(
            row
            | {
                f"{m} {k}": v
                for m in metrics  # s.d. NaN below 2 finished runs
                for k, v in (("mean", done[m].mean()), ("sd", done[m].std(ddof=1)))
            }
        )
    return pd.DataFrame(rows)


# -- the committed per-run data -------------------------------------------------------------------------
def commits(runs: pd.DataFrame) -> str:
    """The commits (7 digits) the runs ran with, sorted and comma-separated ('no commit' for runs made
    outside a git checkout); '-' for no runs."""
    found = runs["env.git_commit"].fillna("no commit").astype(str)
    return ", ".join(sorted({c if c == "no commit" else c[:7] for c in found})) if len(runs) else "-"


def ended_runs(runs_dir: Path, paper: str, profile: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(runs, curves) of the ended runs under runs_dir/paper/profile, in the columns of the files."""
    root = Path(runs_dir) / paper / profile
    table = runs([root]) if root.is_dir() else pd.DataFrame()
    if table.empty:
        return table, pd.DataFrame()
    table = table[select.ended_as(table)]
    table = table.assign(
        experiment=table["cfg.experiment_name"], seed=table["cfg.seed"], dtype=table["cfg.trainer.dtype"]
    )
    table = table[[c for c in table.columns if not c.startswith(LEFT_OUT)]]
    logged = curves([root])
    return table, logged[logged.run.isin(table.run)] if not logged.empty else logged


def merged(old: pd.DataFrame, new: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """old's rows of runs that new does not have, and new's rows; sorted by keys, LEADING columns first."""
    if not old.empty and not new.empty:
        old = old[~old.run.isin(set(new.run))]
    parts = [t for t in (old, new) if not t.empty]
    if not parts:
        return pd.DataFrame()
    # a column of numbers that one side leaves null (a setting off in the new runs) is numbers, not objects
    # written as '2000.0': what is written reads back and writes again as the same bytes
    return ordered(pd.concat(parts, ignore_index=True).infer_objects(), keys)


def ordered(table: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """The table sorted by keys, its columns keys and LEADING first, then the rest by name."""
    first = list(dict.fromkeys(c for c in (*keys, *LEADING) if c in table.columns))
    return table[first + sorted(c for c in table.columns if c not in first)].sort_values(keys, kind="stable")


def rebound(curves: pd.DataFrame) -> pd.Series:
    """run -> the largest training loss logged after the run's lowest one (NaN where the lowest is last):
    at or above a classifier's chance level, its training was unstable."""
    logged = curves[curves.train_loss.notna()] if "train_loss" in curves else curves.iloc[0:0]
    best = logged.groupby("run").train_loss.transform("min")
    after = logged.epoch > logged.epoch.where(logged.train_loss == best).groupby(logged.run).transform("min")
    return logged[after].groupby("run").train_loss.max().reindex(logged.run.unique())


def summarized(
    table: pd.DataFrame, curves: pd.DataFrame, experiments, columns=("train_loss",)
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(runs, curves) of run folders (ended_runs) with the curves of the runs of `experiments` summarized
    into runs' train_loss_rebound (`rebound`) and thinned (`thinned`: their evaluated epochs, `columns`)."""
    chosen = curves.run.isin(table.run[table.experiment.isin(experiments)]) if not (table.empty or curves.empty) else []
    if not any(chosen):
        return table, curves
    found = rebound(curves[chosen])
    if len(found):
        table = ordered(table.assign(train_loss_rebound=table.run.map(found)), ["run"])
    return table, pd.concat([curves[~chosen], thinned(curves[chosen], columns)], ignore_index=True)


def thinned(curves: pd.DataFrame, columns) -> pd.DataFrame:
    """The rows of `curves` at evaluated epochs (with a test_ metric), in run, step, epoch and those of
    `columns` it has, rounded to THIN_DIGITS significant digits (for Table 2, a tenth of its rows: a row
    every epoch, an evaluation every 10)."""
    evaluated = curves.filter(like="test_").notna().any(axis=1)
    kept = curves.loc[evaluated, [c for c in ("run", "step", "epoch", *columns) if c in curves]]
    return kept.assign(**{c: kept[c].map(lambda v: float(f"{v:.{THIN_DIGITS}g}")) for c in columns if c in kept})


def export(runs_dir: Path, paper: str, profile: str, out: Path) -> list[Path]:
    """Write (merge into) out/runs.csv and out/curves.csv.gz; returns the files written."""
    found = summarized(
        *ended_runs(runs_dir, paper, profile),
        [f"{paper}/{e}" for e in PAPERS[paper].summarized],
        PAPERS[paper].thin_curves,
    )
    written = []
    for name, old, new, keys in zip(FILES, read(out), found, (["run"], ["run", "step"])):
        table = merged(old, new, keys)
        path = Path(out) / name
        if table.empty:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(path, index=False, float_format=FLOAT_FORMAT, compression=CSV_COMPRESSION)
        written.append(path)
    return written


def read(out: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(runs, curves): out/runs.csv and out/curves.csv.gz, an empty frame for a file that is not there."""
    return tuple(
        pd.read_csv(Path(out) / name, low_memory=False) if (Path(out) / name).is_file() else pd.DataFrame()
        for name in FILES
    )


def load(runs_dir: Path, paper: str, profile: str, out: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """`read(out)` after `export`."""
    export(runs_dir, paper, profile, out)
    return read(out)


@dataclass(frozen=True)
class Runs:
    """The per-run data (`load` or `ended_runs`) looked up by run name: finished runs and logged evaluations."""

    table: pd.DataFrame
    curves: pd.DataFrame

    @functools.cached_property
    def done(self) -> pd.DataFrame:
        """The rows of the finished runs, indexed by run name."""
        if self.table.empty:
            return pd.DataFrame(columns=["run"]).set_index("run", drop=False)
        return select.finished(self.table).set_index("run", drop=False)

    @functools.cached_property
    def _curves(self) -> dict[str, pd.DataFrame]:
        return dict(tuple(self.curves.groupby("run", sort=False))) if not self.curves.empty else {}

    def finished(self, names) -> pd.DataFrame:
        """The rows of the finished runs among `names`, in their order."""
        return self.done.loc[[n for n in names if n in self.done.index]]

    def curve(self, name: str) -> pd.DataFrame:
        """A run's rows of the curves (its metrics.jsonl), in the order logged; empty without any."""
        return self._curves.get(name, self.curves.iloc[0:0])

    def metrics(self, name: str) -> list[dict]:
        """A run's logged rows as metrics.jsonl has them (no NaN)."""
        return [{k: v for k, v in row.items() if v == v} for row in self.curve(name).to_dict("records")]
