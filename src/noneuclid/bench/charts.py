"""Benchmark of the two charts of hyperbolic space (model.chart): the train step of Ganea et al.'s
fully hyperbolic GRU sentence-pair model (bench.hyperbolic's step: batch 64, PREFIX-like sentences,
dimension 5, compiled) and an epoch of Table 2's hyperbolic MLR (bench.mlr's epoch: one run on
WordNet-sized random points, batches of 512), each in the Lorentz chart over the same on the Poincare
ball, measured in the same run, at one thread (as the sweeps run) in this process's CPU seconds on a
CPU (compare's process_time clock: other processes may keep the cores busy). The two are the same
function (spaces.Lorentz): the ratio is the cost of the hyperboloid's arithmetic.

The GRU's step again at the stack experiment=hnn/charts trains (its datasets times its seeds, one process):
at one run the step's fixed cost (the optimizer, the Python around the compiled graph) hides much of the
arithmetic that a stack multiplies.

Beside them, the train step of the model that Table 1's chart runs train (experiment=hnn/charts: the
hyperbolic RNN with a Euclidean MLR, a stack of the 3 seeds, as those runs train), in float64 and
float32, each chart over the ball in the same precision: what a run's train_seconds should show, a
step per batch, on an idle core."""

from __future__ import annotations

import time

import torch

from noneuclid.bench import hyperbolic, mlr
from noneuclid.bench.timing import compare
from noneuclid.config import experiment_value

CHARTS = ("poincare", "lorentz")
TABLE1_STACK = 3  # the runs of one stack of experiment=hnn/charts: PREFIX-10's seeds 0-2


def run(device: torch.device, batch: int = 64, repeats: int = 10, dtype=torch.float64, quick: bool = False) -> dict:
    """Seconds per GRU train step, per MLR epoch and per train step of Table 1's chart runs (in float64
    and float32) in each chart, and their ratios lorentz / poincare; quick: eager steps (no
    torch.compile) and an MLR on 4,096 points."""
    nodes = 4096 if quick else mlr.NODES
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as the sweeps run: one process per core
    clock = time.process_time if device.type == "cpu" else time.perf_counter  # CPU seconds: robust to a busy machine
    steps = {"runs": 1, "compile": not quick, "repeats": repeats, "clock": clock}
    gru = _steps(device, dtype, batch, "hyperbolic", **steps)
    stack = len(experiment_value("hnn/charts", "stack.data")) * len(experiment_value("hnn/charts", "stack.seed"))
    stacked = _steps(device, dtype, batch, "hyperbolic", **{**steps, "runs": stack})
    classifier = compare(
        {chart: mlr.make_epoch("hyperbolic", [0], nodes, 512, device, dtype, chart=chart) for chart in CHARTS},
        device,
        warmup=1,
        repeats=max(3, repeats // 3),
        clock=clock,
    )
    table1 = {
        str(precision).removeprefix("torch."): _steps(
            device, precision, batch, "hyperbolic_eucl_mlr", cell="rnn", **{**steps, "runs": TABLE1_STACK}
        )
        for precision in (torch.float64, torch.float32)
    }
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
        "gru_stack": stack,
        "gru_stack_step_seconds": stacked,
        "gru_stack_ratio": stacked["lorentz"] / stacked["poincare"],
        "mlr_ratio": classifier["lorentz"] / classifier["poincare"],
        "table1_stack": TABLE1_STACK,
        "table1_step_seconds": table1,
        "table1_ratio": {precision: t["lorentz"] / t["poincare"] for precision, t in table1.items()},
    }


def _steps(device, dtype, batch: int, geometry: str, runs: int, compile: bool, repeats: int, clock, cell="gru"):
    """Seconds per train step of a sentence-pair model (`geometry`, `cell`, `runs` stacked) in each chart."""
    steps = {
        chart: hyperbolic.make_step(geometry, device, dtype, batch, compile=compile, runs=runs, chart=chart, cell=cell)
        for chart in CHARTS
    }
    return compare(steps, device, repeats=repeats, clock=clock)


def describe(r: dict) -> str:
    g, m, s = r["gru_step_seconds"], r["mlr_epoch_seconds"], r["gru_stack_step_seconds"]
    return "\n".join(
        [
            f"Lorentz chart over the Poincare ball, {r['dtype']}, {r['device']} (medians of interleaved repeats; "
            "CPU seconds of the process on a CPU)",
            f"  GRU sentence pair, train step, batch {r['batch']}, one thread "
            f"({'compiled' if r['compiled'] else 'eager: --quick'}): poincare {g['poincare'] * 1e3:7.1f} ms, "
            f"lorentz {g['lorentz'] * 1e3:7.1f} ms, ratio {r['gru_ratio']:5.2f}",
            f"  the same, {r['gru_stack']} runs stacked (experiment=hnn/charts): "
            f"poincare {s['poincare'] * 1e3:7.1f} ms, lorentz {s['lorentz'] * 1e3:7.1f} ms, "
            f"ratio {r['gru_stack_ratio']:5.2f}",
            f"  hyperbolic MLR, epoch of {r['mlr_nodes']} points, one thread: "
            f"poincare {m['poincare']:6.2f} s, lorentz {m['lorentz']:6.2f} s, ratio {r['mlr_ratio']:5.2f}",
            *(
                f"  Table 1's chart runs (hyperbolic RNN + Eucl. MLR, {r['table1_stack']} runs stacked), train step, "
                f"{precision}: poincare {t['poincare'] * 1e3:7.1f} ms, lorentz {t['lorentz'] * 1e3:7.1f} ms, "
                f"ratio {r['table1_ratio'][precision]:5.2f}"
                for precision, t in r["table1_step_seconds"].items()
            ),
        ]
    )
