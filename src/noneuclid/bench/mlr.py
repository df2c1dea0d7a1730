"""Benchmark of Table 2's classifiers (Ganea et al.): runs per hour when `stacked_runs` binary MLRs
on the points of one embedding (one cell: its seeds) train as one stacked model, over one run at a
time. Timed: one epoch of each run (the trainer's loop over natural-mix batches of 512, then the
test split's scores) on random points of WordNet's size (82,115 nodes in 5-D, a subtree of 5 %),
float64, Adam and Riemannian SGD as configured for Table 2, at one thread as in the sweeps, in this
process's CPU seconds (compare's process_time clock: the sweeps may keep the cores busy)."""

from __future__ import annotations

import time

import torch
from tqdm import tqdm

from noneuclid.bench.timing import compare
from noneuclid.data import wordnet
from noneuclid.models.mlr import GEOMETRIES, PointMLR
from noneuclid.optim import adam_rsgd
from noneuclid.train import tasks
from noneuclid.train.tasks.subtrees import SubtreeClassification
from noneuclid.train.trainer import train_epoch

NODES, DIM = wordnet.NOUNS, 5


def _points(nodes: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Random points [nodes, DIM] inside the unit ball and labels [nodes], 5 % positive."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(nodes, DIM, generator=g, dtype=torch.float64)
    return x / (1 + x.norm(dim=-1, keepdim=True)), (torch.rand(nodes, generator=g) < 0.05).long()


def make_epoch(geometry: str, seeds: list[int], nodes: int, batch: int, device, dtype, chart: str = "poincare"):
    """One epoch (training, then the test split's scores) of the runs of `seeds` as one model (the
    hyperbolic MLR's logits in `chart`)."""
    x, y = _points(nodes)
    run_tasks = [
        SubtreeClassification(x, y, wordnet.split(nodes, s), batch, s, natural_mix=True).to(device, dtype)
        for s in seeds
    ]
    task = run_tasks[0] if len(seeds) == 1 else tasks.stack(run_tasks)
    model = PointMLR(DIM, geometry, runs=len(seeds), chart=chart).to(device, dtype)
    optimizer = adam_rsgd(list(model.named_parameters()), lr=1e-2, betas=(0.9, 0.999), embedding_lr=0.1, ball_lr=0.01)
    bar = tqdm(disable=True)

    def epoch():
        train_epoch(model, optimizer, task, 0, bar)
        task.evaluate(model, "test")

    return epoch


def run(
    device: torch.device,
    batch: int = 512,
    repeats: int = 3,
    dtype=torch.float64,
    stacked_runs: int = 10,
    quick: bool = False,
) -> dict:
    """CPU seconds of an epoch of `stacked_runs` runs one at a time and stacked, per geometry; quick:
    2 runs on 4,096 points."""
    runs, nodes = (2, 4096) if quick else (stacked_runs, NODES)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    seconds = {}
    for geometry in GEOMETRIES:
        alone = [make_epoch(geometry, [s], nodes, batch, device, dtype) for s in range(runs)]
        stacked = make_epoch(geometry, list(range(runs)), nodes, batch, device, dtype)
        seconds[geometry] = compare(
            {"alone": lambda alone=alone: [epoch() for epoch in alone], "stacked": stacked},
            device,
            warmup=1,
            repeats=repeats,
            clock=time.process_time,
        )
    torch.set_num_threads(threads)
    return {
        "device": str(device),
        "batch": batch,
        "dtype": str(dtype).removeprefix("torch."),
        "nodes": nodes,
        "stacked_runs": runs,
        "steps_per_epoch": -(-(nodes - round(0.2 * nodes)) // batch),
        "epoch_seconds": seconds,
        "stacked_runs_speedup": {g: s["alone"] / s["stacked"] for g, s in seconds.items()},
    }


def describe(r: dict) -> str:
    k = r["stacked_runs"]
    return "\n".join(
        [
            f"Table 2 classifiers, {r['nodes']} points, batches of {r['batch']} "
            f"({r['steps_per_epoch']} steps per epoch), {r['dtype']}, {r['device']}, "
            "one thread (CPU seconds, medians of interleaved repeats)",
            *(
                f"  {g:15s}: {k} runs one at a time {s['alone']:6.2f} s, stacked {s['stacked']:6.2f} s per epoch: "
                f"{r['stacked_runs_speedup'][g]:5.2f}x the runs per hour"
                for g, s in r["epoch_seconds"].items()
            ),
        ]
    )
