"""PHYDI's experiments at smoke scale on tiny files in the official formats: the PHResNet sweeps of
Tables 1-2 and the PHTransformer language models of Fig. 4 train through the shared trainer, and the
report redraws tables and figure from their run folders."""

from __future__ import annotations

import shutil

import pytest
import torch
from data_files import cifar10_batches, write, write_binary

from noneuclid.config import compose
from noneuclid.data import files
from noneuclid.report import phydi as report
from noneuclid.runs import RunDir
from noneuclid.train import train


@pytest.fixture
def data_root(tmp_path, monkeypatch):
    """Tiny CIFAR-10 binary batches (11 training, 10 test images) and a tiny WikiText-2."""
    root = tmp_path / "data"
    sha = write_binary(root, cifar10_batches())
    monkeypatch.setitem(files.DATASETS, "cifar10", files.Dataset(folder="cifar10", sha256=sha))
    write(root, monkeypatch)
    return root


def _cfg(experiment, root, tmp_path, *overrides):
    return compose(
        [
            f"experiment=phydi/{experiment}",
            "profile=smoke",
            f"paths.data_dir={root}",
            f"paths.runs_dir={tmp_path}/runs",
            f"paths.generated_dir={tmp_path}/gen",
            "trainer.progress=false",
            *overrides,
        ],
        experiment_name=f"phydi/{experiment}",
    )


RESNET = ["data.train_size=8", "data.batch_size=4"]
LM = [
    "data.batch_size=2",
    "data.bptt=4",
    "data.eval_batch_size=1",
    "model.d_model=16",
    "model.d_ff=32",
    "model.heads=2",
]


@pytest.mark.parametrize("init", ["standard", "wkp", "phydi"])
def test_table1_runs_train(init, data_root, tmp_path):
    summary = train(_cfg("table1", data_root, tmp_path, *RESNET, f"model.init={init}", "model.n=2"))
    assert summary["epochs"] == 2 and summary["nonfinite_events"] == 0
    assert 0 <= summary["final_test_accuracy"] <= 1


def test_table2_variant_sets_depth_and_lr(data_root, tmp_path):
    cfg = _cfg("table2", data_root, tmp_path, "variant=phydi/resnet50_lr0.01", "model.n=3")
    assert (cfg.model.depth, cfg.optim.lr, cfg.data.batch_size) == (50, 0.01, 128)


@pytest.mark.parametrize("norm", ["phydi", "post"])
def test_48_layer_transformers_train_on_smoke_data(norm, data_root, tmp_path):
    """The 48-layer PHYDI transformer trains without divergence; PostNorm is run and reported as it is."""
    cfg = _cfg("fig4", data_root, tmp_path, *LM, "model.depth=48", f"model.norm={norm}", "model.n=2")
    summary = train(cfg)
    rows = [r for r in RunDir(cfg).metrics() if "val_perplexity" in r]
    assert len(rows) == 2 and all(r["val_perplexity"] > 1 for r in rows)
    if norm == "phydi":
        assert summary["nonfinite_events"] == 0 and summary["final_train_loss"] < 20


def test_adagrad_lr_decays_every_epoch_and_resumes(data_root, tmp_path):
    cfg = _cfg("fig4", data_root, tmp_path, *LM, "model.depth=2", "trainer.epochs=3")
    train(cfg)
    ckpt = torch.load(RunDir(cfg).file("checkpoint.pt"), weights_only=False)
    lrs = [g["lr"] for o in ckpt["optimizer"]["optimizers"] for g in o["param_groups"]]
    assert lrs == [pytest.approx(0.01 * 0.9**3)]


def test_report_redraws_tables_and_figure(data_root, tmp_path):
    for init in ("standard", "phydi"):
        train(_cfg("table1", data_root, tmp_path, *RESNET, f"model.init={init}", "model.n=2"))
    for depth in (2, 4):
        train(_cfg("fig4", data_root, tmp_path, *LM, f"model.depth={depth}", "model.n=2"))
    written = report.make(tmp_path / "runs", "smoke", tmp_path / "out")
    names = {p.name for p in written}
    assert {
        "table1.csv",
        "table1.md",
        "table1_claims.csv",
        "table1_claims.md",
        "fig4.png",
        "fig4.pdf",
        "fig4.csv",
        "fig4_claims.md",
        "summary.md",
        "table1.tex",
        "table1_claims.tex",
        "fig4.tex",
        "fig4_claims.tex",
    } <= names
    table = (tmp_path / "out" / "table1.md").read_text()
    assert "+ PHYDI" in table and "PHResNet18" in table and "6.00 ± 0.58" in table  # ours beside the paper's
    for name in ("table1", "fig4"):  # finished seeds of every row
        assert "seeds" in (tmp_path / "out" / f"{name}.csv").read_text().splitlines()[0].split(",")
    for name in ("table1_claims", "fig4_claims"):  # the claims engine's table, with the seeds of each arm
        assert {"n_a", "n_b", "verdict"} <= set(
            (tmp_path / "out" / f"{name}.csv").read_text().splitlines()[0].split(",")
        )
    claims = (tmp_path / "out" / "table1_claims.md").read_text()  # one seed, no WKP run: nothing to decide
    assert "not testable here: no finished runs of WKP" in claims
    assert "not testable here: fewer than 2 seeds of phydi, standard: no interval" in claims
    assert "val_unigram_perplexity" not in (tmp_path / "out" / "fig4.csv").read_text()
    assert "unigram ppl U" in (tmp_path / "out" / "fig4.csv").read_text()
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert summary.index("## Table 1") < summary.index("## Fig. 4")
    assert (
        "No finished runs here (not in this profile's sweeps, or not trained yet): Table 1: n = 2: PHResNet50"
        in summary
        and "Fig. 4: n = 4" in summary
    )
    # a clean clone: no run folders, only the committed per-run data; the same tables come back
    drawn = {p.name: p.read_bytes() for p in written if p.name.endswith((".csv", ".md", ".tex", ".csv.gz"))}
    shutil.rmtree(tmp_path / "runs")
    report.make(tmp_path / "runs", "smoke", tmp_path / "out")
    assert {name: (tmp_path / "out" / name).read_bytes() for name in drawn} == drawn
    assert {"runs.csv", "curves.csv.gz"} <= set(drawn)


def test_report_without_runs_says_what_to_run(tmp_path):
    with pytest.raises(FileNotFoundError, match="experiment=phydi/table1"):
        report.make(tmp_path / "runs", "cpu", tmp_path / "out")


def test_cpu_reproduction_runs_one_process_per_core(tmp_path):
    """make reproduce-phydi (cpu): each sweep through joblib, one job of one torch thread per core,
    unless the user chose a launcher."""
    from noneuclid import reproduce
    from noneuclid.config import jobs

    per_core = ["hydra/launcher=joblib", f"hydra.launcher.n_jobs={jobs()}", "trainer.threads=1"]
    steps = {s.name: s.args for s in reproduce.plan(["phydi"], "cpu", tmp_path, tmp_path, tmp_path)}
    assert all(set(per_core) <= set(steps[f"train {name}"]) for name in ("table1", "table2", "fig4"))
    steps = {
        s.name: s.args for s in reproduce.plan(["phydi"], "cpu", tmp_path, tmp_path, tmp_path, ["hydra/launcher=slurm"])
    }
    assert "hydra/launcher=joblib" not in steps["train fig4"] and "hydra/launcher=slurm" in steps["train fig4"]
