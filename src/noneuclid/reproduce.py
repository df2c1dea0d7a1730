"""python -m noneuclid.reproduce [all | brantner hnn phydi ...] [--profile cpu] [-- training overrides]

What `make reproduce-all` runs: for each paper, check its data, run its sweeps, redraw its results;
then the HTML report of everything. Every step is its own process, so one failing step does not stop
the others. Steps whose data is missing are skipped and say what to run. Re-running continues where
an interrupted call stopped: finished runs are skipped by the trainer (their folders hold DONE).

Overrides after `--` go to every training sweep, e.g. `-- hydra/launcher=slurm trainer.threads=1`.
The command ends with a summary of what ran, was skipped or failed, and the state of each paper's
run folders (also written to <runs>/reproduce-<profile>-<papers>.json); it exits 1 if anything failed.
Data roots come from NONEUCLID_DATA_DIR / NONEUCLID_GENERATED_DIR / NONEUCLID_RUNS_DIR (the Makefile
sets them), else ./data, ./data/generated and ./runs. Parallel sweeps run NONEUCLID_JOBS processes
(default: one per core).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch

from noneuclid import papers as registry
from noneuclid.config import jobs
from noneuclid.data.registry import missing
from noneuclid.runs import table as run_table
from noneuclid.runs.cli import PROFILES

PAPERS = tuple(registry.PAPERS)  # the papers of the suite, in the order they run


@dataclass
class Step:
    paper: str
    name: str
    args: list[str]  # after `python -m`
    kind: str = "train"  # train | data | report
    status: str = "pending"  # ran | failed | skipped
    reason: str = ""
    seconds: float = 0.0
    needs: list[str] = field(default_factory=list)  # datasets that must be present


def _conditions(profile: str, data_dir: Path, generated_dir: Path) -> dict[str, tuple[bool, str | None]]:
    """The conditions a Stage can name (`when`): whether each holds, and when it does not, why the
    stage is skipped (None: the stage is left out, as there is nothing to do)."""
    reference = data_dir / "reference" / "brantner_gml"
    return {
        "authors_networks": (
            (reference / "mnist_metadata.h5").is_file(),
            f"no authors' networks in {reference} (see its README in ../shared/data)",
        ),
        "snli_train": (
            any((data_dir / "snli").glob("*train*")),
            f"no SNLI training split in {data_dir / 'snli'} (python -m noneuclid.data fetch snli --data-dir DATA_DIR)",
        ),
        "wordnet_to_prepare": (profile != "smoke" and bool(missing("wordnet", data_dir, generated_dir)), None),
        "cifar10_to_write": (
            (data_dir / "cifar10" / "materialize.py").exists() and bool(missing("cifar10", data_dir, generated_dir)),
            None,
        ),
        "gpu": (torch.cuda.is_available(), None),
    }


def plan(
    papers, profile: str, data_dir: Path, generated_dir: Path, runs_dir: Path, overrides: list[str] = ()
) -> list[Step]:
    """The steps of each paper, in order: the stages of its registry entry (papers.PAPERS; at the smoke
    profile, which shows every kind of step once, not the ablations), its report, then the HTML page."""
    train = ["noneuclid.train", "-m", f"profile={profile}", "trainer.progress=false", *overrides]
    # cpu: one process per core (or $NONEUCLID_JOBS), torch at one thread each (the cpu profiles' budgets assume it)
    per_core = (
        []
        if profile != "cpu" or any(o.startswith("hydra/launcher") for o in overrides)
        else ["hydra/launcher=joblib", f"hydra.launcher.n_jobs={jobs()}", "trainer.threads=1"]
    )
    conditions = _conditions(profile, data_dir, generated_dir)
    values = {"runs": runs_dir, "profile": profile, "data": data_dir, "generated": generated_dir}
    steps: list[Step] = []
    for paper in papers:
        for stage in registry.PAPERS[paper].stages:
            if stage.ablation and profile == "smoke":
                continue
            holds, reason = conditions[stage.when] if stage.when else (True, None)
            if not holds:
                if reason is not None:
                    steps.append(Step(paper, stage.name, [], stage.kind, status="skipped", reason=reason))
                continue
            args = [a.format(**values) for a in stage.args] + list(stage.smoke_args if profile == "smoke" else ())
            if stage.kind == "train":
                args = train + (per_core if stage.per_core else []) + args
            needs = [n for n in stage.needs if not (n == "wordnet" and profile == "smoke")]
            steps.append(Step(paper, stage.name, args, stage.kind, needs=needs))
        steps.append(
            Step(
                paper,
                "report",
                ["noneuclid.report", paper, "--runs", str(runs_dir), "--profile", profile],
                kind="report",
            )
        )
    steps.append(
        Step(
            "all",
            "HTML report",
            ["noneuclid.report", "html", "--runs", str(runs_dir), "--profile", profile],
            kind="report",
        )
    )
    return steps


def execute(steps: list[Step], data_dir: Path, generated_dir: Path) -> None:
    """Run the pending steps in order, recording status, reason and time in place."""
    for i, step in enumerate(steps):
        if step.status != "pending":
            continue
        trained = [s for s in steps[:i] if s.paper == step.paper and s.kind == "train"]
        if step.kind == "report" and trained and all(s.status == "skipped" for s in trained):
            step.status, step.reason = "skipped", "nothing of this paper was trained"
            continue
        absent = [m for m in (missing(d, data_dir, generated_dir) for d in step.needs) if m]
        if absent:
            step.status, step.reason = "skipped", "; ".join(absent)
            continue
        print(f"\n=== {step.paper}: {step.name}\n$ python -m {' '.join(step.args)}", flush=True)
        start = time.perf_counter()
        code = subprocess.call([sys.executable, "-m", *step.args])
        step.seconds = time.perf_counter() - start
        step.status = "ran" if code == 0 else "failed"
        step.reason = "" if code == 0 else f"exit code {code} (the output above says why)"


def run_states(runs_dir: Path, paper: str, profile: str) -> str:
    """How many of the paper's run folders are done, diverged, failed, running or stopped."""
    folders = run_table.run_folders([runs_dir / paper / profile]) if (runs_dir / paper / profile).is_dir() else []
    counts = {}
    for folder in folders:
        state = run_table.status(folder)
        counts[state] = counts.get(state, 0) + 1
    return ", ".join(f"{n} {state}" for state, n in sorted(counts.items())) or "none"


