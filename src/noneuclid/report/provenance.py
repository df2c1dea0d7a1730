"""Where each verdict comes from: its claim's rule as registered (claims/registered.csv: commit and date), the
date of the newest commit its runs trained from (git's committer date of env.git_commit, a lower bound on when
they ran), whether the rule cannot be shown to come before every one of them, and their compute (hours, a
stacked run's share of its stack's; the machines by env.cpu_count and env.cuda); and how many looks the cell
has had (claims.plan.looks, over the history of its table in this clone's results/) against those the
engine's validation covers for its kind of interval (claims.plan.validated_looks)."""

import functools
import math
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pandas as pd

from noneuclid.claims import data as claims_data, engine, ledger, plan, render
from noneuclid.claims.engine import Verdict
from noneuclid.runs import select

UNKNOWN = "unknown"  # a run's commit that git cannot date here (not in this clone's history)


def final(rows: Sequence[Verdict], runs: pd.DataFrame | None, paper: str) -> list[Verdict]:
    """The claims table's rows as written: Holm-adjusted over each claim's cells (engine.adjusted), each with
    its rule's registration and the date and compute of its runs (`runs`: the run table the report read, one
    row per run with columns run, train_seconds, env.* and cfg.*; None: no runs). A row's runs are those it
    names, else those its cell's settings select (Cell.select)."""
    claims, registered, out = claims_data.load(paper), ledger.read(), []
    known = runs is not None and "run" in runs
    for row in engine.adjusted(rows):
        claim = claims[row.claim]
        if not row.runs and known:
            row = replace(row, runs=select.cell_runs(runs, claim.cell(row.cell)))
        rule = ledger.registration(paper, claim, registered)
        if rule.commit == ledger.UNREGISTERED:
            print(
                f"warning: claim {row.claim!r}: its rule is not registered; commit claims/{paper}.yaml, then "
                f"`python -m noneuclid.claims register {paper}` and commit claims/registered.csv",
                file=sys.stderr,
            )
        used = runs[runs.run.isin(row.runs)] if known else pd.DataFrame()
        since, until = _dates(used) if len(used) else ("", "")
        stamp = dict(rule_commit=rule.commit, rule_registered=rule.registered, runs_until=until, cpu_hours=_hours(used))
        out.append(replace(row, **stamp, rule_after_runs=_after(rule, since, row), hardware=_hardware(used)))
    return out


def write(out: Path, stem: str, rows: Sequence[Verdict], runs: pd.DataFrame | None, paper: str, title=None) -> str:
    """The claims table <stem> of `paper` in `out` (results/<paper>/<profile>/ or its copy: render.write), its
    rows `final` and `looked`; returns its Markdown."""
    return render.write(out, stem, looked(final(rows, runs, paper), paper, Path(out).name, stem), title)


def looked(rows: Sequence[Verdict], paper: str, profile: str, stem: str, results: Path | None = None) -> list[Verdict]:
    """The rows with their looks (the distinct seed counts each cell was judged at over the committed versions
    of results/<paper>/<profile>/<stem>.csv, these rows included; `results`: a git clone's results/, default
    this clone's) and whether a decided cell has had more than validated for its kind of interval; unchanged,
    with a warning, outside a git clone or without results/engine/validation.csv."""
    counted = _counted(results or _published(), render.frame(rows).assign(file=f"{paper}/{profile}/{stem}.csv"))
    if counted is None:
        print(f"warning: {stem}: looks not counted (no git clone with results/{plan.VALIDATION})", file=sys.stderr)
        return list(rows)
    return [
        replace(row, looks=int(n), beyond_validated_looks=bool(row.verdict in engine.DECIDED and n > most))
        for row, n, most in zip(rows, *counted)
    ]


def _counted(results: Path | None, cells: pd.DataFrame) -> tuple[pd.Series, pd.Series] | None:
    """(looks, looks validated) per cell (claims.plan), or None without a git clone's results/ that holds
    engine/validation.csv."""
    if results is None or not (results / plan.VALIDATION).is_file():
        return None
    try:
        looks = plan.looks(results, cells)
    except LookupError:  # not in a git clone
        return None
    return looks, plan.max_looks(cells, plan.validated_looks(pd.read_csv(results / plan.VALIDATION)))


@functools.cache
def _published() -> Path | None:
    """The results/ of the git clone this package runs from (the claims tables' history), None outside one."""
    top = subprocess.run(
        ["git", "-C", str(claims_data.DIR), "rev-parse", "--show-toplevel"], capture_output=True, text=True
    )
    return None if top.returncode else Path(top.stdout.strip()) / "results"


def _after(rule: ledger.Registration, since: str, row: Verdict) -> bool:
    """Whether the cell's rule cannot be shown to come before every one of its runs: registered after the
    oldest of their dates, or a date unknown (no registration; runs or an evaluation that git cannot date).
    A cell judged on nothing (not testable, no runs) is not flagged."""
    if row.verdict == engine.NOT_TESTABLE and not row.runs:
        return False
    return not (rule.registered and since not in ("", UNKNOWN) and rule.registered <= since)


def _hours(runs: pd.DataFrame) -> float:
    """The runs' training time in hours (a stacked run's train_seconds is already its share of its stack's:
    train.trainer.train_epoch); nan without runs or a train_seconds column."""
    if not len(runs) or "train_seconds" not in runs:
        return math.nan
    return float(runs.train_seconds.sum() / 3600)


def _dates(runs: pd.DataFrame) -> tuple[str, str]:
    """The oldest and the newest committer date (UTC, ISO 8601) of the commits the runs trained from;
    UNKNOWN for both where one of them cannot be dated here."""
    dates = [_commit_date(c) for c in runs["env.git_commit"].dropna().unique()] if "env.git_commit" in runs else []
    return (UNKNOWN, UNKNOWN) if not dates or UNKNOWN in dates else (min(dates), max(dates))


@functools.cache
def _commit_date(commit: str) -> str:
    """git's committer date of `commit` in UTC, ISO 8601 to the second; UNKNOWN where git has no such commit."""
    found = subprocess.run(
        ["git", "-C", str(claims_data.DIR), "show", "-s", "--format=%ct", commit], capture_output=True, text=True
    )
    if found.returncode or not found.stdout.strip():
        return UNKNOWN
    return pd.Timestamp(int(found.stdout.split()[0]), unit="s", tz="UTC").strftime("%Y-%m-%dT%H:%M:%SZ")


def _hardware(runs: pd.DataFrame) -> str:
    """The machines the runs trained on: the GPU's name, else 'CPU (<n> cores)', each once, sorted ("" for none)."""
    machines = runs.reindex(columns=["env.cuda", "env.cpu_count"]).itertuples(index=False)
    kinds = {g if isinstance(g, str) and g else f"CPU ({int(n)} cores)" if n == n else "unknown" for g, n in machines}
    return "; ".join(sorted(kinds))
