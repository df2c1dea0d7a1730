"""A fourth paper, added by docs/running.md's recipe ("Adding an experiment or a paper") alone: the toy paper of
tests/pipelines/toy (a tiny model, a synthetic dataset, one experiment, one table, one claim, one template),
copied into a temporary folder and joined to the suite by NONEUCLID_PAPERS (noneuclid/extensions.py); its data
fetched, then `python -m noneuclid.reproduce toy --profile smoke` and `python -m noneuclid.report toy` run on it
as a user runs them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import noneuclid
from noneuclid import extensions
from noneuclid.claims.engine import REPRODUCES
from noneuclid.data import __main__ as data_command, registry

TOY = Path(__file__).parent / "toy"


def _run(module: str, *args: str, env: dict, cwd: Path) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", module, *args], env=env, cwd=cwd, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


@pytest.fixture
def toy_modules():
    """The toy's modules that this process imports (fetching its data), forgotten after the test."""
    yield
    for name in [m for m in sys.modules if m.split(".")[0] == "toy"]:
        del sys.modules[name]


def test_a_fourth_paper_reproduces_and_reports_by_the_recipe(tmp_path, monkeypatch, toy_modules):
    monkeypatch.setattr(sys, "path", list(sys.path))  # the toy's folder joins it here
    shutil.copytree(TOY, tmp_path / "papers" / "toy", ignore=shutil.ignore_patterns("__pycache__"))
    roots = {
        "NONEUCLID_PAPERS": str(tmp_path / "papers" / "toy"),
        "NONEUCLID_DATA_DIR": str(tmp_path / "data"),
        "NONEUCLID_GENERATED_DIR": str(tmp_path / "generated"),
        "NONEUCLID_RUNS_DIR": str(tmp_path / "runs"),
    }
    for name, value in roots.items():
        monkeypatch.setenv(name, value)
    data_dir, generated_dir = tmp_path / "data", tmp_path / "generated"
    assert "fetch toy_blobs" in registry.missing("toy_blobs", data_dir, generated_dir)  # its row, and its fix
    assert data_command.main(["fetch", "toy_blobs", "--data-dir", str(data_dir)]) == 0  # as `make data` would
    assert registry.missing("toy_blobs", data_dir, generated_dir) is None

    package = str(Path(noneuclid.__file__).resolve().parents[1])  # this checkout's noneuclid in the processes
    env = {**os.environ, **roots, "PYTHONPATH": os.pathsep.join([package, os.environ.get("PYTHONPATH", "")])}
    _run("noneuclid.reproduce", "toy", "--profile", "smoke", env=env, cwd=tmp_path)
    steps = json.loads((tmp_path / "runs" / "reproduce-smoke-toy.json").read_text())
    assert [(s["name"], s["status"]) for s in steps] == [
        ("train Table 1", "ran"),
        ("report", "ran"),
        ("HTML report", "ran"),
    ]
    out = tmp_path / "results" / "toy" / "smoke"
    drawn = {name: (out / name).read_bytes() for name in ("table1.csv", "table1.md", "claims.csv", "summary.md")}

    _run("noneuclid.report", "toy", "report", "--profile", "smoke", env=env, cwd=tmp_path)  # its part: toy/report.py
    assert {name: (out / name).read_bytes() for name in drawn} == drawn  # the same runs, the same bytes
    table = pd.read_csv(out / "table1.csv")
    assert list(table.model) == ["two-layer network", "linear model"] and set(table.dataset) == {"XOR blobs"}
    assert list(table.paper) == [0.975, 0.515] and list(table.n) == [3, 3]  # the claim's cells, 3 seeds an arm
    assert table["mean"][0] > 0.9 and table["mean"][1] < 0.6  # a hidden layer separates XOR, a line does not
    claims = pd.read_csv(out / "claims.csv")
    assert list(zip(claims.claim, claims.verdict)) == [("hidden_layer_beats_linear", REPRODUCES)]
    assert "| two-layer network |" in (out / "summary.md").read_text()
    assert "Toy, a hidden layer on XOR blobs" in (tmp_path / "results" / "index-smoke.html").read_text()


def test_a_paper_folder_without_paper_py_is_an_error_that_says_so(tmp_path, monkeypatch):
    (tmp_path / "half").mkdir()
    monkeypatch.setenv(extensions.VARIABLE, str(tmp_path / "half"))
    with pytest.raises(FileNotFoundError, match="no paper.py declaring PAPER"):
        extensions.declared("PAPER")
    assert extensions.declared("MODELS") == {} and extensions.roots("claims") == []
