"""What a full reproduction at profile=paper costs: each paper experiment's model trained for a fixed
time by the trainer's own step, beside a plain-PyTorch baseline of the same shapes (bench/baselines.py)
timed round-robin in the same process, and the wall time of the experiment's whole sweep at that speed.

    python -m noneuclid.bench paper-scale [--device cpu|cuda] [--seconds S] [--only <paper>/<experiment>]

A row is one value of the key the experiment sweeps over its models (ROWS: a depth, a variant, a
geometry, a dimension), composed as `python -m noneuclid.train experiment=<e> profile=paper <key>=<value>`
composes it (its other swept settings at their defaults: n = 4, PHYDI init, ...), with
trainer.device=<device> unless the experiment pins the device (a note says so); its stacked runs
(`stack`) are built and stepped as the trainer does. The data is the real dataset where it is found,
else a stand-in of the real shapes (bench/standins.py, `data` = synthetic); SUBSETS lists data timed
on their first examples, whose epoch is counted at the full size.

Columns: samples_per_s counts what the trainer counts as examples (images, sentence pairs, edges,
points; tokens for the language model) over all stacked runs; ratio = baseline_samples_per_s /
samples_per_s, the time of our step over the baseline's (> 1: ours is slower); data_wait_share the part
of our step spent getting its batch; sweep_hours = jobs x epochs x steps per epoch / steps_per_s, one
job after another (jobs: the sweep's other settings; each job trains its stacked runs together),
training steps only (no evaluation); for an experiment whose runs stop on convergence, at its most
epochs. same_runs_as names an earlier row whose runs these are (Brantner's Table 2 reuses Fig. 3's run
folders): a paper's total counts them once.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pandas as pd
import torch

from noneuclid import optim
from noneuclid.bench import baselines, paper_scale_docs
from noneuclid.bench.meter import Meter, measure
from noneuclid.bench.standins import STANDINS
from noneuclid.config import compose, stacked_runs, sweep_params
from noneuclid.data import prefix
from noneuclid.data.files import DataError
from noneuclid.runs import resolve_device
from noneuclid.runs.cli import PROFILES, device
from noneuclid.tables import FLOAT_FORMAT
from noneuclid.train import tasks
from noneuclid.train.trainer import build_task_and_model, train_step

# experiment -> the swept key whose values are its models (a row each); its other keys count the jobs
ROWS = {
    "brantner/fig3a": "variant",
    "brantner/fig3b": "variant",
    "brantner/table2": "variant",
    "hnn/table1": "variant",
    "hnn/poincare": "model.dim",
    "hnn/table2": "model.geometry",
    "phydi/table1": "model.depth",
    "phydi/table2": "variant",
    "phydi/fig4": "model.depth",
}
# data that takes long to build at full size (PREFIX: 500K generated pairs per run, padded in Python):
# (overrides it is timed with, its full training examples); a step costs the same on fewer examples
SUBSETS = {
    "prefix": (
        ("data.train_size=6400", "data.dev_size=100", "data.test_size=100"),
        lambda cfg: cfg.data.train_size or prefix.SPLITS["train"][0],
    )
}
COLUMNS = [
    "paper",
    "experiment",
    "model",
    "device",
    "data",
    "samples_per_s",
    "baseline_samples_per_s",
    "ratio",
    "peak_mem_gib",
    "data_wait_share",
    "sweep_hours",
    "runs",
    "stacked",
    "jobs",
    "epochs",
    "steps_per_epoch",
    "steps_per_s",
    "steps_timed",
    "baseline_steps_timed",
    "same_runs_as",
    "note",
]


def rows(experiments=tuple(ROWS)) -> list[tuple[str, str, str]]:
    """(experiment, key, value) of every row of the experiments."""
    return [(e, ROWS[e], v) for e in experiments for v in sweep_params(e)[ROWS[e]]]


def configs(experiment: str, overrides: list[str], device: str) -> tuple[list, str]:
    """The configs of the runs of one job (the stack's runs, or the one run), composed with `overrides`
    and, where the experiment leaves trainer.device at auto, trainer.device=device; and a note."""
    from omegaconf import OmegaConf

    cfg, notes = compose(overrides, experiment), []
    if cfg.trainer.device == "auto":
        overrides = [*overrides, f"trainer.device={device}"]
    elif cfg.trainer.device != device:
        notes.append(f"trainer.device={cfg.trainer.device} set by the experiment")
    if cfg.data.name in SUBSETS:
        subset, full = SUBSETS[cfg.data.name]
        overrides = [*overrides, *subset]
        notes.append(
            f"timed on the first {subset[0].split('=')[1]} training examples of each run; "
            f"an epoch counted at {full(cfg)}"
        )
    cfg = compose(overrides, experiment)
    cfgs = stacked_runs(overrides, OmegaConf.to_container(cfg.stack), experiment) if cfg.stack else [cfg]
    return cfgs, "; ".join(notes)


def _task(cfg, sources: list):
    """tasks.build(cfg), or the stand-in of its data where the data (or the Poincare embedding that
    Table 2 classifies) is missing; appends which to sources."""
    try:
        task = tasks.build(cfg)
    except (DataError, FileNotFoundError):
        if cfg.data.name not in STANDINS:
            raise
        sources.append("synthetic")
        return STANDINS[cfg.data.name](cfg)
    sources.append("real")
    return task


def _endless(task, epoch: int):
    while True:
        yield from task.batches(epoch)
        epoch += 1


def _examples(task, batch, runs: int) -> int:
    """The examples of all runs in a batch, as train_epoch counts them."""
    n = task.examples(batch) if hasattr(task, "examples") else batch[-1].shape[-1]
    return int(n.sum()) if torch.is_tensor(n) else n * runs


def time_job(cfgs: list, seconds: float) -> dict:
    """Measure the trainer's step on the job of `cfgs` against the plain-PyTorch baseline (meter.measure)
    at trainer.threads torch threads (as the Trainer sets them; null: as they are), with samples per
    step, the data's source and steps per epoch."""
    threads = torch.get_num_threads()
    torch.set_num_threads(cfgs[0].trainer.threads or threads)
    try:
        return _time_job(cfgs, seconds)
    finally:
        torch.set_num_threads(threads)


def _time_job(cfgs: list, seconds: float) -> dict:
    cfg, sources = cfgs[0], []
    device, dtype = resolve_device(cfg.trainer.device), getattr(torch, cfg.trainer.dtype)
    init_dtype = getattr(torch, cfg.trainer.init_dtype) if cfg.trainer.init_dtype else None
    task, model, _ = build_task_and_model(cfgs, device, dtype, init_dtype, lambda c: _task(c, sources))
    optimizer = optim.build(cfg.optim, list(model.named_parameters()))
    model.train()
    epoch, skipped = cfg.optim.get("burnin_epochs", 0), torch.zeros(len(cfgs), dtype=torch.long)
    batches = _endless(task, epoch)  # after the burn-in: the steps of most epochs
    first = next(batches)
    ours = Meter(
        lambda b: train_step(model, optimizer, task, b, epoch, 0, skipped), itertools.chain([first], batches), device
    )
    result = measure(
        ours,
        lambda: Meter(
            baselines.build(cfg, first, len(cfgs), device, dtype, **task.model_kwargs), itertools.repeat(first), device
        ),
        seconds,
    )
    return {
        **result,
        "device": str(device),
        "samples": _examples(task, first, len(cfgs)),
        "data": "synthetic" if "synthetic" in sources else "real",
        "steps_per_epoch": task.steps_per_epoch(),
    }


def row(
    experiment: str, key: str, value: str, device: str, seconds: float, profile: str = "paper", overrides=()
) -> dict:
    """One row of the table (see the module doc)."""
    base = [f"experiment={experiment}", f"profile={profile}", f"{key}={value}", *overrides]
    cfgs, note = configs(experiment, base, device)
    t = time_job(cfgs, seconds)
    cfg, paper_cfg = cfgs[0], compose(base, experiment)
    subset = SUBSETS.get(paper_cfg.data.name)
    steps = math.ceil(subset[1](paper_cfg) / cfg.data.batch_size) if subset else t["steps_per_epoch"]
    jobs = math.prod(len(v) for k, v in sweep_params(experiment).items() if k != key)
    epochs = cfg.trainer.epochs
    if cfg.trainer.get("converge"):
        note = "; ".join(
            filter(
                None,
                [note, f"epochs at most (stops on convergence, not before {cfg.trainer.converge.get('after', 0)})"],
            )
        )
    return {
        "paper": cfg.study.paper,
        "experiment": experiment,
        "model": cfg.study.run_name.rsplit("-s", 1)[0],
        "device": t["device"],
        "data": t["data"],
        "samples_per_s": t["samples"] * t["steps_per_s"],
        "baseline_samples_per_s": t["samples"] * t["baseline_steps_per_s"],
        "ratio": t["baseline_steps_per_s"] / t["steps_per_s"],
        "peak_mem_gib": t["peak_mem_gib"],
        "data_wait_share": t["data_wait_share"],
        "sweep_hours": jobs * epochs * steps / t["steps_per_s"] / 3600,
        "runs": jobs * len(cfgs),
        "stacked": len(cfgs),
        "jobs": jobs,
        "epochs": epochs,
        "steps_per_epoch": steps,
        "steps_per_s": t["steps_per_s"],
        "steps_timed": t["steps"],
        "baseline_steps_timed": t["baseline_steps"],
        "same_runs_as": "",
        "note": note,
    }


def table(experiments, device: str, seconds: float, profile: str = "paper", overrides=(), log=print) -> pd.DataFrame:
    """The rows of the experiments; a row whose runs an earlier row already has (the same composed
    settings) is not timed again: it repeats that row's numbers with same_runs_as naming its experiment."""
    out, seen = [], {}
    for experiment, key, value in rows(experiments):
        settings = _settings(experiment, [f"profile={profile}", f"{key}={value}", *overrides])
        if settings in seen:
            out.append({**seen[settings], "experiment": experiment, "same_runs_as": seen[settings]["experiment"]})
        else:
            out.append(seen.setdefault(settings, row(experiment, key, value, device, seconds, profile, overrides)))
        log(", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in out[-1].items() if v != ""))
    return pd.DataFrame(out, columns=COLUMNS)


def _settings(experiment: str, overrides: list[str]) -> str:
    """The composed config of a run as text, without the experiment's name."""
    from omegaconf import OmegaConf

    cfg = compose([f"experiment={experiment}", *overrides], experiment)
    cfg.experiment_name = ""
    return OmegaConf.to_yaml(cfg, resolve=True)


def default_path(device: str) -> Path:
    return Path("results") / "bench" / f"paper_scale_{torch.device(device).type}.csv"


def main(argv=None) -> None:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m noneuclid.bench paper-scale", description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", type=device, default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument(
        "--seconds",
        type=float,
        default=3.0,
        help="timed per row, each of ours and the baseline (after a warm-up step; at least 2 steps each)",
    )
    parser.add_argument("--only", action="append", choices=sorted(ROWS), help="these experiments only (repeatable)")
    parser.add_argument(
        "--profile", choices=PROFILES, default="paper", help="another: a smaller check of the machinery"
    )
    parser.add_argument(
        "--out",
        type=Path,
        help="the CSV to write (default, when every experiment is timed at "
        "profile=paper: results/bench/paper_scale_<device>.csv)",
    )
    parser.add_argument(
        "--docs",
        type=Path,
        help="only write the tables of results/bench/paper_scale_*.csv into "
        "this Markdown file (docs/benchmarks.md), between its paper-scale markers",
    )
    parser.add_argument("overrides", nargs="*", help="config overrides for every row (e.g. paths.data_dir=...)")
    args = parser.parse_args(argv)
    if args.docs:
        if not args.docs.is_file():
            parser.error(f"--docs {args.docs}: no such file")
        try:
            paper_scale_docs.update(args.docs, sorted(Path("results/bench").glob("paper_scale_*.csv")))
        except (FileNotFoundError, ValueError) as e:  # no timings yet, or a page without the markers
            parser.error(str(e))
        return
    frame = table(args.only or tuple(ROWS), args.device, args.seconds, args.profile, args.overrides)
    out = args.out or (None if args.only or args.profile != "paper" else default_path(args.device))
    print(paper_scale_docs.markdown(frame))
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        frame.to_csv(out, index=False, float_format=FLOAT_FORMAT)
        print(f"wrote {out}")
