"""The register of claim rules: a rule's hash changes with what decides its verdicts and not with its
prose; `register` appends only new rules, with the commit and date, and refuses uncommitted claims
files; every rule shipped is registered."""

from __future__ import annotations

import dataclasses
import datetime

import pytest

from noneuclid.claims import data, ledger


def test_the_hash_follows_the_rule_not_the_prose():
    claim = data.load("hnn")["table2_hyperbolic_mlr_outperforms"]
    same = dataclasses.replace(claim, text="other words", note="a note", delta_source="elsewhere", kind="ours")
    assert ledger.rule_hash(same) == ledger.rule_hash(claim)
    first = claim.cells[0]
    for changed in (
        dataclasses.replace(claim, cells=(dataclasses.replace(first, delta=2.0), *claim.cells[1:])),
        dataclasses.replace(claim, cells=claim.cells[:-1]),
        dataclasses.replace(claim, cells=(dataclasses.replace(claim.cells[0], relation="on_par"), *claim.cells[1:])),
    ):
        assert ledger.rule_hash(changed) != ledger.rule_hash(claim)


def test_register_appends_new_rules_with_the_commit_and_date(tmp_path, monkeypatch):
    answers = {"status": "", "rev-parse": "abc123def456\n"}
    monkeypatch.setattr(ledger, "_git", lambda *args: answers[args[0]])
    path, now = tmp_path / "registered.csv", datetime.datetime(2026, 11, 29, 3, 0, tzinfo=datetime.timezone.utc)
    first = ledger.register(["brantner"], path, now)
    assert len(first) == len(data.load("brantner").claims) and {r["commit"] for r in first} == {"abc123def456"}
    assert ledger.register(["brantner"], path, now) == []  # nothing new
    claim = data.load("brantner").claims[0]
    assert ledger.registration("brantner", claim, ledger.read(path)) == ledger.Registration(
        "abc123def456", "2026-11-29T03:00:00Z"
    )
    answers["status"] = " M src/noneuclid/claims/brantner.yaml"
    with pytest.raises(RuntimeError, match="commit the claims files first"):
        ledger.register(["brantner"], path, now)


def test_an_unregistered_rule_says_so():
    claim = data.load("hnn").claims[0]
    claim = dataclasses.replace(claim, cells=(dataclasses.replace(claim.cells[0], delta=123.0), *claim.cells[1:]))
    assert ledger.registration("hnn", claim).commit == ledger.UNREGISTERED


@pytest.mark.parametrize("paper", data.papers())
def test_every_shipped_rule_is_registered(paper):
    """A rule changed in a claims file must be registered (python -m noneuclid.claims register) before the
    report can date it against its runs."""
    registered = ledger.read()
    missing = [
        c.id for c in data.load(paper).claims if ledger.registration(paper, c, registered).commit == ledger.UNREGISTERED
    ]
    assert missing == [], f"register them: python -m noneuclid.claims register {paper}"
