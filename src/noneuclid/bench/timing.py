"""Timing helpers for the benchmarks: median of repeated, interleaved measurements."""

from __future__ import annotations

import statistics
import time
from typing import Callable

import torch


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def compare(fns: dict[str, Callable[[], None]], device: torch.device, warmup: int = 2,
            repeats: int = 10) -> dict[str, float]:
    """Median seconds per call of each function, measured round-robin so that load changes on the
    machine hit every candidate alike."""
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    times = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            _sync(device)
            start = time.perf_counter()
            fn()
            _sync(device)
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}
