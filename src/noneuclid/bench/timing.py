"""Timing helpers for the benchmarks: median of repeated, interleaved measurements."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import torch


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def compare(
    fns: dict[str, Callable[[], None]],
    device: torch.device,
    warmup: int = 2,
    repeats: int = 10,
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, float]:
    """Median seconds per call of each function, measured round-robin so that load changes on the
    machine hit every candidate alike. clock=time.process_time counts this process's CPU seconds
    instead of wall time: on a busy CPU-only machine with torch at one thread, about the wall time
    the call would take on an idle core."""
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    times = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            _sync(device)
            start = clock()
            fn()
            _sync(device)
            times[name].append(clock() - start)
    return {name: statistics.median(t) for name, t in times.items()}
