"""Settings versions: run folders and runs.csv rows of an earlier version are brought up to date by
`python -m noneuclid.runs migrate`, to the very names today's configs give the same runs."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml
from omegaconf import OmegaConf

from noneuclid.config import compose
from noneuclid.runs import SETTINGS_VERSION, RunDir, table as run_table
from noneuclid.runs.__main__ import main
from noneuclid.runs.migrate import MIGRATED_FROM, STEPS, _parsed, earlier_hash, float_settings

# The fully Euclidean GRU on PREFIX-10 (seed 0, cpu profile) with the settings of Table 1's first runs,
# trained on the CPU (a run's name holds its device); version 1 named its folder ...-fcdd3342.
ARGS = [
    "experiment=hnn/table1",
    "profile=cpu",
    "variant=hnn/euclidean_gru",
    "data=prefix10",
    "seed=0",
    "model.clip_per_tensor=false",
    "model.project_results=false",
    "data.order=shuffled",
    "trainer.device=cpu",
]
EARLIER = "euclidean-gru-prefix10-s0-fcdd3342"


def _as_version_1(cfg) -> dict:
    """The config as version 1 wrote it for a run from before the settings that step 2 adds."""
    c = OmegaConf.to_container(cfg, resolve=True)
    c["paper"] = {"name": c["study"].pop("paper"), "run_name": c.pop("study")["run_name"]}
    del c["settings_version"]
    for added in STEPS[2].added:
        *parents, last = added.key.split(".")
        node = c
        for part in parents:
            node = node.get(part, {})
        if node.get(last, "absent") == added.former:
            del node[last]
    return c


@pytest.fixture
def earlier_run(tmp_path):
    """A finished version-1 run folder of ARGS under tmp_path/runs, and today's config of that run."""
    cfg = compose([*ARGS, f"paths.runs_dir={tmp_path / 'runs'}"], experiment_name="hnn/table1")
    c = _as_version_1(cfg)
    folder = tmp_path / "runs" / "hnn" / "cpu" / f"{c['paper']['run_name']}-{earlier_hash(c, 'cpu')}"
    folder.mkdir(parents=True)
    (folder / "config.yaml").write_text(yaml.safe_dump(c))
    (folder / "env.json").write_text(json.dumps({"cuda": None, "git_commit": "x"}))
    (folder / "summary.json").write_text(json.dumps({"final_test_accuracy": 0.5}))
    (folder / "metrics.jsonl").write_text(json.dumps({"epoch": 1, "step": 10, "train_loss": 1.0}) + "\n")
    (folder / "DONE").write_text("")
    return folder, cfg


def test_version_1_hash_is_the_one_its_folders_have(earlier_run):
    assert earlier_run[0].name == EARLIER


def test_migrate_renames_a_folder_to_the_name_todays_configs_give(earlier_run, tmp_path):
    folder, cfg = earlier_run
    assert main(["migrate", "--runs", str(tmp_path / "runs"), "--results", str(tmp_path / "results")]) == 0
    new = RunDir(cfg)
    assert not folder.exists() and new.done and new.name != EARLIER
    assert yaml.safe_load(new.file("config.yaml").read_text())["settings_version"] == SETTINGS_VERSION
    new.check_version()  # nothing earlier left beside it
    # a second migration changes nothing
    assert main(["migrate", "--runs", str(tmp_path / "runs"), "--results", str(tmp_path / "results")]) == 0
    assert new.done


def test_a_run_with_an_earlier_version_beside_it_says_to_migrate(earlier_run):
    _, cfg = earlier_run
    with pytest.raises(RuntimeError, match="settings version 1 .* python -m noneuclid.runs migrate"):
        RunDir(cfg).check_version()


@pytest.mark.parametrize("with_folders", [True, False])
def test_migrate_renames_the_runs_of_committed_tables(earlier_run, tmp_path, with_folders):
    """From the folder where it is there, else from the row's own cells (pandas writes 1.0 as 1 and
    None as an empty cell: the migration finds the config whose hash is the row's)."""
    folder, cfg = earlier_run
    results = tmp_path / "results" / "hnn" / "cpu"
    run_table.export(tmp_path / "runs", "hnn", "cpu", results)
    if not with_folders:
        folder.rename(tmp_path / "elsewhere")
    assert main(["migrate", "--runs", str(tmp_path / "runs"), "--results", str(tmp_path / "results")]) == 0
    runs, curves = pd.read_csv(results / "runs.csv"), pd.read_csv(results / "curves.csv.gz")
    assert list(runs.run) == list(curves.run) == [RunDir(cfg).name]
    assert runs["cfg.study.paper"].tolist() == ["hnn"] and "cfg.paper.name" not in runs
    assert runs["cfg.model.carry_gaps"].tolist() == [False]  # written out at its former value


def test_extends_names_the_migrated_shorter_run(earlier_run, tmp_path):
    folder, cfg = earlier_run
    longer = tmp_path / "runs" / "other"
    longer.mkdir()
    (longer / "EXTENDS").write_text(str(folder))
    main(["migrate", "--runs", str(tmp_path / "runs"), "--results", str(tmp_path / "results")])
    assert (longer / "EXTENDS").read_text() == str(RunDir(cfg).path)


def test_the_configs_floats_are_known():
    assert {"model.c", "optim.lr", "data.burnin_dampening"} <= float_settings()


def test_a_renamed_folder_records_its_former_name(earlier_run, tmp_path):
    folder, cfg = earlier_run
    main(["migrate", "--runs", str(tmp_path / "runs"), "--results", str(tmp_path / "results")])
    assert RunDir(cfg).file(MIGRATED_FROM).read_text().split() == [EARLIER]


def test_wandb_copies_of_a_config_are_not_run_folders(earlier_run, tmp_path):
    """W&B keeps a config.yaml under <run>/wandb/...; only <paper>/<profile>/<run>/ are run folders."""
    folder, cfg = earlier_run
    copy = folder / "wandb" / "run-1" / "files"
    copy.mkdir(parents=True)
    (copy / "config.yaml").write_text((folder / "config.yaml").read_text())
    assert main(["migrate", "--runs", str(tmp_path / "runs"), "--results", str(tmp_path / "results")]) == 0
    assert RunDir(cfg).done


def test_migrate_exits_1_when_it_left_something(earlier_run, tmp_path, capsys):
    folder, _ = earlier_run
    folder.rename(folder.parent / "euclidean-gru-prefix10-s0-00000000")  # not its config's hash
    assert main(["migrate", "--runs", str(tmp_path / "runs"), "--results", str(tmp_path / "results")]) == 1
    assert "not the hash of its config.yaml" in capsys.readouterr().out


@pytest.mark.parametrize("text, value", [("3e-07", 3e-07), ("1.5E+2", 150.0), ("2", 2.0), ("lr", "lr")])
def test_cells_read_back_as_written(text, value):
    parsed = _parsed("optim.lr", text, {"optim.lr"})
    assert parsed == value and type(parsed) is type(value)


def test_migrate_names_a_runs_folder_below_the_root(earlier_run, tmp_path, capsys):
    """--runs runs/hnn instead of runs: nothing at <paper>/<profile>/<run>/, said, exit 1."""
    assert main(["migrate", "--runs", str(tmp_path / "runs" / "hnn"), "--results", str(tmp_path / "results")]) == 1
    assert "no run folders at <paper>/<profile>/<run>/" in capsys.readouterr().out
