"""The suite as a whole (issue 5): failed runs marked and aggregated, the reproduce command going on
after failures and skipping what has no data, the Hydra launchers, and the HTML report rendered in
headless Chromium."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

from noneuclid import reproduce
from noneuclid.report import html
from noneuclid.runs import RunDir, table as run_table
from noneuclid.runs.cli import PROFILES
from noneuclid.train import trainer
from noneuclid.train.loop import train


def test_a_run_that_raises_is_marked_failed_and_grouped_with_its_seeds(make_cfg, monkeypatch, tmp_path):
    train(make_cfg("seed=0", "trainer.epochs=1"))
    with monkeypatch.context() as m:
        m.setattr(trainer, "train_epoch", lambda *a, **k: (_ for _ in ()).throw(RuntimeError("boom")))
        failing = make_cfg("seed=1", "trainer.epochs=1")
        with pytest.raises(RuntimeError, match="boom"):
            train(failing)
    assert json.loads(RunDir(failing).file("FAILED").read_text()) == {"error": "RuntimeError", "message": "boom"}

    table = run_table.grouped(run_table.runs([tmp_path / "runs"]))
    assert len(table) == 1  # one setting, two seeds
    row = table.iloc[0]
    assert (row.runs, row.status, row.seeds) == (2, "1 done, 1 failed", "0,1")
    assert row["final_test_accuracy mean"] == pytest.approx(
        RunDir(make_cfg("seed=0", "trainer.epochs=1")).summary()["final_test_accuracy"]
    )

    train(failing)  # the same command again: a new attempt clears the marker
    assert not RunDir(failing).file("FAILED").exists() and RunDir(failing).done


def test_reproduce_goes_on_after_a_failed_step_and_exits_nonzero():
    steps = [
        reproduce.Step("x", "fails", ["noneuclid.no_such_module"]),
        reproduce.Step("x", "needs data", ["noneuclid.report", "--help"], needs=["mnist"]),
        reproduce.Step("y", "runs", ["json.tool", "--help"]),
    ]  # any module that exits 0; this one starts at once
    reproduce.execute(steps, data_dir=Path("/nonexistent"), generated_dir=Path("/nonexistent"))
    assert [s.status for s in steps] == ["failed", "skipped", "ran"]
    assert "missing data file" in steps[1].reason and "make data" in steps[1].reason
    text = reproduce.summary(steps, Path("/nonexistent"), "cpu")
    assert "failed" in text and "skipped" in text and "total" in text


def test_reproduce_all_without_data_skips_every_paper_and_still_writes_the_page(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NONEUCLID_DATA_DIR", str(tmp_path / "empty"))
    monkeypatch.setenv("NONEUCLID_RUNS_DIR", str(tmp_path / "runs"))
    monkeypatch.setenv("NONEUCLID_GENERATED_DIR", str(tmp_path / "generated"))
    monkeypatch.setattr(reproduce, "PAPERS", ("brantner", "phydi"))  # hnn generates its data: it would train
    assert reproduce.main(["all", "--profile", "smoke"]) == 0
    record = json.loads((tmp_path / "runs" / "reproduce-smoke-all.json").read_text())
    status = {(s["paper"], s["name"]): s["status"] for s in record}
    assert status[("brantner", "train Fig. 3 / Table 2")] == "skipped"
    assert status[("brantner", "train the section experiment")] == "skipped"
    assert status[("brantner", "evaluate the authors' networks")] == "skipped"
    assert status[("phydi", "train fig4")] == "skipped"
    assert status[("phydi", "report")] == "skipped"
    assert status[("all", "HTML report")] == "ran"
    assert "No results for the smoke profile yet" in (tmp_path / "results" / "index-smoke.html").read_text()


@pytest.mark.slow  # a process per job, each importing torch (the basic launcher's sweep: test_trainer.py)
@pytest.mark.shared_data("mnist")
@pytest.mark.parametrize("launcher", ["hydra/launcher=joblib hydra.launcher.n_jobs=2", "hydra/launcher=submitit_local"])
def test_multirun_with_parallel_and_cluster_launchers(tmp_path, launcher, shared_data):
    """The Fig. 3a sweep through joblib (parallel jobs here) and submitit (its local executor stands
    in for Slurm): the same deterministic run folders as the basic launcher, all finished."""
    env = dict(
        os.environ, NONEUCLID_DATA_DIR=str(shared_data), NONEUCLID_RUNS_DIR=str(tmp_path / "runs"), OMP_NUM_THREADS="1"
    )
    cmd = [
        sys.executable,
        "-m",
        "noneuclid.train",
        "-m",
        "experiment=brantner/fig3a",
        "profile=smoke",
        "model.depth=1",
        "data.train_size=256",
        "trainer.epochs=1",
        "trainer.progress=false",
        *launcher.split(),
    ]
    subprocess.run(cmd, check=True, env=env, capture_output=True, timeout=300)
    done = sorted(p.parent.name.rsplit("-", 1)[0] for p in (tmp_path / "runs").rglob("DONE"))
    assert done == ["adam-euclidean-s0", "adam-stiefel-s0"]


def test_slurm_launcher_config_composes():
    from hydra import compose, initialize_config_dir

    from noneuclid.config import CONFIG_DIR

    with initialize_config_dir(str(CONFIG_DIR), version_base="1.3"):
        cfg = compose("train", ["hydra/launcher=slurm"], return_hydra_config=True)
    launcher = cfg.hydra.launcher
    assert launcher._target_.endswith("SlurmLauncher") and launcher.gpus_per_node == 1


def _table1_with_hydra(*overrides: str):
    from hydra import compose, initialize_config_dir

    from noneuclid.config import CONFIG_DIR

    with initialize_config_dir(str(CONFIG_DIR), version_base="1.3"):
        return compose("train", ["experiment=hnn/table1", "profile=smoke", *overrides], return_hydra_config=True)


def test_parallel_jobs_default_to_the_cores_and_leave_the_run_names_alone(monkeypatch, capsys):
    """hnn/table1's joblib sweep runs one job per core, NONEUCLID_JOBS or hydra.launcher.n_jobs choose
    another count, and no count changes a run's folder name (the hydra node is not a setting)."""
    from omegaconf import OmegaConf, open_dict

    from noneuclid.config import compose, jobs

    def run_name(cfg) -> str:
        """The run folder's name of the config, its hydra node dropped as the trainer gets it."""
        cfg = OmegaConf.create(OmegaConf.to_container(cfg))
        with open_dict(cfg):
            cfg.pop("hydra", None)
            cfg.experiment_name = "hnn/table1"
        return RunDir(cfg).name

    monkeypatch.delenv("NONEUCLID_JOBS", raising=False)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert jobs() == cores and _table1_with_hydra().hydra.launcher.n_jobs == cores
    alone = run_name(compose(["experiment=hnn/table1", "profile=smoke"], "hnn/table1"))
    assert run_name(_table1_with_hydra()) == alone
    monkeypatch.setenv("NONEUCLID_JOBS", "7")
    assert _table1_with_hydra().hydra.launcher.n_jobs == 7 and run_name(_table1_with_hydra()) == alone
    cfg = _table1_with_hydra("hydra.launcher.n_jobs=3")
    assert cfg.hydra.launcher.n_jobs == 3 and run_name(cfg) == alone
    assert "hydra.launcher.n_jobs=7" in next(
        s.args for s in reproduce.plan(["phydi"], "cpu", *[Path("x")] * 3) if s.name == "train table1"
    )
    monkeypatch.setenv("NONEUCLID_JOBS", "two")
    with pytest.raises(ValueError, match="whole number of parallel jobs"):
        jobs()
    capsys.readouterr()
    with pytest.raises(SystemExit) as stopped:  # the reproduce command: the message, not a traceback
        reproduce.main(["phydi"])
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and "NONEUCLID_JOBS='two'" in err and "whole number of parallel jobs" in err


