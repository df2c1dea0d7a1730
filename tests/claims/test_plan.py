"""`python -m noneuclid.claims next`: the undecided cells that a few more seeds per arm would decide, the runs
each lacks and their cost, cheapest first; decided and far-off cells are left out."""

from __future__ import annotations

import math
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from noneuclid.claims import data, engine, plan, render
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
    cells = pd.DataFrame(rows, columns=columns).assign(file="p/cpu/claims.csv", hardware="CPU (2 cores)")
    return cells.assign(interval="Welch", looks=1, max_looks=4)


def _levels(results, alphas: dict[str, list[float]], rates: dict[str, list[float]]) -> pd.DataFrame:
    """A levels.csv: per kind, its levels look by look and the check's worst rate at each (both schedules),
    written under results/engine/ (where results is given)."""
    rows = [
        (kind, look, alpha, rate, rate, rate)
        for kind in alphas
        for look, (alpha, rate) in enumerate(zip(alphas[kind], rates[kind]), start=1)
    ]
    columns = ["kind", "look", "alpha", "rate_calibrated", "rate_finest", "rate_seeds_schedule"]
    table = pd.DataFrame(rows, columns=columns)
    if results is not None:
        (results / "engine").mkdir(parents=True, exist_ok=True)
        table.to_csv(results / plan.LEVELS, index=False)
    return table


WELCH_4 = {"Welch": [0.05, 0.05, 0.03, 0.01, 0.005]}, {"Welch": [0.02, 0.04, 0.045, 0.045, 0.08]}  # validated: 4


def test_lists_undecided_cells_within_reach_cheapest_first_with_the_runs_they_lack():
    todo = plan.next_seeds(_cells(), up_to=10)
    assert list(todo.columns) == plan.COLUMNS
    assert list(todo.cell) == ["bound", "uneven", "two arms", "evaluation"]
    assert list(todo.runs_to_add) == [2, 3, 4, 2]
    assert list(todo.hours_to_add[:3]) == [0.2, 0.3, 0.4] and math.isnan(todo.hours_to_add.iloc[3])
    assert list(plan.next_seeds(_cells(), up_to=6).cell) == ["bound", "two arms"]


def test_the_plan_counts_the_other_cells_the_added_runs_enter():
    """PreNorm's and PostNorm's runs at n = 4, 24 layers also enter PHYDI robust's cell there (it reads the
    same PostNorm arm), not that of n = 2, nor one in another profile's folder."""
    rows = [  # file, claim, cell, verdict
        ("phydi/cpu/fig4_claims.csv", "fig4_prenorm_stabler", "n = 4, 24 layers", "inconclusive"),
        ("phydi/cpu/fig4_claims.csv", "fig4_phydi_robust_deep", "n = 4, 24 layers", "contradicts"),
        ("phydi/cpu/fig4_claims.csv", "fig4_phydi_robust_deep", "n = 2, 24 layers", "reproduces"),
        ("phydi/paper/fig4_claims.csv", "fig4_phydi_robust_deep", "n = 4, 24 layers", "consistent"),
        ("p/cpu/claims.csv", "c", "not in a claims file", "consistent"),
    ]
    cells = pd.DataFrame(rows, columns=["file", "claim", "cell", "verdict"])
    counted = plan.shared(cells.iloc[[0, 4]], cells)
    assert list(counted.other_cells[:1]) == [1] and list(counted.other_decided[:1]) == [1]
    assert list(counted.other_at_risk[:1]) == [0]  # no p in this table: none known to be at risk
    assert math.isnan(counted.other_cells.iloc[1]) and math.isnan(counted.other_decided.iloc[1])


def test_a_decided_cell_whose_p_is_above_the_next_looks_level_is_at_risk():
    """Decided by p_adjusted or by p_delta_adjusted (equivalence), read against alpha_next; undecided cells and
    cells without a p are not at risk."""
    cells = pd.DataFrame(
        [  # verdict, p_adjusted, p_delta_adjusted, alpha_next
            ("reproduces", 0.0074, math.nan, 0.0025),
            ("reproduces", 0.0010, math.nan, 0.0025),
            ("contradicts", 1.0, 0.0020, 0.0025),
            ("contradicts", 1.0, 0.0040, 0.0025),
            ("consistent", 0.0300, 1.0, 0.0025),
            ("reproduces", math.nan, math.nan, 0.0025),
        ],
        columns=["verdict", "p_adjusted", "p_delta_adjusted", "alpha_next"],
    )
    assert list(plan.at_risk(cells)) == [True, False, False, True, False, False]


