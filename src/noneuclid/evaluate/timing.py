"""Seconds per training step of Brantner's four runs, timed interleaved on the CPU or on a GPU, for the
claims that the Stiefel versions take about as long per epoch as Euclidean Adam on the CPU and markedly
longer on a GPU (Table 2).

Each arm (configs/variant/brantner/<arm>.yaml: Euclidean Adam, Adam, Momentum and gradient descent on
Stiefel projections) is the profile's real model, optimizer and MNIST task, built from the configs as
the trainer builds them (one task shared: the arms differ only in model.stiefel and optim). After
`warmup` untimed steps per arm, `repeats` rounds time one block of `steps` training steps per arm in
the order A, B, C, D, A, B, C, D, ...: the blocks of one round share the machine's load, so the claim
pairs them by round. A block is train.trainer.train_epoch (the trainer's own loop and clock, that of
the runs' seconds per epoch) over the first `steps` batches of the epoch (all of them by default: one
epoch; on a GPU it waits for the device before reading its clock). timing.csv (the CPU) or
timing_gpu.csv (--device cuda): arm, repeat, steps, steps_per_epoch, seconds, seconds_per_step, threads,
device, processor; an epoch takes seconds_per_step x steps_per_epoch.

    python -m noneuclid.evaluate timing [--profile cpu] [--repeats 5] [--steps N] [--threads 1] [--device cuda]
"""

from __future__ import annotations

import platform
from pathlib import Path

import pandas as pd
import torch
from tqdm import tqdm

from noneuclid import models, optim
from noneuclid.claims import data as claims_data
from noneuclid.config import compose
from noneuclid.train import tasks
from noneuclid.train.trainer import train_epoch

SETUPS = claims_data.load("brantner").labels["setups"]  # the paper's four runs (claims/brantner.yaml)

COLUMNS = ["arm", "repeat", "steps", "steps_per_epoch", "seconds", "seconds_per_step", "threads", "device", "processor"]
FILES = {"cpu": "timing.csv", "cuda": "timing_gpu.csv"}  # device -> the file its timing goes to


class FirstSteps:
    """A task whose epochs are the first `steps` batches of `task`'s (every other attribute is task's)."""

    def __init__(self, task, steps: int):
        self.task, self.steps = task, min(steps, task.steps_per_epoch())

    def steps_per_epoch(self) -> int:
        return self.steps

    def batches(self, epoch: int):
        for step, batch in enumerate(self.task.batches(epoch)):
            if step == self.steps:
                return
            yield batch

    def __getattr__(self, name):
        return getattr(self.task, name)


def arms(profile: str, overrides=(), device: str = "cpu") -> tuple[object, dict[str, tuple]]:
    """The shared task and, per arm of SETUPS, (model, optimizer) on `device` in float32, each model
    drawn from its run's seed as the trainer draws it."""
    cfgs = {arm: compose([f"profile={profile}", f"variant=brantner/{arm}", *overrides]) for arm in SETUPS}
    if len({str(c.data) for c in cfgs.values()}) > 1:
        raise ValueError("the arms must share their data settings to share one task")
    first = next(iter(cfgs.values()))
    task = tasks.build(first).to(torch.device(device), torch.float32)
    built = {}
    for arm, cfg in cfgs.items():
        torch.manual_seed(cfg.seed)
        model = models.build_on(cfg.model, torch.device(device), torch.float32, **task.model_kwargs)
        built[arm] = model, optim.build(cfg.optim, list(model.named_parameters()))
    return task, built


def time_arms(task, built: dict, repeats: int, steps: int | None, warmup: int = 2) -> pd.DataFrame:
    """`repeats` interleaved rounds of one block of `steps` steps per arm (None: a whole epoch) after
    `warmup` untimed steps per arm; one row per arm and round (COLUMNS)."""
    timed, quiet = FirstSteps(task, steps or task.steps_per_epoch()), tqdm(disable=True)
    for model, optimizer in built.values():
        train_epoch(model, optimizer, FirstSteps(task, warmup), 0, quiet)
    device = next(next(iter(built.values()))[0].parameters()).device
    processor = (
        torch.cuda.get_device_name(device) if device.type == "cuda" else platform.processor() or platform.machine()
    )
    rows = []
    for repeat in range(repeats):
        for arm, (model, optimizer) in built.items():
            seconds = train_epoch(model, optimizer, timed, repeat, quiet)[0]["train_seconds"]
            rows.append(
                {
                    "arm": arm,
                    "repeat": repeat,
                    "steps": timed.steps,
                    "steps_per_epoch": task.steps_per_epoch(),
                    "seconds": seconds,
                    "seconds_per_step": seconds / timed.steps,
                    "threads": torch.get_num_threads(),
                    "device": device.type,
                    "processor": processor,
                }
            )
    return pd.DataFrame(rows, columns=COLUMNS)


def make(
    profile: str,
    out: Path,
    repeats: int = 5,
    steps: int | None = None,
    threads: int = 1,
    overrides=(),
    device: str = "cpu",
) -> list[Path]:
    """out/timing.csv (out/timing_gpu.csv with device="cuda") from time_arms on `threads` torch threads."""
    torch.set_num_threads(threads)
    task, built = arms(profile, overrides, device)
    table = time_arms(task, built, repeats, steps)
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / FILES[device], index=False)
    return [out / FILES[device]]
