"""The register of claim rules (registered.csv beside this module): each rule, by its hash, with the commit
and the date it was registered, appended before the runs that judge it are trained (a pre-registration
record); the report flags a cell whose rule was registered after the newest of its runs.

A rule is everything that decides a claim's verdicts: its relation, delta, metric and direction,
precondition, `learned` rule, run selectors and cells (arms, relation, delta, bound, precondition, pairing,
the paper's numbers they are held to); not its prose (claim, source, note, the *_source texts). Its hash is
the first 12 hex digits of the SHA-256 of that content as canonical JSON.

    python -m noneuclid.claims register [paper ...]   # after committing the claims files
"""

from __future__ import annotations

import csv
import dataclasses
import datetime
import hashlib
import json
import subprocess
from pathlib import Path

from noneuclid.claims import data

LEDGER = data.DIR / "registered.csv"
COLUMNS = ("paper", "claim", "rule_hash", "commit", "registered")
PROSE = {"text", "source", "note", "delta_source", "paper_source", "bound_source", "kind"}  # not part of a rule
UNREGISTERED = "unregistered"


@dataclasses.dataclass(frozen=True)
class Registration:
    commit: str
    registered: str  # UTC, ISO 8601 to the second


def rule_hash(claim: data.Claim) -> str:
    """The hash of the claim's rule (module doc)."""
    content = _rule(dataclasses.asdict(claim))
    return hashlib.sha256(json.dumps(content, sort_keys=True, default=str).encode()).hexdigest()[:12]


def _rule(value):
    """`value` (a claim as a dict) without its prose, recursively; the learned rule's source too."""
    if isinstance(value, dict):
        return {k: _rule(v) for k, v in value.items() if k not in PROSE}
    if isinstance(value, (list, tuple)):
        return [_rule(v) for v in value]
    return value


def read(path: Path = LEDGER) -> dict[tuple[str, str, str], Registration]:
    """(paper, claim, rule_hash) -> its first registration."""
    if not path.is_file():
        return {}
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    out: dict[tuple[str, str, str], Registration] = {}
    for row in rows:
        out.setdefault((row["paper"], row["claim"], row["rule_hash"]), Registration(row["commit"], row["registered"]))
    return out


def registration(paper: str, claim: data.Claim, ledger: dict | None = None) -> Registration:
    """The registration of the claim's current rule; commit UNREGISTERED and no date where it has none."""
    ledger = read() if ledger is None else ledger
    return ledger.get((paper, claim.id, rule_hash(claim)), Registration(UNREGISTERED, ""))


def register(papers: list[str], path: Path = LEDGER, now: datetime.datetime | None = None) -> list[dict]:
    """Append the rules of `papers`' claims that are not registered yet, with HEAD and the date; the
    claims files must be committed (so that the commit holds the rule). Returns the rows appended."""
    dirty = _git("status", "--porcelain", "--", *(str(data.DIR / f"{p}.yaml") for p in papers)).strip()
    if dirty:
        raise RuntimeError(
            f"commit the claims files first (a rule is registered with the commit that holds it):\n{dirty}"
        )
    commit = _git("rev-parse", "--short=12", "HEAD").strip()
    stamp = (now or datetime.datetime.now(datetime.timezone.utc)).strftime("%Y-%m-%dT%H:%M:%SZ")
    known = read(path)
    new = [
        {"paper": p, "claim": c.id, "rule_hash": rule_hash(c), "commit": commit, "registered": stamp}
        for p in papers
        for c in data.load(p).claims
        if (p, c.id, rule_hash(c)) not in known
    ]
    fresh = not path.is_file()
    with path.open("a", newline="") as f:
        writer = csv.DictWriter(f, COLUMNS, lineterminator="\n")
        if fresh:
            writer.writeheader()
        writer.writerows(new)
    return new


def _git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(data.DIR), *args], check=True, capture_output=True, text=True).stdout
