"""Benchmark of Ganea et al.'s models: one training step of the fully hyperbolic
GRU sentence-pair model over the fully Euclidean GRU model, same sizes and batch (PREFIX-like data:
batch 64, sentences of up to 20 tokens, dimension 5, float64 as in the paper). The hyperbolic
model runs as configured (compiled: input products, recurrence step, FFNN + MLR) and, for
comparison, eager, and without projecting every Mobius result (model.project_results=false: the
cost of the original code's projections). Then the stacked trainer: runs per hour when
`stacked_runs` runs train as one model, over one run at a time (the same step, same machine, same
run), at the process's threads and, on a CPU with more, at one thread as in the sweeps (one process
per core)."""

from __future__ import annotations

import torch

from noneuclid.bench.timing import compare
from noneuclid.models.sentence_pair import SentencePairModel
from noneuclid.optim import adam_rsgd


def make_step(
    geometry: str,
    device,
    dtype,
    batch: int,
    compile: bool = False,
    runs: int = 1,
    project_results: bool = True,
    chart: str = "poincare",
    cell: str = "gru",
):
    """One optimizer step of a model of `runs` stacked runs on random PREFIX-like batches (hyperbolic
    arithmetic in `chart`; `cell` rnn or gru)."""
    g = torch.Generator().manual_seed(0)
    tokens1, tokens2 = (torch.randint(1, 101, (runs, batch, 20), generator=g).to(device) for _ in range(2))
    lengths1, lengths2 = (torch.randint(1, 21, (runs, batch), generator=g).to(device) for _ in range(2))
    labels = torch.randint(0, 2, (runs, batch), generator=g).to(device)
    model = SentencePairModel(
        101, cell, geometry, compile=compile, runs=runs, project_results=project_results, chart=chart
    ).to(device, dtype)
    opt = adam_rsgd(
        list(model.named_parameters()), lr=1e-3, betas=(0.9, 0.999), embedding_lr=0.1, ball_lr=0.01, clip_norm=1.0
    )

    def step():
        opt.zero_grad()
        logits = model(tokens1, lengths1, tokens2, lengths2)  # [runs, batch, 2]
        nll = torch.nn.functional.cross_entropy(logits.flatten(0, 1), labels.flatten(), reduction="none")
        nll.view(runs, batch).mean(1).sum().backward()
        opt.step()

    return step


def run(
    device: torch.device,
    batch: int = 64,
    repeats: int = 10,
    dtype=torch.float64,
    stacked_runs: int = 9,
    quick: bool = False,
) -> dict:
    """The step times and their ratios; quick: every step eager (no torch.compile, which costs about a
    minute per model on an empty compile cache; `compiled` in the result says which)."""
    torch.manual_seed(0)
    compiled = not quick
    steps = {
        "euclidean_gru": make_step("euclidean", device, dtype, batch),
        "hyperbolic_gru": make_step("hyperbolic", device, dtype, batch, compile=compiled),
        "hyperbolic_gru_eager": make_step("hyperbolic", device, dtype, batch),
        "hyperbolic_gru_unprojected": make_step(
            "hyperbolic", device, dtype, batch, compile=compiled, project_results=False
        ),
        "hyperbolic_gru_stacked": make_step("hyperbolic", device, dtype, batch, compile=compiled, runs=stacked_runs),
        "euclidean_gru_stacked": make_step("euclidean", device, dtype, batch, runs=stacked_runs),
    }
    t = compare(steps, device, repeats=repeats)
    threads = torch.get_num_threads()
    one_thread = {}
    if device.type == "cpu" and threads > 1:  # the sweeps' setting: one process per core, one thread each
        torch.set_num_threads(1)
        one_thread = compare(
            {k: steps[k] for k in ("hyperbolic_gru", "hyperbolic_gru_stacked")}, device, repeats=repeats
        )
        torch.set_num_threads(threads)
    return {
        "device": str(device),
        "batch": batch,
        "dtype": str(dtype).removeprefix("torch."),
        "threads": threads,
        "compiled": compiled,
        "train_step_seconds": t,
        "train_step_ratio": t["hyperbolic_gru"] / t["euclidean_gru"],
        "eager_train_step_ratio": t["hyperbolic_gru_eager"] / t["euclidean_gru"],
        "project_results_cost": t["hyperbolic_gru"] / t["hyperbolic_gru_unprojected"],
        "stacked_runs": stacked_runs,
        "stacked_runs_speedup": stacked_runs * t["hyperbolic_gru"] / t["hyperbolic_gru_stacked"],
        "euclidean_stacked_runs_speedup": stacked_runs * t["euclidean_gru"] / t["euclidean_gru_stacked"],
        "one_thread_train_step_seconds": one_thread,
        "one_thread_stacked_runs_speedup": (
            stacked_runs * one_thread["hyperbolic_gru"] / one_thread["hyperbolic_gru_stacked"] if one_thread else None
        ),
        "targets": {"train_step_ratio": "<= 3 on CPU", "stacked_runs_speedup": ">= 4"},
    }


def describe(r: dict) -> str:
    s, k = r["train_step_seconds"], r["stacked_runs"]
    one = (
        [
            f"  the same at one thread           : {r['one_thread_stacked_runs_speedup']:8.2f}   (alone "
            f"{r['one_thread_train_step_seconds']['hyperbolic_gru'] * 1e3:.1f} ms, stacked "
            f"{r['one_thread_train_step_seconds']['hyperbolic_gru_stacked'] * 1e3:.1f} ms; sweeps run one "
            "process per core)"
        ]
        if r["one_thread_stacked_runs_speedup"]
        else []
    )
    return "\n".join(
        [
            f"Sentence-pair GRU models, batch {r['batch']}, {r['dtype']}, {r['device']}, {r['threads']} threads "
            "(medians of interleaved repeats)",
            f"  train step, fully Euclidean GRU  : {s['euclidean_gru'] * 1e3:8.1f} ms",
            f"  train step, fully hyperbolic GRU : {s['hyperbolic_gru'] * 1e3:8.1f} ms  "
            f"({'compiled' if r['compiled'] else 'eager: --quick'})",
            f"  ... the same, eager              : {s['hyperbolic_gru_eager'] * 1e3:8.1f} ms",
            f"  ratio hyperbolic / Euclidean     : {r['train_step_ratio']:8.2f}   (target <= 3 on CPU)",
            f"  ratio eager hyperbolic / Eucl.   : {r['eager_train_step_ratio']:8.2f}",
            f"  every Mobius result projected    : {r['project_results_cost']:8.2f}   x the step projecting only "
            "states and FFNN output",
            f"  {k} hyperbolic runs stacked      : {s['hyperbolic_gru_stacked'] * 1e3:8.1f} ms per step of all {k}",
            f"  runs per hour, stacked / alone   : {r['stacked_runs_speedup']:8.2f}   (target >= 4; Euclidean GRU: "
            f"{r['euclidean_stacked_runs_speedup']:.2f})",
            *one,
        ]
    )
