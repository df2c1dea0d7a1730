"""A run folder: named from the settings and the seed, written atomically, resumable.

<runs_dir>/<paper>/<profile>/<name>-<hash>/
    config.yaml      the resolved config
    env.json         versions, git commit, device
    metrics.jsonl    one line per epoch
    checkpoint.pt    the last completed epoch (model, optimizer, RNG states)
    summary.json     final numbers
    train.log        the run's log
    wandb_id         the id of its W&B run (written whatever the logger: a run resumed with logger=wandb has one)
    DIVERGED         only if the loss became NaN/inf: where and why (the checkpoint stays the last good
                     one); the run then counts as finished and is skipped, like DONE
    FAILED           only if training raised: the error (removed when the run is started again)
    RUNNING          while a process trains it: that process's host and pid, under its flock (another
                     sweep over the same runs skips the folder instead of training it twice)
    EXTENDS          only in a run started from a shorter one (see RunDir.shorter_run): its folder
    MIGRATED_FROM    only in a folder renamed by `python -m noneuclid.runs migrate`: its former names
    DONE             written last
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import platform
import secrets
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import torch
from omegaconf import DictConfig, OmegaConf

from noneuclid.data.files import temporary_sibling
from noneuclid.runs.settings import SETTINGS_VERSION, settings_hash

# The run folders this process holds (RunDir.claim): resolved path -> [RUNNING's descriptor, claims,
# the nearest folder that existed before the claim].
_HELD: dict[str, list] = {}


def _process_id() -> str:
    return f"{socket.gethostname()} {os.getpid()}"


# Per-run CSVs written gzipped when their name ends in .gz, without a timestamp in the header: the
# same rows give the same bytes (pandas' to_csv(compression=...); read_csv reads them as they are)
CSV_COMPRESSION = {"method": "infer", "mtime": 0}


def atomic_write(path: Path, text: str) -> None:
    tmp = temporary_sibling(path)
    tmp.write_text(text)
    os.replace(tmp, path)


class RunDir:
    def __init__(self, cfg: DictConfig):
        self.name = f"{cfg.study.run_name}-{settings_hash(cfg)}"
        self.path = Path(cfg.paths.runs_dir) / cfg.study.paper / cfg.profile.name / self.name
        self.cfg = cfg

    def file(self, name: str) -> Path:
        return self.path / name

    @property
    def done(self) -> bool:
        return self.file("DONE").exists()

    def _writable_ancestor(self) -> Path:
        """The run folder or its nearest existing ancestor, which must be a writable folder: fails
        clearly, before any data is loaded, if the run folder cannot be made. Nothing is created here."""
        folder = self.path
        while not folder.exists():
            folder = folder.parent
        if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
            raise RuntimeError(self._unwritable(f"{folder} is not a writable folder"))
        return folder

    def _unwritable(self, why) -> str:
        return (
            f"cannot write the run folder {self.path}: {why}. "
            f"Choose another location with paths.runs_dir=... (or NONEUCLID_RUNS_DIR)"
        )

    def create(self) -> None:
        """Make the folder; write config, environment and W&B id."""
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            probe = self.file(".write_test")
            probe.write_text("")
            probe.unlink()
        except OSError as e:  # e.g. a read-only file system, which os.access does not see for root
            raise RuntimeError(self._unwritable(e)) from e
        self.file("FAILED").unlink(missing_ok=True)  # a new attempt
        atomic_write(self.file("config.yaml"), OmegaConf.to_yaml(self.cfg, resolve=True))
        env = environment()
        if not self.file("env.json").exists():
            atomic_write(self.file("env.json"), json.dumps(env, indent=2))
        else:  # a resumed run keeps the environment it started in; say when the code changed since
            first = json.loads(self.file("env.json").read_text())
            if first.get("git_commit") != env["git_commit"]:
                logging.getLogger("noneuclid").warning(
                    "warning: resuming a run started at commit %s with commit %s",
                    first.get("git_commit"),
                    env["git_commit"],
                )
        if not self.file("wandb_id").exists():  # one W&B run per run folder, for its whole life
            atomic_write(self.file("wandb_id"), secrets.token_hex(8))

    def check_version(self) -> None:
        """Raise when this run has no folder yet but a run of the same name has one from an earlier
        settings version (the same run, perhaps, under its former hash): migrate those first."""
        if self.path.exists():
            return
        for other in self.path.parent.glob(f"{self.cfg.study.run_name}-*/config.yaml"):
            earlier = OmegaConf.load(other).get("settings_version", 1)
            if earlier < SETTINGS_VERSION:
                raise RuntimeError(
                    f"{other.parent} is a run folder of settings version {earlier} (these configs: "
                    f"{SETTINGS_VERSION}), perhaps this very run under its former name: bring the run "
                    f"folders up to date with python -m noneuclid.runs migrate --runs {self.cfg.paths.runs_dir}, "
                    f"then start this again"
                )

    # -- who trains it ----------------------------------------------------------------------------
    def claim(self) -> str | None:
        """Take the run for this process: an exclusive flock on RUNNING (which names host and pid), held
        until release(). The kernel drops the lock when the process dies, so a killed or requeued run is
        free again at once, from any host. Re-entrant: a process may claim a run it holds (when it
        regroups its own runs). Returns None when taken, else the holder's name."""
        key = str(self.path.resolve())
        if key in _HELD:
            _HELD[key][1] += 1
            return None
        existing = self._writable_ancestor()  # removed again down to here by release() if left empty
        self.path.mkdir(parents=True, exist_ok=True)
        lock = self.file("RUNNING")
        while True:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                try:  # (the folder existed: its holder made it)
                    return lock.read_text().strip() or "another process"
                except FileNotFoundError:  # released meanwhile
                    return "another process"
            try:  # the file we locked is still RUNNING (a releasing holder may have removed it)
                if os.stat(lock).st_ino == os.fstat(fd).st_ino:
                    break
            except FileNotFoundError:
                pass
            os.close(fd)
        os.ftruncate(fd, 0)
        os.write(fd, _process_id().encode())
        _HELD[key] = [fd, 1, existing]
        for stale in self.path.glob("*.tmp"):  # left by a killed writer (ours now)
            stale.unlink(missing_ok=True)
        return None

    def release(self) -> None:
        """Undo one claim(); the last one removes RUNNING, drops the lock, and removes the folders that
        claim() made if nothing was written into them (a run that failed before training leaves none)."""
        key = str(self.path.resolve())
        held = _HELD.get(key)
        if held is None:
            return
        held[1] -= 1
        if held[1] == 0:
            del _HELD[key]
            self.file("RUNNING").unlink(missing_ok=True)
            os.close(held[0])
            folder = self.path
            while folder != held[2]:
                try:
                    folder.rmdir()
                except OSError:  # not empty
                    break
                folder = folder.parent

    # -- starting from a shorter run --------------------------------------------------------------
    def shorter_run(self) -> Path | None:
        """The longest finished run beside this one whose settings differ only in fewer epochs, n, with
        an evaluation at its end in this run too (trainer.eval_every divides n); None if there is none.
        Its n epochs are this run's first n: nothing depends on the total (batches are shuffled per seed
        and epoch, learning rates change per epoch), so this run can go on from its checkpoint."""
        epochs, own, best = self.cfg.trainer.epochs, settings_hash(self.cfg), (None, 0)
        for folder in self.path.parent.glob(f"{self.cfg.study.run_name}-*"):
            if folder == self.path or not all((folder / f).exists() for f in ("DONE", "checkpoint.pt", "config.yaml")):
                continue
            other = OmegaConf.load(folder / "config.yaml")
            n = other.trainer.epochs
            other.trainer.epochs = epochs
            if best[1] < n < epochs and n % self.cfg.trainer.eval_every == 0 and settings_hash(other) == own:
                best = (folder, n)
        return best[0]

    def start_from(self, shorter: Path) -> None:
        """Copy a shorter run's checkpoint and metrics into this run's (new) folder, to train on from
        there as a resumed run; EXTENDS names it. (W&B shows this run from there on.)"""
        for name in ("metrics.jsonl", "checkpoint.pt"):
            tmp = temporary_sibling(self.file(name))
            shutil.copyfile(shorter / name, tmp)
            os.replace(tmp, self.file(name))
        atomic_write(self.file("EXTENDS"), str(shorter))
        logging.getLogger("noneuclid").info("starting from the shorter run %s", shorter)

    # -- metrics -------------------------------------------------------------------------------
    def metrics(self) -> list[dict]:
        return read_metrics(self.file("metrics.jsonl"))

    def append_metrics(self, row: dict) -> None:
        with open(self.file("metrics.jsonl"), "a") as f:
            f.write(json.dumps(row) + "\n")

    def truncate_metrics(self, epochs_done: int) -> None:
        """Keep the lines of the first `epochs_done` epochs (those in the checkpoint): an interrupted
        epoch is trained again on resume."""
        rows = [r for r in self.metrics() if r["epoch"] <= epochs_done]
        atomic_write(self.file("metrics.jsonl"), "".join(json.dumps(r) + "\n" for r in rows))

    # -- checkpoints -----------------------------------------------------------------------------
    def save_checkpoint(self, state: dict) -> None:
        tmp = temporary_sibling(self.file("checkpoint.pt"))
        torch.save(state, tmp)
        os.replace(tmp, self.file("checkpoint.pt"))

    def load_checkpoint(self) -> dict | None:
        f = self.file("checkpoint.pt")
        return torch.load(f, map_location="cpu", weights_only=False) if f.exists() else None

    def finish(self, summary: dict) -> None:
        atomic_write(self.file("summary.json"), json.dumps(summary, indent=2))
        atomic_write(self.file("DONE"), "")

    def summary(self) -> dict:
        return json.loads(self.file("summary.json").read_text())


def is_held(folder: Path) -> bool:
    """Whether a live process trains the run in folder now (holds the flock on its RUNNING); a RUNNING
    file left by a killed process is not held."""
    try:
        fd = os.open(folder / "RUNNING", os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # (drops the shared lock, if taken)


def read_metrics(path: Path) -> list[dict]:
    """The rows of a metrics.jsonl, up to a last line cut short by a kill ([] if there is no file)."""
    if not path.exists():
        return []
    rows = []
    for line in path.read_text().splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            break
    return rows


def environment() -> dict:
    """Versions, git commit and hardware, for env.json."""

    def git(*args):
        try:
            return subprocess.run(
                ["git", *args], capture_output=True, text=True, timeout=10, cwd=Path(__file__).parent
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""

    import numpy

    return {
        "python": sys.version.split()[0],
        "torch": torch.__version__,
        "numpy": numpy.__version__,
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "cuda": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        "git_commit": git("rev-parse", "HEAD"),
        "git_dirty": bool(git("status", "--porcelain", "--untracked-files=no")),
        "command": " ".join(sys.argv),
    }