# -- the HTML report in a browser -------------------------------------------------------------------


def _chromium() -> str:
    """Chromium's path, else skip (`.ci/run` installs Debian's package; `apt-get install chromium`)."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if not found:
        pytest.skip("no chromium on this machine: apt-get install chromium (as .ci/run does) to run this test")
    return found


FIGURE_RGB = (200, 30, 30)
HEADLESS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--no-first-run",
    "--hide-scrollbars",
]
PAGE = Path(__file__).resolve().parents[2] / "results" / "index.html"  # the committed page
REPRODUCES_RGB = (102, 187, 106)  # index.css: .verdict-reproduces
PROBE = (
    '<base href="{base}"><script>addEventListener("load", () => {{ const b = document.body.dataset, '
    'chip = document.querySelector(".legend .verdict-contradicts"); '
    'b.width = [document.documentElement, document.body].map(e => e.scrollWidth + "/" + e.clientWidth); chip.click(); '
    'b.hidden = document.querySelectorAll("tr[hidden]").length + "/" + '
    'document.querySelectorAll("td.verdict-contradicts").length; }})</script>'
)  # widths, then a click's rows


def _results_and_runs(tmp_path) -> tuple[Path, Path]:
    """A results folder with one paper's summary (a table and a figure in a known colour) and the
    per-run data of one run with a training curve (runs.csv, curves.csv.gz); the path of that run's row."""
    from PIL import Image

    folder = tmp_path / "results" / "phydi" / "cpu"
    folder.mkdir(parents=True)
    Image.new("RGB", (300, 150), FIGURE_RGB).save(folder / "fig4.png")
    (folder / "summary.md").write_text(
        "# PHYDI\n\nMade by `python -m noneuclid.report phydi --profile cpu`.\n\n## Table 1\n\n"
        "What reproduces:\n- PHYDI ahead\n\n"
        "| model | M1 (ours) | M1 (paper) |\n|:--|--:|--:|\n| PHResNet18 | 5.0 | 4.33 |\n\n![fig4](fig4.png)\n"
    )
    _write_run(folder, "phresnet18-n4-phydi-b64-lr0.1-s0-0123abcd", "3.11")
    return tmp_path / "results", folder


