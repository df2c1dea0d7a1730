"""`python -m noneuclid.runs table|export`: run folders as one table, and a paper's per-run data alone."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from omegaconf import OmegaConf

from noneuclid.runs import RunDir
from noneuclid.runs.__main__ import main
from noneuclid.runs.table import run_folders


def _finished_run(cfg, loss: float) -> RunDir:
    """A finished run folder as the trainer leaves it (config, summary, one logged epoch, DONE), without
    training."""
    run = RunDir(cfg)
    run.path.mkdir(parents=True)
    (run.path / "config.yaml").write_text(OmegaConf.to_yaml(cfg, resolve=True))
    (run.path / "summary.json").write_text(json.dumps({"final_train_loss": loss}))
    (run.path / "metrics.jsonl").write_text(json.dumps({"epoch": 1, "step": 1, "train_loss": loss}) + "\n")
    (run.path / "DONE").touch()
    return run


def test_table_prints_the_run_folders_grouped_by_settings(make_cfg, tmp_path, capsys):
    for seed, loss in ((0, 1.0), (1, 2.0)):
        _finished_run(make_cfg(f"seed={seed}"), loss)
    csv = tmp_path / "table.csv"
    assert main(["table", str(tmp_path / "runs"), "--csv", str(csv)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("| paper ") and "| brantner " in out and "| 2 done " in out
    table = pd.read_csv(csv)
    assert len(table) == 1 and table.seeds.tolist() == ["0,1"] and table["final_train_loss mean"].tolist() == [1.5]
    assert main(["table", str(tmp_path / "nothing")]) == 1
    assert f"error: no run folders under {tmp_path / 'nothing'}" in capsys.readouterr().err


def test_export_writes_the_per_run_data_of_the_profile_whose_runs_are_there(make_cfg, tmp_path, capsys):
    runs, results = tmp_path / "runs", tmp_path / "results"
    assert main(["export", "brantner", "--runs", str(runs), "--results", str(results)]) == 2
    assert "no finished runs of brantner" in capsys.readouterr().err  # and nothing written
    assert not results.exists()
    run = _finished_run(make_cfg("seed=0"), 1.0)
    assert main(["export", "brantner", "--runs", str(runs), "--results", str(results)]) == 0
    folder = results / "brantner" / "smoke"
    assert capsys.readouterr().out.split() == [str(folder / "runs.csv"), str(folder / "curves.csv.gz")]
    assert pd.read_csv(folder / "runs.csv").run.tolist() == [run.name]
    assert pd.read_csv(folder / "curves.csv.gz").train_loss.tolist() == [1.0]
    empty = ["export", "brantner", "--profile", "cpu", "--runs", str(tmp_path / "typo"), "--results", str(results)]
    assert main(empty) == 1  # no folder there, nothing committed at that profile: an error, not silence
    err = capsys.readouterr().err
    assert f"no folder {tmp_path / 'typo'}" in err and "error: no ended runs of brantner" in err


def test_run_folders_follows_links_to_run_folders(tmp_path):
    """A root of symbolic links to run folders stored elsewhere lists the linked folders (pathlib's rglob
    would find none: it does not follow links)."""
    stored = tmp_path / "stored" / "run-s0"
    stored.mkdir(parents=True)
    (stored / "config.yaml").write_text("seed: 0\n")
    (tmp_path / "links").mkdir()
    (tmp_path / "links" / "run-s0").symlink_to(stored)
    assert run_folders([tmp_path / "links"]) == [tmp_path / "links" / "run-s0"]
    assert run_folders([tmp_path / "stored"]) == [stored]


def test_a_device_is_cpu_or_a_cuda_gpu_torch_sees(monkeypatch):
    """The --device of evaluate and bench: a name other than cpu or cuda, or cuda without a GPU, is a usage error."""
    import argparse

    import torch

    from noneuclid.runs.cli import device

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert device("cpu") == "cpu"
    for text, message in (("gpu", "cpu or cuda"), ("cuda", "sees no CUDA GPU")):
        with pytest.raises(argparse.ArgumentTypeError, match=message):
            device(text)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert device("cuda") == "cuda"
