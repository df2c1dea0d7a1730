"""The shared trainer on tiny MNIST files: run folders, resume, skip, failures with clear messages."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import pytest
import torch

from noneuclid import models
from noneuclid.data import DataError
from noneuclid.runs import RunDir, table as run_table
from noneuclid.train import TrainingDiverged, train, trainer


def test_run_folder_contents(make_cfg):
    cfg = make_cfg("variant=brantner/adam_stiefel")
    summary = train(cfg)
    run = RunDir(cfg)
    assert run.name.startswith("adam-stiefel-s0-")
    for name in ("config.yaml", "env.json", "metrics.jsonl", "checkpoint.pt", "summary.json", "DONE", "train.log"):
        assert run.file(name).exists(), name
    rows = run.metrics()
    assert [r["epoch"] for r in rows] == [1, 2]
    assert {"train_loss", "train_seconds", "train_cpu_seconds", "test_loss", "test_accuracy"} <= set(rows[0])
    assert 0 < summary["train_cpu_seconds"] == sum(r["train_cpu_seconds"] for r in rows)
    assert summary["orthonormality_error"] < 1e-5
    assert summary["constrained_parameters"] == 2 * 3 * 7 * 49 * 7  # the Stiefel projections
    env = json.loads(run.file("env.json").read_text())
    assert env["torch"] == torch.__version__ and "git_commit" in env


def test_same_settings_same_folder_other_settings_other_folder(make_cfg):
    a, b = RunDir(make_cfg("variant=brantner/adam_stiefel")), RunDir(make_cfg("variant=brantner/adam_stiefel"))
    c = RunDir(make_cfg("variant=brantner/adam_stiefel", "optim.lr=0.01"))
    d = RunDir(make_cfg("variant=brantner/adam_stiefel", "seed=1"))
    assert a.path == b.path
    assert len({a.path, c.path, d.path}) == 3
    # where and how a run is watched does not change what it computes
    assert RunDir(make_cfg("variant=brantner/adam_stiefel", "logger=wandb", "trainer.progress=true")).name == a.name


def test_init_dtype_starts_a_float32_run_from_the_float64_runs_weights():
    """torch draws other numbers for one seed in float32 than in float64; trainer.init_dtype=float64
    draws them in float64 and casts: the float64 run's initial weights, as float32 weights of the
    same kinds (ball-valued ones stay PoincareParameters), and a float32 model."""
    from noneuclid.config import compose

    cfg = compose(["experiment=hnn/table1", "variant=hnn/hyperbolic_rnn", "model.compile=false"])

    def model(dtype, init_dtype=None):
        torch.manual_seed(0)
        return models.build_on(cfg.model, torch.device("cpu"), dtype, init_dtype, vocab_size=50)

    m64, m32, same = model(torch.float64), model(torch.float32), model(torch.float32, torch.float64)
    for (name, p64), _p32, p in zip(m64.named_parameters(), m32.parameters(), same.parameters(), strict=True):
        assert p.dtype == torch.float32 and type(p) is type(p64), name
        assert torch.equal(p, p64.float()), name
    assert not torch.equal(m32.embedding, same.embedding)  # drawn in float32: other numbers
    tokens, lengths = torch.randint(1, 50, (4, 7)), torch.full((4,), 7)
    assert same(tokens, lengths, tokens, lengths).dtype == torch.float32


def test_finished_run_is_skipped(make_cfg):
    cfg = make_cfg()
    first = train(cfg)
    before = RunDir(cfg).file("metrics.jsonl").read_text()
    assert train(cfg) == first
    assert RunDir(cfg).file("metrics.jsonl").read_text() == before


def test_evaluation_every_n_steps_is_not_repeated_at_the_epochs_end(make_cfg, tmp_path):
    """eval_every_steps dividing the epoch: the epoch-end evaluation stands for the mid-epoch one."""
    train(make_cfg(runs_dir=tmp_path / "a"))
    steps = RunDir(make_cfg(runs_dir=tmp_path / "a")).metrics()[0]["step"]  # steps per epoch
    cfg = make_cfg(f"trainer.eval_every_steps={steps}", "trainer.eval_every=2", runs_dir=tmp_path / "b")
    train(cfg)
    rows = RunDir(cfg).metrics()
    evaluated = [r["step"] for r in rows if "test_accuracy" in r]
    assert evaluated == [steps, 2 * steps]  # epoch 1 mid-epoch (no epoch-end evaluation), epoch 2 at its end


def test_run_held_by_another_process_is_skipped_and_free_once_that_process_is_killed(make_cfg):
    cfg = make_cfg()
    run = RunDir(cfg)
    run.path.mkdir(parents=True)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            (
                "import fcntl, os, sys, time\n"
                f"fd = os.open({str(run.file('RUNNING'))!r}, os.O_RDWR | os.O_CREAT)\n"
                "fcntl.flock(fd, fcntl.LOCK_EX); os.write(fd, b'otherhost 123'); print('held', flush=True); "
                "time.sleep(60)"
            ),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:  # another sweep's process trains it: skipped, nothing written
        assert holder.stdout.readline().strip() == "held"
        assert train(cfg) == {"trained_by": "otherhost 123"}
        assert not run.file("metrics.jsonl").exists()
        assert run_table.status(run.path) == "running"
    finally:
        holder.kill()  # as by kill -9 or a node failure: RUNNING stays, its lock goes
        holder.wait()
    assert run.file("RUNNING").exists() and run_table.status(run.path) == "stopped"
    summary = train(cfg)
    assert run.done and "final_train_loss" in summary
    assert not run.file("RUNNING").exists()


def test_claim_is_reentrant(make_cfg):
    run = RunDir(make_cfg())
    assert run.claim() is None and run.claim() is None
    run.release()
    assert run.file("RUNNING").read_text() == f"{socket.gethostname()} {os.getpid()}"
    run.release()
    assert not run.path.exists()  # nothing was written: the folders claim() made are gone again


@pytest.mark.parametrize("variant", ["brantner/adam_stiefel", "brantner/momentum_stiefel", "brantner/adam_euclidean"])
def test_resume_gives_the_same_numbers(make_cfg, tmp_path, monkeypatch, variant):
    """Interrupted in the middle of epoch 3, then run again: identical to an uninterrupted run."""
    overrides = (f"variant={variant}", "trainer.epochs=4", "trainer.deterministic=true")
    reference = train(make_cfg(*overrides, runs_dir=tmp_path / "a"))

    real_epoch = trainer.train_epoch

    def interrupted(model, optimizer, task, epoch, bar, after_step=None):
        if epoch == 2:
            batches = task.batches(epoch)
            loss, _ = task.loss(model, next(batches))  # half-done work that must not leak
            loss.backward()
            optimizer.step()
            raise KeyboardInterrupt
        return real_epoch(model, optimizer, task, epoch, bar, after_step)

    cfg = make_cfg(*overrides, runs_dir=tmp_path / "b")
    monkeypatch.setattr(trainer, "train_epoch", interrupted)
    with pytest.raises(KeyboardInterrupt):
        train(cfg)
    assert not RunDir(cfg).done and len(RunDir(cfg).metrics()) == 2
    monkeypatch.setattr(trainer, "train_epoch", real_epoch)
    resumed = train(cfg)
    ref_rows, res_rows = RunDir(make_cfg(*overrides, runs_dir=tmp_path / "a")).metrics(), RunDir(cfg).metrics()
    assert [r["train_loss"] for r in res_rows] == [r["train_loss"] for r in ref_rows]
    assert resumed["final_test_accuracy"] == reference["final_test_accuracy"]
    assert resumed["final_train_loss"] == reference["final_train_loss"]


def test_nan_loss_stops_with_clear_message_and_keeps_checkpoint(make_cfg, monkeypatch):
    cfg = make_cfg("trainer.epochs=3")
    real_loss = trainer.tasks.Classification.loss
    calls = {"n": 0}

    def poisoned(self, model, batch):
        calls["n"] += 1
        loss, terms = real_loss(self, model, batch)
        return (loss * float("nan") if calls["n"] > 2 else loss), terms  # 2 steps per epoch: NaN in epoch 2

    monkeypatch.setattr(trainer.tasks.Classification, "loss", poisoned)
    with pytest.raises(TrainingDiverged, match="became nan at epoch 2, step 1.*end of epoch 1"):
        train(cfg)
    run = RunDir(cfg)
    assert not run.done
    assert torch.load(run.file("checkpoint.pt"), weights_only=False)["epochs_done"] == 1
    assert json.loads(run.file("DIVERGED").read_text())["epoch"] == 2
    calls_before = calls["n"]
    assert train(cfg)["epoch"] == 2  # the same command again: a diverged run counts as finished
    assert calls["n"] == calls_before


def test_heads_not_dividing_the_dimension_fail_before_training(make_cfg):
    cfg = make_cfg("model.heads=5")
    with pytest.raises(ValueError, match="model.heads=5 must divide .* 49"):
        train(cfg)
    assert not RunDir(cfg).file("metrics.jsonl").exists()


def test_unknown_optimizer_name(make_cfg):
    cfg = make_cfg("optim.name=adamw")
    with pytest.raises(ValueError, match="unknown optimizer 'adamw'.*adam"):
        train(cfg)


def test_unknown_experiment_is_named_with_the_experiments():
    from noneuclid.config import experiments
    from noneuclid.train.__main__ import unknown_experiments

    argv = ["-m", "experiment=brantner/fig3a,brantner/fig3c", "profile=smoke", "experiment=choice(a)"]
    assert unknown_experiments(argv) == ["brantner/fig3c"]  # Hydra's sweep functions are left to Hydra
    assert unknown_experiments(["experiment=hnn/table1", "optim.lr=1e-3"]) == []
    assert {"brantner/fig3a", "hnn/table1", "phydi/fig4"} <= set(experiments())


def test_missing_and_corrupt_data_files_are_named(make_cfg, tiny_mnist):
    images = tiny_mnist / "mnist" / "t10k-images-idx3-ubyte.gz"
    data = images.read_bytes()
    images.write_bytes(data[: len(data) // 2])
    with pytest.raises(DataError, match=r"corrupt data file .*t10k-images.*expected [0-9a-f]{64}.*make data"):
        train(make_cfg())
    images.unlink()
    with pytest.raises(DataError, match="missing data file .*t10k-images.*make data"):
        train(make_cfg())


def test_unwritable_runs_dir_fails_before_data_is_loaded(make_cfg, tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    cfg = make_cfg(runs_dir=blocker / "runs")
    monkeypatch.setattr(trainer.tasks, "build", lambda cfg: pytest.fail("data loaded before the check"))
    with pytest.raises(RuntimeError, match="cannot write the run folder.*paths.runs_dir"):
        train(cfg)


def test_wandb_offline_without_key_or_network(make_cfg, monkeypatch, tmp_path):
    """No API key and no network (every request would go to a closed port): offline logging, no hang."""
    import time

    pytest.importorskip("wandb")
    monkeypatch.delenv("WANDB_API_KEY", raising=False)
    monkeypatch.delenv("WANDB_MODE", raising=False)
    for proxy in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.setenv(proxy, "http://127.0.0.1:9")
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.netrc with a key
    monkeypatch.setenv("WANDB_SILENT", "true")
    cfg = make_cfg("logger=wandb", "trainer.epochs=1")
    start = time.perf_counter()
    train(cfg)
    assert list(RunDir(cfg).path.glob("wandb/offline-run-*"))
    assert time.perf_counter() - start < 60


def _fig3a_sweep(runs, data, *overrides: str) -> subprocess.CompletedProcess:
    """`python -m noneuclid.train -m experiment=brantner/fig3a profile=smoke <overrides>` into `runs`."""
    env = dict(os.environ, NONEUCLID_DATA_DIR=str(data), NONEUCLID_RUNS_DIR=str(runs), OMP_NUM_THREADS="1")
    cmd = [sys.executable, "-m", "noneuclid.train", "-m", "experiment=brantner/fig3a", "profile=smoke"]
    return subprocess.run(
        [*cmd, "trainer.progress=false", *overrides], env=env, capture_output=True, text=True, timeout=300
    )


@pytest.mark.slow  # the sweep through the CLI also runs in test_a_failing_job_does_not_stop_the_sweep
@pytest.mark.shared_data("mnist")
def test_cli_multirun_smoke_on_real_mnist(tmp_path, shared_data):
    """The documented command, end to end: a Hydra multirun over the Fig. 3a sweep."""
    _fig3a_sweep(tmp_path / "runs", shared_data, "model.depth=2").check_returncode()
    done = sorted(p.parent.name for p in (tmp_path / "runs" / "brantner" / "smoke").glob("*/DONE"))
    assert [d.rsplit("-", 1)[0] for d in done] == ["adam-euclidean-s0", "adam-stiefel-s0"]


@pytest.mark.shared_data("mnist")
def test_a_failing_job_does_not_stop_the_sweep(tmp_path, shared_data):
    """The Euclidean job gets an invalid setting and fails; the Stiefel job still runs; exit code 1."""
    proc = _fig3a_sweep(tmp_path / "runs", shared_data, "model.depth=1", "model.euclidean_init=bogus")
    assert proc.returncode != 0
    assert "model.euclidean_init must be 'glorot' or 'stiefel'" in proc.stderr
    done = [p.parent.name for p in (tmp_path / "runs" / "brantner" / "smoke").glob("*/DONE")]
    assert len(done) == 1 and done[0].startswith("adam-stiefel-s0-")


@pytest.mark.slow  # two training processes (resuming in one process: test_resume_gives_the_same_numbers)
@pytest.mark.shared_data("mnist")
def test_kill_9_mid_run_then_same_command_gives_same_numbers(tmp_path, shared_data):
    """SIGKILL a training process after its first checkpoint; the same command resumes and ends with
    exactly the metrics of an uninterrupted run (CPU, deterministic mode)."""
    import signal
    import time

    def command(runs):
        env = dict(os.environ, NONEUCLID_DATA_DIR=str(shared_data), NONEUCLID_RUNS_DIR=str(runs), OMP_NUM_THREADS="1")
        cmd = [
            sys.executable,
            "-m",
            "noneuclid.train",
            "variant=brantner/adam_stiefel",
            "profile=smoke",
            "model.depth=2",
            "trainer.epochs=6",
            "data.train_size=1024",
            "trainer.deterministic=true",
            "trainer.progress=false",
        ]
        return cmd, env

    cmd, env = command(tmp_path / "a")
    subprocess.run(cmd, env=env, check=True, capture_output=True, timeout=300)
    cmd, env = command(tmp_path / "b")
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 240
    while not list((tmp_path / "b").rglob("checkpoint.pt")) and time.time() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)  # into the next epoch
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    folder = next((tmp_path / "b").rglob("checkpoint.pt")).parent
    assert not (folder / "DONE").exists(), "the run finished before it was killed: make it longer"
    subprocess.run(cmd, env=env, check=True, capture_output=True, timeout=300)
    ref = next((tmp_path / "a").rglob("metrics.jsonl")).read_text().splitlines()
    got = (folder / "metrics.jsonl").read_text().splitlines()

    def strip(lines):
        timing = ("train_seconds", "train_cpu_seconds")  # the machine's
        return [{k: v for k, v in json.loads(line).items() if k not in timing} for line in lines]

    assert strip(got) == strip(ref)


def test_nonfinite_gradient_skips_the_update_and_is_counted():
    """A step whose gradient has a NaN leaves the weights untouched and is counted (NaN/inf events)."""
    from tqdm import tqdm

    class Task:
        def batches(self, epoch):
            return [(torch.ones(1, 2), torch.zeros(1))] * 3

        def steps_per_epoch(self):
            return 3

        def loss(self, model, batch):
            loss = model(batch[0]).sum()
            return loss, float(loss.detach())

        def finish_loss(self, mean):
            return mean

    model = torch.nn.Linear(2, 1)
    calls = []
    model.weight.register_hook(lambda g: g * float("nan") if calls.append(1) or len(calls) == 2 else g)
    before = model.weight.detach().clone()
    (row,) = trainer.train_epoch(model, torch.optim.SGD(model.parameters(), lr=0.1), Task(), 0, tqdm(disable=True))
    assert row["nonfinite_steps"] == 1
    assert torch.isfinite(model.weight).all()
    torch.testing.assert_close(model.weight.detach(), before - 2 * 0.1 * torch.ones(1, 2))


def test_constraint_errors_come_from_the_manifold_parameters_a_model_has():
    """A model without manifold parameters logs no constraint error; one with Stiefel weights logs the
    largest |Y^T Y - I| of them under their constraint's name."""
    from noneuclid.nn import StiefelParameter
    from noneuclid.train.summary import constraint_errors

    assert constraint_errors(torch.nn.Linear(3, 2)) == {}
    model = torch.nn.Module()
    model.a = StiefelParameter.random(N=5, n=3, dtype=torch.float64)
    model.b = StiefelParameter(torch.eye(4, 2, dtype=torch.float64) * 1.5)  # |Y^T Y - I| = 1.25
    assert constraint_errors(model) == {"orthonormality_error": 1.25}