def _write_run(folder: Path, run: str, python: str) -> None:
    """runs.csv and curves.csv.gz of one finished run (replacing any there)."""
    pd.DataFrame([{"run": run, "status": "done", "seed": 0, "env.python": python, "env.torch": "2.13.0+cpu"}]).to_csv(
        folder / "runs.csv", index=False
    )
    pd.DataFrame(
        [{"run": run, "epoch": e, "step": 10 * e, "train_loss": 2 / e, "val_accuracy": 0.1 * e} for e in range(1, 6)]
    ).to_csv(folder / "curves.csv.gz", index=False)


def test_html_report_lists_tables_figures_commands_curves_and_environment(tmp_path):
    results, _ = _results_and_runs(tmp_path)
    page = html.make("cpu", results).read_text()
    assert '<img alt="fig4" src="phydi/cpu/fig4.png"' in page
    assert "<table>" in page and ">PHResNet18</td>" in page
    assert "python -m noneuclid.report phydi --profile cpu" in page
    assert "<li>PHYDI ahead</li>" in page
    assert "<polyline" in page and "val_accuracy</span> 0.1 &rarr; 0.5" in page
    assert "<td>2.13.0+cpu</td>" in page
    assert "make reproduce-brantner PROFILE=cpu" in page  # papers without results say how to make them


def test_html_report_draws_the_per_run_data_not_the_page_it_replaces(tmp_path):
    """The page shows what is drawn from the committed per-run data: the curve and environment of a
    run on the page being replaced, no longer in runs.csv, do not reappear."""
    results, folder = _results_and_runs(tmp_path)
    assert "-s0-0123abcd</b>" in html.make("cpu", results).read_text()
    _write_run(folder, "phresnet18-n4-phydi-b64-lr0.1-s1-4567cdef", "3.12")
    page = html.make("cpu", results).read_text()
    assert "-s1-4567cdef</b>" in page and "-s0-0123abcd" not in page and "carried over" not in page
    assert "<td>3.12</td>" in page and "<td>3.11</td>" not in page
    assert html.make("cpu", results).read_text() == page  # making it again changes nothing


