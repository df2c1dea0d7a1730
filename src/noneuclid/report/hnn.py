"""Ganea et al.'s Table 1 (test accuracy at the best dev accuracy: of the seed with the best dev accuracy,
as the paper picks, and mean +- s.d.), dev accuracy on PREFIX-10 during training, the claims and run
health (report.hnn_claims), from the per-run data (runs.csv, curves.csv.gz) and the run folders merged
into it.

    python -m noneuclid.report hnn [--runs runs] [--profile cpu] [--seeds 0-2] [--out DIR] [overrides ...]
    (default: the seeds run; overrides such as trainer.dtype=float32 select the runs and need --out)
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from noneuclid import prose, tables
from noneuclid.claims import render
from noneuclid.config import compose, experiment_value, sweep_values
from noneuclid.data import snli
from noneuclid.figures import hnn as drawn
from noneuclid.report import hnn_claims, provenance, table_engine
from noneuclid.report.hnn_claims import DATASETS, ROWS
from noneuclid.runs import select, table as run_table
from noneuclid.runs.lookup import table1_seeds


def run_names(
    runs: pd.DataFrame, profile: str, seeds, overrides=(), models=tuple(ROWS), datasets=tuple(DATASETS)
) -> dict:
    """(model, dataset, seed) -> the name of its finished run among `runs` (None where none), the run of
    `experiment=hnn/table1 variant=hnn/<model> data=<dataset> <overrides>` (runs.select.trained_by), for
    `models` (ROWS keys) on `datasets` (default: all of Table 1's), the datasets in Table 1's order."""
    names = {}
    for row, data in ((row, data) for row in models for data in DATASETS if data in datasets):
        found = select.trained_by(
            runs, ["experiment=hnn/table1", f"profile={profile}", f"variant=hnn/{row}", f"data={data}", *overrides]
        )
        by_seed = dict(zip(found["cfg.seed"].astype(int), found.run)) if len(found) else {}
        names.update({(row, data, seed): by_seed.get(seed) for seed in seeds})
    return names


def _settings(finished: pd.DataFrame) -> str:
    """The settings the profile reduces (of the PREFIX runs where there are any: SNLI's train_size null
    means all its pairs), and the NaN/inf events over the finished runs."""
    prefix = finished[~select.chosen(finished, {"data.label": "snli"})]
    r = (prefix if len(prefix) else finished).iloc[0]
    size, batch = r["cfg.data.train_size"], int(r["cfg.data.batch_size"])
    size = int(size) if size == size else None  # NaN: all pairs
    epochs = finished.groupby("cfg.model.cell")["cfg.trainer.epochs"].max().astype(int)  # cell -> epochs
    budget = {
        cell: prose.fill(
            "hnn",
            "budget",
            epochs=e,
            batch=batch,  # all pairs: their count is not in runs.csv
            batches=f"{e * -(-size // batch)} " if size else "",
        )
        for cell, e in epochs.items()
    }
    budgets = (
        budget[epochs.index[0]]
        if epochs.nunique() == 1  # the cpu profile: the RNNs twice the GRUs' epochs
        else ", ".join(prose.fill("hnn", "cell_budget", cell=c.upper(), budget=b) for c, b in budget.items())
    )
    return prose.fill(
        "hnn",
        "settings",
        pairs=size or "all",
        budgets=budgets,
        eval_every=int(r["cfg.trainer.eval_every_steps"]),
        dtype=r["cfg.trainer.dtype"],
        runs=len(finished),
        events=int(finished.nonfinite_events.sum()),
    )


def _finished_counts(runs: run_table.Runs, names: dict) -> str:
    """'54 of 54 PREFIX runs and 0 of 18 SNLI runs': of the report's runs, of the kinds it has."""
    kinds = {
        kind: [name for (_, data, _), name in names.items() if (data == "snli") == (kind == "SNLI")]
        for kind in ("PREFIX", "SNLI")
    }
    return " and ".join(
        f"{sum(map(runs.is_done, found))} of {len(found)} {kind} runs" for kind, found in kinds.items() if found
    )


def make(runs_dir: Path, profile: str, out: Path, seeds=None, overrides=()) -> list[Path]:
    """Write table1, claims, fig_prefix10_dev and summary.md into `out`, from its per-run data after merging
    into it the ended runs under runs_dir/hnn/<profile>. Runs of one smaller experiment (e.g.
    hnn/compensated) get a table of its models and datasets only."""
    runs = run_table.Runs(*run_table.load(runs_dir, "hnn", profile, out))
    seeds = seeds or table1_seeds(runs.table)
    names = run_names(runs.table, profile, seeds, overrides)
    trained = runs.finished(names.values())
    if trained.empty:
        raise FileNotFoundError(prose.fill("hnn", "table1_no_runs", out=out, runs_dir=runs_dir, profile=profile))
    experiments = set(trained["cfg.experiment_name"])
    experiment = experiments.pop() if len(experiments) == 1 else "hnn/table1"
    if experiment != "hnn/table1":  # runs of a smaller experiment: its models and datasets only
        models = [v.removeprefix("hnn/") for v in sweep_values(experiment, "variant")]
        names = run_names(runs.table, profile, seeds, overrides, models, experiment_value(experiment, "stack.data"))
    finished = runs.finished(sorted(filter(None, names.values())))
    snli_missing = not snli.split_files(Path(compose(["experiment=hnn/table1"]).paths.data_dir) / "snli", "train")
    table = table_engine.data("hnn", "table1", finished, dict.fromkeys(key[:2] for key in names))
    title, settings = prose.fill("hnn", "table1_title"), _settings(finished)
    missing = {DATASETS["snli"]: "not run (data missing)"} if snli_missing else {}
    shown = table_engine.shown("hnn", "table1", table, missing)
    tables.write(out, "table1", table, shown, f"Ganea et al., {title}", settings)
    dtypes = sorted(set(finished["cfg.trainer.dtype"]))  # with the profile and overrides: what tells the runs apart
    drawn.prefix10_dev(
        runs,
        names,
        out / "fig_prefix10_dev",
        seeds[0],
        ", ".join([f"{profile} profile", *dtypes, *(o for o in overrides if not o.startswith("trainer.dtype="))]),
    )
    extra, seeds_text = "".join(f" {o}" for o in overrides), ",".join(map(str, seeds))
    summary = prose.fill(
        "hnn",
        "summary",
        profile=profile,
        title_overrides="," + extra if extra else "",
        experiment=experiment,
        stack_seeds=f" 'stack.seed=[{seeds_text}]'"
        if list(seeds) != experiment_value(experiment, "stack.seed")
        else "",
        overrides=extra,
        out_option=" --out " + str(out) if extra else "",
        seeds_option=f" --seeds {seeds_text}" if list(seeds) != experiment_value("hnn/table1", "stack.seed") else "",
        counts=_finished_counts(runs, names),
        seeds=", ".join(map(str, seeds)),
        settings=settings,
        table1_title=title,
        snli=prose.fill("hnn", "snli_missing") if snli_missing and any(k[1] == "snli" for k in names) else "",
        claims=render.write(
            out, "claims", provenance.final(hnn_claims.verdicts(finished, {k[1] for k in names}), finished, "hnn")
        ),
        health="".join(f"{line}\n" for line in hnn_claims.health(finished, runs)),
        table1=shown.to_markdown(
            index=False,
            disable_numparse=True,  # the paper's digits as printed: 72.10
            colalign=["right" if c.endswith("(paper)") else "left" for c in shown.columns],
        ),
    )
    (out / "summary.md").write_text(summary + "\n")
    return sorted(out.iterdir())
