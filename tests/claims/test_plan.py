"""`python -m noneuclid.claims next`: the undecided cells that a few more seeds per arm would decide, the runs
each lacks and their cost, cheapest first; decided and far-off cells are left out."""

from __future__ import annotations

import math

import pandas as pd

from noneuclid.claims import plan
from noneuclid.claims.__main__ import main


def _cells() -> pd.DataFrame:
    rows = [  # claim, cell, kind, verdict, n_a, n_b, seeds_to_decide, cpu_hours (of the n_a + n_b runs read)
        ("c", "two arms", "paper", "consistent", 4, 4, 6.0, 0.8),  # 2 + 2 runs of 0.1 h
        ("c", "bound", "paper", "inconclusive", 3, 0, 5.0, 0.3),  # 2 runs of 0.1 h, no second arm
        ("c", "uneven", "paper", "inconclusive", 6, 5, 7.0, 1.1),  # 1 + 2 runs of 0.1 h
        ("c", "evaluation", "paper", "consistent", 5, 0, 7.0, math.nan),  # no training runs: cost unknown
        ("c", "far", "paper", "consistent", 3, 3, 40.0, 0.6),
        ("c", "decided", "paper", "reproduces", 3, 3, math.nan, 0.6),
        ("c", "no runs", "paper", "not testable here", 0, 0, math.nan, math.nan),
    ]
    columns = ["claim", "cell", "kind", "verdict", "n_a", "n_b", "seeds_to_decide", "cpu_hours"]
    return pd.DataFrame(rows, columns=columns).assign(file="p/cpu/claims.csv", hardware="CPU (2 cores)")


def test_lists_undecided_cells_within_reach_cheapest_first_with_the_runs_they_lack():
    todo = plan.next_seeds(_cells(), up_to=10)
    assert list(todo.columns) == plan.COLUMNS
    assert list(todo.cell) == ["bound", "uneven", "two arms", "evaluation"]
    assert list(todo.runs_to_add) == [2, 3, 4, 2]
    assert list(todo.hours_to_add[:3]) == [0.2, 0.3, 0.4] and math.isnan(todo.hours_to_add.iloc[3])
    assert list(plan.next_seeds(_cells(), up_to=6).cell) == ["bound", "two arms"]


def test_decided_share_counts_reproduces_and_contradicts():
    cells = _cells()
    cells.loc[cells.cell == "far", "verdict"] = "contradicts"
    assert plan.decided_share(cells) == (2, 7)


def test_the_command_reads_every_claims_table_and_prints_the_plan(tmp_path, capsys):
    folder = tmp_path / "p" / "cpu"
    folder.mkdir(parents=True)
    _cells().drop(columns="file").to_csv(folder / "claims.csv", index=False)
    assert main(["next", "--results", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "paper cells decided: 1 of 7 (14.3%)" in out and "| p/cpu/claims.csv" in out and "far" not in out
    assert main(["next", "--results", str(tmp_path), "--kind", "ours"]) == 2
    assert "no claims tables with ours cells" in capsys.readouterr().err