def test_html_report_shows_ganea_table2_and_its_figure(tmp_path):
    """results/hnn/<profile>/table2.md (written by report.hnn_table2, not part of summary.md) follows the
    summary on the page, with its figure."""
    from PIL import Image

    results, _ = _results_and_runs(tmp_path)
    folder = results / "hnn" / "cpu"
    folder.mkdir(parents=True)
    (folder / "summary.md").write_text(
        "# Ganea et al.: our runs\n\n## Table 1\n\n| model | ours |\n|:--|--:|\n| fully hyperbolic GRU | 95.26 |\n"
    )
    (folder / "table2.md").write_text(
        "# Ganea et al., Table 2: hyperbolic vs Euclidean MLR\n\n## Table 2: test F1 %\n\n"
        "| subtree | dim |\n|:--|--:|\n| mammal.n.01 | 2 |\n\n"
        "![decision boundaries in the 2-D ball](fig_table2_boundaries.png)\n"
    )
    Image.new("RGB", (40, 20), FIGURE_RGB).save(folder / "fig_table2_boundaries.png")
    page = html.make("cpu", results).read_text()
    assert ">fully hyperbolic GRU</td>" in page and ">mammal.n.01</td>" in page
    assert page.index(">fully hyperbolic GRU</td>") < page.index(">mammal.n.01</td>") < page.index('<h2 id="phydi">')
    assert '<img alt="decision boundaries in the 2-D ball" src="hnn/cpu/fig_table2_boundaries.png"' in page


def test_html_report_renders_in_headless_chromium(tmp_path):
    from PIL import Image

    browser = _chromium()
    results, _ = _results_and_runs(tmp_path)
    page = html.make("cpu", results)
    shot = tmp_path / "shot.png"
    subprocess.run(
        [browser, *HEADLESS, f"--screenshot={shot}", "--window-size=1200,2000", page.resolve().as_uri()],
        check=True,
        capture_output=True,
        timeout=120,
    )
    pixels = np.asarray(Image.open(shot).convert("RGB"))  # [height, width, 3]
    figure = int((pixels == FIGURE_RGB).all(-1).sum())
    header_cells = int((pixels == (238, 238, 238)).all(-1).sum())  # the table's <th> background
    assert figure > 0.8 * 300 * 150, "the figure is not on the screenshot"
    assert header_cells > 500, "the table header is not on the screenshot"


