"""The committed results as data: every CSV under results/ (gzipped too) loads with pandas into numeric
columns where its values are numbers, and the reports bring back every derived table and figure byte
for byte from the per-run data alone (runs.csv, curves.csv.gz and the evaluations' files), as on a
fresh clone without run folders."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from noneuclid.evaluate import engine_validation, float32_atlas
from noneuclid.figures.hnn import GRID, POINTS, WEIGHTS
from noneuclid.runs import table as run_table

RESULTS = Path(__file__).resolve().parents[2] / "results"
NUMBER = r"[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?|[-+]?inf|nan"
PACKED = r"[-+]?\d[\d.]*(e[-+]?\d+)?\s*(±|%|\(|\[|/|,\s*\d).*"  # '84.68 (84.49 ± 0.47, n=3)', '0/3', '16.8%'
IDENTIFIER = r"[0-9a-f]{7,40}"  # settings ids and commits: text, even those that are all digits

# What the reports read in results/<paper>/<profile>/ and do not write without run folders: the per-run
# data, what `python -m noneuclid.evaluate` writes there (from the authors' networks or the runs'
# checkpoints), among them the boundary figure's data (the 2-D embedding's points, its classifiers' weights and
# their logit differences on a grid).
INPUTS = {
    *run_table.FILES,
    "authors_networks.csv",
    "authors_networks.md",
    "authors_networks.tex",
    "drift.csv",
    "drift_authors.csv",
    "drift_gradients.csv",
    "drift_one_step.csv",
    "timing.csv",
    "timing_gpu.csv",
    "table2_reference.csv",
    POINTS,
    WEIGHTS,
    GRID,
}

# The evaluations' folders of results/ that no report writes: the CSVs each evaluation computes, and what draws
# the folder's other tables and figures from them.
EVALUATED = {
    "engine": (("validation.csv", "levels.csv"), engine_validation.drawn),
    "geometry": (("float32_atlas.csv",), float32_atlas.drawn),
}


def mixed_columns(table: pd.DataFrame) -> dict[str, list[str]]:
    """The text columns that hold numbers, with a few of their offending values: some values are
    numbers and others not ('-' in a column of numbers), or values are numbers with extras (an
    interval, a count, a unit)."""
    found = {}
    for column in table.columns:
        values = table[column].dropna()
        if values.empty or pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
            continue
        text = values.astype(str).str.strip()
        if text.str.fullmatch(IDENTIFIER).all():
            continue
        number, packed = text.str.fullmatch(NUMBER, case=False), text.str.fullmatch(PACKED)
        if (number.any() and not number.all()) or packed.any():
            found[column] = text[~number | packed].head(3).tolist()
    return found


def test_mixed_columns_finds_numbers_kept_as_text():
    table = pd.DataFrame(
        {
            "model": ["a", "b"],
            "mean": [1.5, 2.0],
            "dash": ["1.5e-06", "-"],
            "packed": ["84.68 (84.49 ± 0.47, n=3)", "not run"],
            "share": ["0/3", "3/3"],
            "id": ["2df41089", "12345678"],
            "words": ["yes, class 8", "no"],
        }
    )
    assert set(mixed_columns(table)) == {"dash", "packed", "share"}


CSVS = sorted(p for p in RESULTS.rglob("*") if p.name.endswith((".csv", ".csv.gz")))


@pytest.mark.parametrize("path", CSVS, ids=[str(p.relative_to(RESULTS)) for p in CSVS])
def test_every_committed_csv_has_numeric_columns_where_its_values_are_numbers(path):
    assert mixed_columns(pd.read_csv(path, low_memory=False)) == {}


def derived(results: Path) -> list[Path]:
    """The derived tables and figures under `results` (a copy of results/): index.html and every file of
    the report folders with per-run data but INPUTS."""
    folders = [p.parent for p in results.glob("*/*/runs.csv")]
    files = [p for folder in folders for p in folder.iterdir() if p.name not in INPUTS]
    return sorted([results / "index.html", *files])


def test_every_report_folder_has_its_per_run_data():
    """Every results/<paper>/<profile>/ holds the runs.csv it is redrawn from."""
    folders = {str(p.relative_to(RESULTS)) for p in RESULTS.glob("*/*") if p.is_dir()}
    assert {f for f in folders if not (RESULTS / f / "runs.csv").is_file()} == set()


def test_every_run_commit_this_clone_has_is_in_its_branch_history():
    """The claims date each run by its commit (report.provenance). A commit that this clone has only on
    another branch (a worktree's, not merged) is dated here and unknown on a fresh clone, so the committed
    claims would differ there: merge the branch the runs were trained from before committing them."""
    commits = set()
    for path in RESULTS.glob("*/*/runs.csv"):
        runs = pd.read_csv(path, usecols=lambda c: c == "env.git_commit", dtype=str)
        commits |= set(runs.get("env.git_commit", pd.Series(dtype=str)).dropna())
    here = [c for c in sorted(commits) if _git("cat-file", "-e", f"{c}^{{commit}}")]
    elsewhere = [c[:7] for c in here if not _git("merge-base", "--is-ancestor", c, "HEAD")]
    assert not elsewhere, f"runs trained from commits not in HEAD's history: {', '.join(elsewhere)}"


def _git(*args: str) -> bool:
    """Whether `git <args>` in this checkout succeeds."""
    return subprocess.run(["git", "-C", str(RESULTS.parent), *args], capture_output=True).returncode == 0


@pytest.mark.parametrize("folder", sorted(EVALUATED))
def test_an_evaluations_tables_and_figures_come_back_byte_for_byte_from_its_csv(folder, tmp_path):
    """results/<folder> with all but its evaluation's CSVs deleted: drawing from them brings back every other
    file of the folder, byte for byte (no dates or versions in the figures)."""
    data, drawn = EVALUATED[folder]
    out = tmp_path / "results" / folder  # results/<folder>: the LaTeX labels name the folder's parent
    out.mkdir(parents=True)
    for name in data:
        shutil.copy(RESULTS / folder / name, out)
    drawn(out)
    committed = sorted(p.name for p in (RESULTS / folder).iterdir())
    assert sorted(p.name for p in out.iterdir()) == committed
    assert [name for name in committed if (out / name).read_bytes() != (RESULTS / folder / name).read_bytes()] == []


@pytest.mark.slow  # nine classifiers on a 401 x 401 grid in float64: seconds
def test_the_boundary_grid_comes_back_byte_for_byte_from_the_classifiers_weights(tmp_path):
    """evaluate.table2_boundaries' GRID from its committed WEIGHTS alone (no run folders): the committed file."""
    from noneuclid.evaluate import table2_boundaries

    committed = RESULTS / "hnn" / "cpu"
    shutil.copy(committed / WEIGHTS, tmp_path)
    assert table2_boundaries.write_grid(tmp_path).read_bytes() == (committed / GRID).read_bytes()


@pytest.mark.slow  # every paper's report: about 25 s of CPU (minutes of wall time on a busy machine)
@pytest.mark.shared_data("reference/brantner_gml/mnist_metadata.h5")  # the authors' curves in Brantner's
def test_report_all_brings_back_every_derived_file_byte_for_byte(tmp_path, monkeypatch, shared_data, capsys):
    """A fresh clone without run folders: with every derived table and figure deleted, `report all`
    brings each one back, byte for byte (the figures too: no dates or versions in them), and with --docs the
    papers' digests and the README's status as committed."""
    from noneuclid.report.__main__ import main

    monkeypatch.setenv("NONEUCLID_DATA_DIR", str(shared_data))
    results = tmp_path / "results"
    shutil.copytree(RESULTS, results)
    gone = derived(results)
    for path in gone:
        path.unlink()
    shutil.copytree(RESULTS.parent / "docs", tmp_path / "docs")
    shutil.copy(RESULTS.parent / "README.md", tmp_path)
    if (RESULTS / "hnn" / "paper" / "runs.csv").is_file():  # Table 1 at the paper's budget, first (as make report):
        no_runs = ["--runs", str(tmp_path / "no-runs"), "--results", str(results), "--profile", "paper"]
        assert main(["hnn", "hnn", *no_runs]) == 0  # the README's status reads its claims
    assert (
        main(
            [
                "all",
                "--runs",
                str(tmp_path / "no-runs"),
                "--results",
                str(results),
                "--profile",
                "cpu",
                "--docs",
                "--docs-dir",
                str(tmp_path / "docs"),
            ]
        )
        == 0
    )
    assert "not drawn by" not in capsys.readouterr().out  # nothing left out: the boundary figure from its data
    missing = [str(p.relative_to(results)) for p in gone if not p.is_file()]
    differ = [
        str(p.relative_to(results))
        for p in gone
        if p.is_file() and p.read_bytes() != (RESULTS / p.relative_to(results)).read_bytes()
    ]
    assert (missing, differ) == ([], [])
    pages = ["README.md", *(f"docs/{paper}.md" for paper in ("brantner", "hnn", "phydi"))]
    assert [p for p in pages if (tmp_path / p).read_text() != (RESULTS.parent / p).read_text()] == []
