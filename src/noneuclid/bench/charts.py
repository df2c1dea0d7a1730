"""Benchmark of the two charts of hyperbolic space (model.chart): the train step of Ganea et al.'s
fully hyperbolic GRU sentence-pair model (bench.hyperbolic's step: batch 64, PREFIX-like sentences,
dimension 5, compiled) and an epoch of Table 2's hyperbolic MLR (bench.mlr's epoch: one run on
WordNet-sized random points, batches of 512), each in the Lorentz chart over the same on the Poincare
ball, measured in the same run, at one thread (as the sweeps run) in this process's CPU seconds on a
CPU (compare's process_time clock: other processes may keep the cores busy). The two are the same
function (spaces.Lorentz): the ratio is the cost of the hyperboloid's arithmetic."""

from __future__ import annotations

import time

import torch

from noneuclid.bench import hyperbolic, mlr
from noneuclid.bench.timing import compare

CHARTS = ("poincare", "lorentz")


def run(device: torch.device, batch: int = 64, repeats: int = 10, dtype=torch.float64, quick: bool = False) -> dict:
    """Seconds per GRU train step and per MLR epoch in each chart, and their ratios lorentz / poincare;
    quick: eager GRU steps (no torch.compile) and an MLR on 4,096 points."""
    nodes = 4096 if quick else mlr.NODES
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as the sweeps run: one process per core
    clock = time.process_time if device.type == "cpu" else time.perf_counter  # CPU seconds: robust to a busy machine
    gru = compare(
        {
            chart: hyperbolic.make_step("hyperbolic", device, dtype, batch, compile=not quick, chart=chart)
            for chart in CHARTS
        },
        device,
        repeats=repeats,
        clock=clock,
    )
    classifier = compare(
        {chart: mlr.make_epoch("hyperbolic", [0], nodes, 512, device, dtype, chart=chart) for chart in CHARTS},
        device,
        warmup=1,
        repeats=max(3, repeats // 3),
        clock=clock,
    )
    torch.set_num_threads(threads)
    return {
        "device": str(device),
        "batch": batch,
        "dtype": str(dtype).removeprefix("torch."),
        "compiled": not quick,
        "mlr_nodes": nodes,
        "gru_step_seconds": gru,
        "mlr_epoch_seconds": classifier,
        "gru_ratio": gru["lorentz"] / gru["poincare"],
        "mlr_ratio": classifier["lorentz"] / classifier["poincare"],
    }


def describe(r: dict) -> str:
    g, m = r["gru_step_seconds"], r["mlr_epoch_seconds"]
    return "\n".join(
        [
            f"Lorentz chart over the Poincare ball, {r['dtype']}, {r['device']} (medians of interleaved repeats; "
            "CPU seconds of the process on a CPU)",
            f"  GRU sentence pair, train step, batch {r['batch']}, one thread "
            f"({'compiled' if r['compiled'] else 'eager: --quick'}): poincare {g['poincare'] * 1e3:7.1f} ms, "
            f"lorentz {g['lorentz'] * 1e3:7.1f} ms, ratio {r['gru_ratio']:5.2f}",
            f"  hyperbolic MLR, epoch of {r['mlr_nodes']} points, one thread: "
            f"poincare {m['poincare']:6.2f} s, lorentz {m['lorentz']:6.2f} s, ratio {r['mlr_ratio']:5.2f}",
        ]
    )