def test_the_committed_page_fits_1400_px_and_its_first_screen_shows_the_verdicts(tmp_path):
    """results/index.html at 1,400 px: no wider than the window and nothing wider than its column (a copy
    reads the widths once loaded, its links resolved in results/); the legend's contradicts, clicked, hides
    exactly the rows that contradict; the first screen shows a verdict bar."""
    from PIL import Image

    browser = _chromium()
    probe = tmp_path / "index.html"
    probe.write_text(PAGE.read_text().replace("<head>", "<head>" + PROBE.format(base=PAGE.parent.as_uri() + "/"), 1))
    dom = subprocess.run(
        [browser, *HEADLESS, "--window-size=1400,1000", "--virtual-time-budget=5000", "--dump-dom", probe.as_uri()],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    scroll, client, body_scroll, body = map(int, re.search(r'data-width="(\d+)/(\d+),(\d+)/(\d+)"', dom).groups())
    assert scroll <= client == 1400, f"the page is {scroll} px wide in a 1400-px window"
    assert body_scroll <= body, f"the page's content is {body_scroll} px wide in its {body}-px column"
    hidden, contradicting = map(int, re.search(r'data-hidden="(\d+)/(\d+)"', dom).groups())
    assert hidden == contradicting > 0
    shot = tmp_path / "top.png"
    subprocess.run(
        [browser, *HEADLESS, f"--screenshot={shot}", "--window-size=1400,1000", PAGE.as_uri()],
        check=True,
        capture_output=True,
        timeout=120,
    )
    pixels = np.asarray(Image.open(shot).convert("RGB"))  # [1000, 1400, 3]
    assert int((pixels == REPRODUCES_RGB).all(-1).sum()) > 2000, "no verdict bar on the first screen"


def test_sweep_values_reads_the_experiment_then_those_it_extends():
    from noneuclid.config import sweep_values

    assert sweep_values("hnn/long", "variant") == ["hnn/euclidean_rnn", "hnn/hyperbolic_rnn"]  # its own
    assert len(sweep_values("hnn/order", "variant")) == 6  # hnn/table1's six models


def test_brantner_sweeps_three_seeds_and_the_smoke_profile_one():
    """The claims engine needs two seeds or more per setup: Fig. 3 and Table 2 sweep seeds 0, 1, 2
    (the paper shows one run); the smoke profile keeps one."""
    from hydra import compose as hydra_compose, initialize_config_dir

    from noneuclid.config import CONFIG_DIR

    with initialize_config_dir(str(CONFIG_DIR), version_base=None):
        for experiment in ("fig3a", "fig3b", "table2"):
            for profile, seeds in (("cpu", "0,1,2"), ("paper", "0,1,2"), ("smoke", "0")):
                cfg = hydra_compose(
                    "train", [f"experiment=brantner/{experiment}", f"profile={profile}"], return_hydra_config=True
                )
                assert str(cfg.hydra.sweeper.params.seed) == seeds, (experiment, profile)


def test_experiment_value_reads_the_experiment_then_those_it_extends():
    from noneuclid.config import experiment_value

    assert experiment_value("hnn/seeds", "stack.seed") == list(range(3, 18))  # its own
    assert experiment_value("hnn/budget", "stack.seed") == [0, 1, 2]  # hnn/table1's
    assert experiment_value("hnn/budget", "stack.data") == ["prefix10"]
    assert experiment_value("hnn/budget", "no.such.key") is None


@pytest.mark.parametrize("profile", PROFILES)
def test_an_ablation_s_epochs_hold_at_every_profile(profile):
    """The profile comes after the experiment, but Table 1's epochs at each profile come with its
    experiment (scale/hnn_table1), so the trainer.epochs of an ablation that extends it holds at every
    profile; Table 1 keeps the profile's."""
    from noneuclid.config import compose

    for experiment, epochs in (("hnn/long", 90), ("hnn/budget", 10), ("hnn/gru_long", 150), ("hnn/init", 10)):
        assert compose([f"experiment={experiment}", f"profile={profile}"]).trainer.epochs == epochs
    table1 = compose(["experiment=hnn/table1", f"profile={profile}", "variant=hnn/hyperbolic_rnn"]).trainer.epochs
    assert table1 == {"smoke": 1, "cpu": 60, "paper": 30}[profile]


def test_the_reproduce_plan_is_the_registry_s_stages(tmp_path):
    """Every stage of every paper in papers.PAPERS, in order, then the paper's report; a stage whose
    condition fails is skipped with its reason and keeps its kind (a report is not a training step); the
    GPU timing only where there is a GPU."""
    from noneuclid import papers

    steps = reproduce.plan(reproduce.PAPERS, "cpu", tmp_path, tmp_path, tmp_path)
    left_out = {"wordnet_to_prepare", "cifar10_to_write", *(() if torch.cuda.is_available() else ("gpu",))}
    for paper, entry in papers.PAPERS.items():
        names = [s.name for s in steps if s.paper == paper]
        expected = [st.name for st in entry.stages if st.when not in left_out]
        assert [n for n in names if n != "prepare WordNet 3.0"] == expected + ["report"]
    authors = next(s for s in steps if s.name == "evaluate the authors' networks")
    assert (authors.kind, authors.status) == ("report", "skipped") and "authors' networks" in authors.reason
    timing = next(s for s in steps if s.name == "time the four runs on the CPU, interleaved")
    assert "{" not in " ".join(timing.args) and f"paths.data_dir={tmp_path}" in timing.args


def test_the_smoke_plan_leaves_the_ablations_out(tmp_path):
    from noneuclid import papers

    names = {s.name for s in reproduce.plan(reproduce.PAPERS, "smoke", tmp_path, tmp_path, tmp_path)}
    ablations = {st.name for entry in papers.PAPERS.values() for st in entry.stages if st.ablation}
    assert ablations and not names & ablations and {"train Table 1", "train Table 2", "report"} <= names
    data = tmp_path / "data"  # the authors' networks present: at smoke their training loss is over a slice
    (data / "reference" / "brantner_gml").mkdir(parents=True)
    (data / "reference" / "brantner_gml" / "mnist_metadata.h5").touch()
    authors = [
        next(
            s
            for s in reproduce.plan(["brantner"], profile, data, tmp_path, tmp_path)
            if s.name == "evaluate the authors' networks"
        )
        for profile in ("smoke", "cpu")
    ]
    assert authors[0].args[-2:] == ["--train-images", "4096"] and "--train-images" not in authors[1].args