def summary(steps: list[Step], runs_dir: Path, profile: str) -> str:
    lines = [f"{'paper':9} {'step':40} {'status':8} {'minutes':>7}  reason"]
    for s in steps:
        lines.append(f"{s.paper:9} {s.name:40} {s.status:8} {s.seconds / 60:7.1f}  {s.reason}")
    for paper in dict.fromkeys(s.paper for s in steps):
        minutes = sum(s.seconds for s in steps if s.paper == paper) / 60
        states = "" if paper == "all" else f"  run folders: {run_states(runs_dir, paper, profile)}"
        lines.append(f"{paper:9} {'total':40} {'':8} {minutes:7.1f}{states}")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m noneuclid.reproduce", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("papers", nargs="*", default=["all"], choices=["all", *PAPERS])
    parser.add_argument("--profile", default="cpu", choices=PROFILES)
    argv = sys.argv[1:] if argv is None else list(argv)
    overrides = argv[argv.index("--") + 1 :] if "--" in argv else []
    args = parser.parse_args(argv[: argv.index("--")] if "--" in argv else argv)
    papers = PAPERS if "all" in args.papers else tuple(dict.fromkeys(args.papers))
    data_dir = Path(os.environ.get("NONEUCLID_DATA_DIR", "data"))
    generated_dir = Path(os.environ.get("NONEUCLID_GENERATED_DIR", "data/generated"))
    runs_dir = Path(os.environ.get("NONEUCLID_RUNS_DIR", "runs"))

    try:
        steps = plan(papers, args.profile, data_dir, generated_dir, runs_dir, overrides)
    except ValueError as e:  # e.g. NONEUCLID_JOBS that is not a count
        parser.error(str(e))
    execute(steps, data_dir, generated_dir)
    print("\n" + summary(steps, runs_dir, args.profile))
    runs_dir.mkdir(parents=True, exist_ok=True)
    record = runs_dir / f"reproduce-{args.profile}-{'-'.join(args.papers)}.json"
    record.write_text(json.dumps([asdict(s) for s in steps], indent=1))
    failed = [s for s in steps if s.status == "failed"]
    if all(s.status == "skipped" for s in steps if s.kind == "train"):
        print("\nNOTHING WAS TRAINED: every training step was skipped (see the reasons above)")
    print(f"\n{len(failed)} step(s) failed; this summary is in {record}" if failed else f"\nsummary in {record}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
