"""A claims row's provenance: the runs it reads (named, or selected by its cell's settings), their hours
and machines, the date of the newest commit they trained from, and whether its rule can be shown to have
been registered before them."""

from __future__ import annotations

import math
import subprocess

import pandas as pd
import pytest

from noneuclid.claims import data, engine, ledger
from noneuclid.report import provenance

CLAIMS = data.load("hnn")
HEAD = subprocess.run(["git", "-C", str(data.DIR), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()


def _runs(commit: str = HEAD) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "run": ["r0", "r1", "r2"],
            "train_seconds": [3600.0, 1800.0, 900.0],
            "env.git_commit": [commit] * 3,
            "env.cpu_count": [2, 2, 16],
            "env.cuda": [None, None, None],
            "cfg.data.label": ["prefix10"] * 3,
            "cfg.model.cell": ["rnn"] * 3,
            "cfg.model.geometry": ["hyperbolic", "euclidean", "hyperbolic_eucl_mlr"],
        }
    )


def _row(runs=()) -> engine.Verdict:
    claim = CLAIMS["table1_hyperbolic_on_par_or_better"]
    return engine.judge(claim, claim.cell("PREFIX-10, RNN"), [90.0, 91.0, 92.0], [88.0, 89.0, 91.0], runs=runs)


def _registered(monkeypatch, date: str) -> None:
    claim = CLAIMS["table1_hyperbolic_on_par_or_better"]
    monkeypatch.setattr(
        ledger, "read", lambda path=None: {("hnn", claim.id, ledger.rule_hash(claim)): ledger.Registration("abc", date)}
    )


def test_named_runs_give_hours_machines_and_date(monkeypatch):
    if not HEAD:
        pytest.skip("not a git checkout: commits cannot be dated")
    _registered(monkeypatch, "2000-01-01T00:00:00Z")
    (row,) = provenance.final([_row(["r0", "r2"])], _runs(), "hnn")
    assert row.cpu_hours == 1.25 and row.hardware == "CPU (16 cores); CPU (2 cores)"
    assert row.runs_until.startswith("20") and row.rule_commit == "abc" and row.rule_after_runs is False


def test_a_stacked_run_counts_its_train_seconds_which_are_its_share_of_its_stack(monkeypatch):
    _registered(monkeypatch, "2000-01-01T00:00:00Z")  # train_epoch divides a stack's time by its runs
    (row,) = provenance.final([_row(["r0", "r1"])], _runs().assign(stacked_runs=[2, 2, 1]), "hnn")
    assert row.cpu_hours == 1.5  # 3600 + 1800 seconds, not divided again


def test_a_cell_without_named_runs_reads_those_its_settings_select(monkeypatch):
    _registered(monkeypatch, "2000-01-01T00:00:00Z")
    (row,) = provenance.final([_row()], _runs(), "hnn")
    assert row.runs == ("r0", "r1") and row.cpu_hours == 1.5  # hyperbolic and euclidean: the cell's two arms


def test_a_rule_registered_after_its_runs_or_not_datable_is_flagged(monkeypatch):
    if not HEAD:
        pytest.skip("not a git checkout: commits cannot be dated")
    _registered(monkeypatch, "2999-01-01T00:00:00Z")
    assert provenance.final([_row(["r0"])], _runs(), "hnn")[0].rule_after_runs is True
    _registered(monkeypatch, "2000-01-01T00:00:00Z")
    unknown = provenance.final([_row(["r0"])], _runs("0" * 40), "hnn")[0]
    assert unknown.runs_until == provenance.UNKNOWN and unknown.rule_after_runs is True
    first = subprocess.run(
        ["git", "-C", str(data.DIR), "rev-list", "--max-parents=0", "HEAD"], capture_output=True, text=True
    ).stdout.split()[0]
    old_and_new = _runs().assign(**{"env.git_commit": [first, HEAD, HEAD]})
    registered = provenance._commit_date(HEAD)
    _registered(monkeypatch, registered)  # registered with the newest run: after the oldest
    mixed = provenance.final([_row(["r0", "r1"])], old_and_new, "hnn")[0]
    assert mixed.runs_until == registered and mixed.rule_after_runs is True
    untested = engine.untestable(
        CLAIMS["table1_hyperbolic_on_par_or_better"], CLAIMS["table1_hyperbolic_on_par_or_better"].cells[3], "no runs"
    )
    (row,) = provenance.final([untested], None, "hnn")
    assert row.rule_after_runs is False and math.isnan(row.cpu_hours) and row.hardware == ""
