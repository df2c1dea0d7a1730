"""Timing a training loop for a fixed time: steps/s, the share of it spent waiting for batches, and peak
memory (CUDA: the tensors' peak, torch.cuda.max_memory_allocated; CPU: the process's peak resident set,
VmHWM, reset before each measurement, so it includes the interpreter, torch and the data in memory)."""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import torch

STATUS, CLEAR_REFS = Path("/proc/self/status"), Path("/proc/self/clear_refs")


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


class Meter:
    """Steps of one training loop: step(batch) on the batches of `batches`, timed one by one (wall clock,
    the device synchronised around the batch and the step)."""

    def __init__(self, step: Callable, batches: Iterator, device: torch.device):
        self.step, self.batches, self.device = step, batches, device
        self.steps, self.seconds, self.waiting = 0, 0.0, 0.0

    def tick(self, counted: bool = True) -> None:
        """One step; counted=False for a warm-up step (compilation, first allocations)."""
        _sync(self.device)
        start = time.perf_counter()
        batch = next(self.batches)
        _sync(self.device)
        fetched = time.perf_counter()
        self.step(batch)
        _sync(self.device)
        if counted:
            self.steps += 1
            self.seconds += time.perf_counter() - start
            self.waiting += fetched - start

    def done(self, seconds: float, min_steps: int) -> bool:
        return self.steps >= min_steps and self.seconds >= seconds

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.seconds

    @property
    def data_wait_share(self) -> float:
        return self.waiting / self.seconds


def reset_peak(device: torch.device) -> None:
    """Start a new peak-memory measurement (freed memory given back first)."""
    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats(device)
        return
    libc = ctypes.util.find_library("c")
    if libc:
        getattr(ctypes.CDLL(libc), "malloc_trim", lambda _: 0)(0)
    if CLEAR_REFS.exists():
        CLEAR_REFS.write_text("5")  # Linux: the peak resident set (VmHWM) starts again from now


def peak_gib(device: torch.device) -> float:
    """GiB at the peak since reset_peak (see the module doc for what is counted)."""
    if device.type == "cuda":
        return torch.cuda.max_memory_allocated(device) / 2**30
    for line in STATUS.read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 2**20  # kB
    raise RuntimeError(f"no VmHWM in {STATUS}: peak memory on the CPU is measured on Linux only")


def measure(ours: Meter, baseline: Callable[[], Meter], seconds: float, min_steps: int = 2) -> dict:
    """Warm up our loop by a step and take its peak memory over that and the next step; then build the
    baseline's loop, warm it up by a step, and time both round-robin (so that load on the machine hits
    both alike) until each has run `min_steps` steps and `seconds` seconds."""
    reset_peak(ours.device)
    ours.tick(counted=False)
    ours.tick()
    peak = peak_gib(ours.device)
    base = baseline()
    base.tick(counted=False)
    while not (ours.done(seconds, min_steps) and base.done(seconds, min_steps)):
        for meter in (ours, base):
            if not meter.done(seconds, min_steps):
                meter.tick()
    return {
        "steps_per_s": ours.steps_per_s,
        "baseline_steps_per_s": base.steps_per_s,
        "data_wait_share": ours.data_wait_share,
        "steps": ours.steps,
        "baseline_steps": base.steps,
        "peak_mem_gib": peak,
    }