def test_the_looks_validated_per_kind_are_read_from_the_levels():
    cells = _cells().assign(interval=["Welch", "shares", "exact", None, "Welch", "Welch", None])
    assert list(plan.max_looks(cells, {"Welch": 4, "shares": 9})) == [4, 9, 1, 1, 4, 4, 1]


def test_decided_share_counts_reproduces_and_contradicts():
    cells = _cells()
    cells.loc[cells.cell == "far", "verdict"] = "contradicts"
    assert plan.decided_share(cells) == (2, 7)


def test_the_command_reads_every_claims_table_and_prints_the_plan(tmp_path, capsys):
    folder = tmp_path / "p" / "cpu"
    folder.mkdir(parents=True)
    _cells().drop(columns=["file", "looks", "max_looks"]).to_csv(folder / "claims.csv", index=False)
    assert main(["next", "--results", str(tmp_path)]) == 2
    assert "engine-validation` writes it" in capsys.readouterr().err
    _levels(tmp_path, *WELCH_4)
    assert main(["next", "--results", str(tmp_path)]) == 2
    assert "without looks: redraw them in a git clone" in capsys.readouterr().err
    _cells().drop(columns=["file", "max_looks"]).to_csv(folder / "claims.csv", index=False)  # one look each
    assert main(["next", "--results", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "paper cells decided: 1 of 7 (14.3%)" in out and "| p/cpu/claims.csv" in out and "far" not in out
    assert "looks validated per kind of interval (results/engine/levels.csv): Welch 4; others 1" in out
    assert main(["next", "--results", str(tmp_path), "--kind", "ours"]) == 2
    assert "no claims tables with ours cells" in capsys.readouterr().err
    assert main(["next", "hnn", "--results", str(tmp_path)]) == 2  # the cells of the papers named only
    assert "no claims tables with paper cells under" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # a paper without a claims file: an error, not every paper
        main(["next", "nopaper", "--results", str(tmp_path)])
    assert "no claims file for ['nopaper']" in capsys.readouterr().err


def _git(path, *args):
    subprocess.run(["git", "-C", str(path), *args], check=True, capture_output=True)


def _write_claims(results, n_a, n_b, verdict="consistent", looks=None):
    """A claims table of one Welch cell, with its looks where given (as the reports write them)."""
    table = results / "p" / "cpu" / "x_claims.csv"
    table.parent.mkdir(parents=True, exist_ok=True)
    row = ("c", "cell", "paper", verdict, "Welch", n_a, n_b, 9.0, 0.5, "CPU")
    columns = ["claim", "cell", "kind", "verdict", "interval", "n_a", "n_b", "seeds_to_decide", "cpu_hours", "hardware"]
    frame = pd.DataFrame([row], columns=columns)
    (frame if looks is None else frame.assign(looks=looks)).to_csv(table, index=False)


def _commit_claims(results, n_a, n_b, verdict="consistent"):
    _write_claims(results, n_a, n_b, verdict)
    _git(results, "add", "-A")
    _git(results, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", f"{n_a} {n_b}")


def test_a_look_is_each_seed_count_a_cell_was_published_at_and_the_validated_number_is_the_last(tmp_path):
    _git(tmp_path, "init", "-q")
    for n_a, n_b, verdict in (
        (0, 0, "not testable here"),
        (3, 3, "inconclusive"),
        (3, 3, "consistent"),
        (6, 3, "consistent"),
        (6, 6, "consistent"),
    ):
        _commit_claims(tmp_path, n_a, n_b, verdict)  # not testable is no look; 3/3 again is the same look
    cells = plan.read(tmp_path)
    assert list(plan.looks(tmp_path, cells)) == [3]
    _commit_claims(tmp_path, 9, 9)
    cells = plan.read(tmp_path).assign(max_looks=4)
    assert list(plan.looks(tmp_path, cells)) == [4]
    assert plan.next_seeds(cells.assign(looks=plan.looks(tmp_path, cells))).empty  # another look is not validated
    assert len(plan.next_seeds(cells.assign(looks=3))) == 1


def test_the_command_names_a_cell_decided_after_more_looks_than_validated(tmp_path, capsys):
    _levels(tmp_path, *WELCH_4)
    for looks, verdict, said in (
        (4, "consistent", "left out, at their last validated look: c: cell (Welch, 4 looks)"),
        (5, "reproduces", "decided after more looks than validated: c: cell (Welch, 5 looks)"),
    ):
        _write_claims(tmp_path, 9, 9, verdict, looks)
        assert main(["next", "--results", str(tmp_path)]) == 0
        assert said in capsys.readouterr().out


CLAIMS = data.load("hnn")


def _row() -> engine.Verdict:
    claim = CLAIMS["table1_hyperbolic_on_par_or_better"]
    return engine.judge(claim, claim.cell("PREFIX-10, RNN"), [90.0, 91.0, 92.0], [88.0, 89.0, 91.0])


def test_a_later_look_is_read_at_its_level_and_a_decided_cell_past_the_validated_looks_is_flagged(tmp_path, capsys):
    results = tmp_path / "results"
    _levels(results, {"Welch": [0.05, 0.05, 0.01]}, {"Welch": [0.02, 0.03, 0.07]})  # Welch: two looks validated
    claim = CLAIMS["table1_hyperbolic_on_par_or_better"]
    cell = claim.cell("PREFIX-10, RNN")
    assert plan.looked([_row()], "hnn/cpu/claims.csv", None) == [_row()]  # no git clone: unchanged
    assert "looks not counted" in capsys.readouterr().err
    _git(tmp_path, "init", "-q")
    assert plan.published(results / "hnn" / "cpu") == results  # the folder need not exist yet
    for a, b in ([80.0, 90.0], [85.0, 88.0]), ([80.0, 90.0, 85.0], [85.0, 88.0, 86.0]):  # two looks, undecided
        (results / "hnn" / "cpu").mkdir(parents=True, exist_ok=True)
        (results / "hnn" / "cpu" / "claims.csv").write_text(render.to_csv([engine.judge(claim, cell, a, b)]))
        _git(tmp_path, "add", "-A")
        _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "look")
    (row,) = plan.looked([_row()], "hnn/cpu/claims.csv", results)  # 3 + 3 seeds: a look seen before
    assert (row.looks, row.alpha, row.alpha_next) == (2, 0.05, 0.01)
    (row,) = plan.flagged(engine.adjusted([row]), results)
    assert not row.beyond_validated_looks and math.isfinite(row.seeds_to_decide)
    clear = engine.judge(claim, cell, [90.0, 91.0, 92.0, 93.0], [80.0, 81.0, 82.0, 80.5])  # p < 0.01
    near = engine.judge(claim, cell, [90.0, 91.0, 92.0, 93.0], [88.0, 89.0, 91.0, 88.5])  # 0.01 < p < 0.05
    assert clear.p_value < 0.01 < near.p_value < 0.05 and clear.verdict == near.verdict == engine.REPRODUCES
    (row,) = plan.flagged(engine.adjusted(plan.looked([clear], "hnn/cpu/claims.csv", results)), results)
    assert (row.looks, row.alpha, row.verdict) == (3, 0.01, engine.REPRODUCES) and row.beyond_validated_looks
    assert "[beyond validated looks]" in render.display(row)["verdict"]
    assert "read at look 3's level, 0.01" in render.display(row)["verdict"]
    (row,) = plan.flagged(engine.adjusted(plan.looked([near], "hnn/cpu/claims.csv", results)), results)
    assert row.verdict == engine.CONSISTENT and row.verdict_unadjusted == engine.CONSISTENT
    assert not row.beyond_validated_looks and row.seeds_to_decide > 4  # at level 0 past the levels: inf


def test_the_history_is_the_clone_of_the_folder_written_else_this_packages_and_never_a_shallow_one(tmp_path):
    def git(start, *args):
        return subprocess.run(["git", "-C", str(start), "rev-parse", *args], capture_output=True, text=True)

    assert git(tmp_path).returncode, f"{tmp_path} is in a git clone: this test needs a folder outside any"
    package = git(Path(plan.__file__).parent, "--show-toplevel", "--is-shallow-repository")
    if package.returncode:  # the package outside any clone (an installed copy): no history
        assert plan.published(tmp_path / "results" / "p" / "cpu") is None
    elif package.stdout.split()[1] == "true":
        with pytest.raises(ValueError, match="shallow clone"):
            plan.published(tmp_path / "results" / "p" / "cpu")
    else:  # outside a clone: the package's clone's results/
        here = plan.published(tmp_path / "results" / "p" / "cpu")
        assert here == Path(package.stdout.split()[0]) / "results"
    _git(tmp_path, "init", "-q")
    for n in (1, 2):
        (tmp_path / "f").write_text(str(n))
        _git(tmp_path, "add", "-A")
        _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", str(n))
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{tmp_path}", str(tmp_path / "s")], check=True)
    with pytest.raises(ValueError, match="shallow clone.*git fetch --unshallow"):
        plan.published(tmp_path / "s" / "results" / "p" / "cpu")
