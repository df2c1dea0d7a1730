"""Ganea et al.'s Table 1 (test accuracy at the best dev accuracy: of the seed with the best dev accuracy,
as the paper picks, and mean +- s.d.), dev accuracy on PREFIX-10 during training, the claims and run
health (report.hnn_claims), from the per-run data (runs.csv, curves.csv.gz) and the run folders merged
into it.

    python -m noneuclid.report hnn [--runs runs] [--profile cpu] [--seeds 0-2] [--out DIR] [overrides ...]
    (default: Table 1's seeds for the table, every seed of its settings for the claims; overrides such as
    trainer.dtype=float32 select the runs and need --out)
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from noneuclid import tables
from noneuclid.config import compose, experiment_value, sweep_values
from noneuclid.data import snli
from noneuclid.figures import hnn as drawn
from noneuclid.report import hnn_claims, provenance, table_engine
from noneuclid.report.hnn_claims import DATASETS, SETTINGS, text
from noneuclid.runs import select, table as run_table


def found(runs: pd.DataFrame, profile: str, overrides=()) -> pd.DataFrame:
    """The finished runs among `runs` of Table 1's settings: those of `experiment=hnn/table1 variant=<model>
    data=<dataset> profile=<profile> <overrides>` on every model and dataset (runs.select.swept)."""
    return select.swept(runs, "hnn/table1", [f"profile={profile}", *overrides], DATASETS)


def table1_seeds(found: pd.DataFrame) -> tuple[int, ...]:
    """Table 1's seeds (0, 1, 2) that have runs in `found` (the smoke profile runs seed 0 only; experiment=
    hnn/seeds' 3-17 stay out of the table), else all of them."""
    table1 = experiment_value("hnn/table1", "stack.seed")
    return tuple(s for s in table1 if s in set(found.get("cfg.seed", []))) or tuple(table1)


def _settings(finished: pd.DataFrame) -> str:
    """The settings the profile reduces (of the PREFIX runs where there are any: SNLI's train_size null
    means all its pairs), and the NaN/inf events over the finished runs."""
    prefix = finished[~select.chosen(finished, {"data.label": "snli"})]
    r = (prefix if len(prefix) else finished).iloc[0]
    size, batch = r["cfg.data.train_size"], int(r["cfg.data.batch_size"])
    size = int(size) if size == size else None  # NaN: all pairs, whose count is not in runs.csv
    epochs = finished.groupby("cfg.model.cell")["cfg.trainer.epochs"].max().astype(int)  # cell -> epochs
    budget = {
        c: text("budget", epochs=e, batch=batch, batches=f"{e * -(-size // batch)} " if size else "")
        for c, e in epochs.items()
    }
    cells = ", ".join(text("cell_budget", cell=c.upper(), budget=b) for c, b in budget.items())
    budgets = budget[epochs.index[0]] if epochs.nunique() == 1 else cells  # cpu: the RNNs twice the GRUs' epochs
    fields = {"eval_every": int(r["cfg.trainer.eval_every_steps"]), "dtype": r["cfg.trainer.dtype"]}
    events = int(finished.nonfinite_events.sum())
    return text("settings", pairs=size or "all", budgets=budgets, runs=len(finished), events=events, **fields)


def _finished_counts(finished: pd.DataFrame, cells, seeds) -> str:
    """'54 of 54 PREFIX runs and 0 of 18 SNLI runs': of the report's (model, dataset) cells and seeds, of the
    kinds it has."""
    snli = finished["cfg.data.label"] == "snli"
    kinds = {"PREFIX": (~snli, [d != "snli" for _, d in cells]), "SNLI": (snli, [d == "snli" for _, d in cells])}
    return " and ".join(
        f"{ran.sum()} of {sum(has) * len(seeds)} {kind} runs" for kind, (ran, has) in kinds.items() if any(has)
    )


def _of_one_experiment(runs: run_table.Runs, trained: pd.DataFrame) -> tuple[pd.DataFrame, list[tuple], str]:
    """The finished runs among `trained`, the (model, dataset) cells of the table and the experiment: where all
    come from one smaller experiment (e.g. hnn/compensated), its models and datasets only, else Table 1's."""
    experiments = set(trained["cfg.experiment_name"])
    experiment = experiments.pop() if len(experiments) == 1 else "hnn/table1"
    datasets = DATASETS if experiment == "hnn/table1" else experiment_value(experiment, "stack.data")
    models = [v.removeprefix("hnn/") for v in sweep_values(experiment, "variant")]
    cells = [(m, d) for m in models for d in DATASETS if d in datasets]
    kept = select.any_of(trained, [{**SETTINGS[m], "data.label": d} for m, d in cells])
    return runs.finished(sorted(trained.run[kept])), cells, experiment


def make(runs_dir: Path, profile: str, out: Path, seeds=None, overrides=()) -> list[Path]:
    """Write table1, claims, fig_prefix10_dev and summary.md into `out`, from its per-run data after merging
    into it the ended runs under runs_dir/hnn/<profile>. Runs of one smaller experiment (e.g.
    hnn/compensated) get a table of its models and datasets only. The table is the paper's best of `seeds`
    (default Table 1's); the claims read `seeds` where given, else every seed trained at the settings."""
    runs = run_table.Runs(*run_table.load(runs_dir, "hnn", profile, out))
    every = found(runs.table, profile, overrides)
    seeds, chosen = seeds or table1_seeds(runs.table), seeds
    trained = every[every["cfg.seed"].isin(seeds)] if len(every) else every
    if trained.empty:
        raise FileNotFoundError(text("table1_no_runs", out=out, runs_dir=runs_dir, profile=profile))
    finished, cells, experiment = _of_one_experiment(runs, trained)
    snli_missing = not snli.split_files(Path(compose(["experiment=hnn/table1"]).paths.data_dir) / "snli", "train")
    table = table_engine.data("hnn", "table1", finished, cells)
    title, settings = text("table1_title"), _settings(finished)
    missing = {DATASETS["snli"]: "not run (data missing)"} if snli_missing else {}
    shown = table_engine.shown("hnn", "table1", table, missing)
    tables.write(out, "table1", table, shown, f"Ganea et al., {title}", settings)
    dtypes = sorted(set(finished["cfg.trainer.dtype"]))  # with the profile and overrides: what tells the runs apart
    first = finished[select.chosen(finished, {"data.label": "prefix10", "seed": seeds[0]})]  # the figure's
    names = {m: run for m, _ in cells for run in first.run[select.chosen(first, SETTINGS[m])]}
    subtitle = ", ".join([f"{profile} profile", *dtypes, *(o for o in overrides if not o.startswith("trainer.dtype="))])
    drawn.prefix10_dev(runs, names, out / "fig_prefix10_dev", seeds[0], subtitle)
    extra, seeds_text = "".join(f" {o}" for o in overrides), ",".join(map(str, seeds))
    own_seeds, table1 = (list(seeds) == experiment_value(e, "stack.seed") for e in (experiment, "hnn/table1"))
    judging = finished if chosen else _of_one_experiment(runs, every)[0]  # the claims: every seed found
    judged = hnn_claims.verdicts(judging, {d for _, d in cells})
    summary = text(
        "summary",
        profile=profile,
        title_overrides="," + extra if extra else "",
        experiment=experiment,
        stack_seeds="" if own_seeds else f" 'stack.seed=[{seeds_text}]'",
        overrides=extra,
        out_option=" --out " + str(out) if extra else "",
        seeds_option="" if table1 else f" --seeds {seeds_text}",
        counts=_finished_counts(finished, cells, seeds),
        seeds=", ".join(map(str, seeds)),
        settings=settings,
        table1_title=title,
        snli=text("snli_missing") if snli_missing and any(d == "snli" for _, d in cells) else "",
        claims=provenance.write(out, "claims", judged, judging, "hnn"),
        health="".join(f"{line}\n" for line in hnn_claims.health(finished, runs)),
        table1=shown.to_markdown(
            index=False,
            disable_numparse=True,  # the paper's digits as printed: 72.10
            colalign=["right" if c.endswith("(paper)") else "left" for c in shown.columns],
        ),
    )
    (out / "summary.md").write_text(summary + "\n")
    return sorted(out.iterdir())
