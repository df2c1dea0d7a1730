"""Where each verdict comes from: its claim's rule as registered (claims/registered.csv: commit and date), the
date of the newest commit its runs trained from (git's committer date of env.git_commit, a lower bound on when
they ran), whether the rule cannot be shown to come before every one of them, and their compute (hours, a
stacked run's share of its stack's; the machines by env.cpu_count and env.cuda); written with the looks each
cell has had (claims.plan.looked)."""

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
    rows with their looks and levels (claims.plan.looked), `final`, and flagged where beyond the validated
    looks (claims.plan.flagged); returns its Markdown."""
    file = f"{paper}/{Path(out).name}/{stem}.csv"  # its history: results/<paper>/<profile>/<stem>.csv
    results = plan.published(out)
    counted = final(plan.looked(rows, file, results), runs, paper)  # each read at its look's level
    return render.write(out, stem, plan.flagged(counted, results), title)


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
