"""Ganea et al.'s Table 1 (test accuracy at the best dev accuracy: of the seed with the best dev accuracy,
as the paper picks the best of its runs, and mean +- s.d.), a figure of dev accuracy during training on
PREFIX-10, the claims and run health (report.hnn_claims), the ablations and a float32 report's
comparisons with float64 (report.hnn_ablations; same_weights.csv where `python -m noneuclid.evaluate
same-weights` wrote it), redrawn from the per-run data (runs.csv, curves.csv.gz; report.run_table) and
the run folders merged into it; the prose is templates/hnn.md's.

    python -m noneuclid.report hnn [--runs runs] [--profile cpu] [--seeds 0-2] [--out DIR] [overrides ...]
    (default: the seeds run; overrides such as trainer.dtype=float32 select the runs and need --out)
"""

from __future__ import annotations

import math
import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from noneuclid.config import compose, experiment_value, sweep_values  # noqa: E402
from noneuclid.data.files import DataError  # noqa: E402
from noneuclid.report import figures, hnn_ablations, hnn_claims, prose, run_table, tables  # noqa: E402
from noneuclid.report.hnn_claims import DATASETS, ROWS, paper_accuracy  # noqa: E402
from noneuclid.runs.lookup import table1_run_name as run_name, table1_seeds  # noqa: E402


def _snli_train_missing() -> bool:
    from noneuclid.data import snli
    cfg = compose(["experiment=hnn/table1", "data=snli"])
    try:
        next(snli._triples("train", Path(cfg.paths.data_dir) / "snli"))
    except (DataError, StopIteration):
        return True
    return False


def table1(runs: run_table.Runs, profile: str, seeds, overrides=(), models=tuple(ROWS),
           datasets=tuple(DATASETS)) -> tuple[pd.DataFrame, dict]:
    """One row per model and dataset (of `models` and `datasets`, default all of Table 1's), the test
    accuracy % at best dev of the finished seeds: `selected`, of the seed with the best dev accuracy
    (`selected_seed`; the lowest seed of those tied on it), their mean, s.d., s.e. and n, and the paper's
    number; and the run name of each (model, dataset, seed)."""
    names = {(row, data, seed): run_name(profile, row, data, seed, overrides)
             for row in models for data in DATASETS if data in datasets for seed in seeds}
    rows = [_table1_cell(runs.finished([names[(row, data, seed)] for seed in seeds]), ROWS[row], DATASETS[data],
                         paper_accuracy(row, data))
            for row in models for data in DATASETS if data in datasets]
    return pd.DataFrame(rows), names


def _table1_cell(finished: pd.DataFrame, model: str, dataset: str, paper: float) -> dict:
    """One row of `table1` from the finished runs of its cell (NaN and n = 0 without any)."""
    acc = 100 * finished.test_accuracy_at_best_dev.astype(float) if len(finished) else pd.Series(dtype=float)
    best = _selected(finished) if len(finished) else None
    sd = acc.std(ddof=1) if len(acc) > 1 else math.nan
    return {"model": model, "dataset": dataset,
            "selected": math.nan if best is None else 100 * best.test_accuracy_at_best_dev,
            "selected_seed": math.nan if best is None else int(best["cfg.seed"]),
            "mean": acc.mean(), "sd": sd, "se": sd / math.sqrt(len(acc)) if len(acc) > 1 else math.nan,
            "n": len(acc), "paper": paper}


def _selected(finished: pd.DataFrame) -> pd.Series:
    """The paper's pick among a cell's finished runs: the run with the best dev accuracy, the lowest
    seed of those tied on it."""
    ordered = finished.sort_values("cfg.seed", kind="stable")
    return ordered.loc[ordered.best_dev_accuracy.idxmax()]


def shown_table1(table: pd.DataFrame, snli_missing: bool) -> pd.DataFrame:
    """`table1` laid out as the paper's Table 1: one row per model, for each dataset ours as
    'selected (mean ± s.d., n=n)' (s.d. 0 for one seed), 'not run' (with '(data missing)' for SNLI
    without its training split) beside the paper's number as printed there (2 decimals)."""
    rows = {}
    for r in table.itertuples(index=False):
        ours = (f"{r.selected:.2f} ({r.mean:.2f} ± {0 if r.n < 2 else r.sd:.2f}, n={r.n})" if r.n
                else "not run (data missing)" if r.dataset == DATASETS["snli"] and snli_missing else "not run")
        rows.setdefault(r.model, {"model": r.model}).update({f"{r.dataset} (ours)": ours,
                                                              f"{r.dataset} (paper)": f"{r.paper:.2f}"})
    return pd.DataFrame(list(rows.values()))


def variant(finished: pd.DataFrame, profile: str, overrides) -> str:
    """What tells a report's runs from those of the reports beside it (results/hnn/cpu, cpu-float32, ...):
    'cpu profile, float32, data.order=shuffled', the profile, the finished runs' dtype and the report's
    other overrides."""
    dtypes = sorted(set(finished["cfg.trainer.dtype"]))
    return ", ".join([f"{profile} profile", *dtypes, *(o for o in overrides if not o.startswith("trainer.dtype="))])


def figure(runs: run_table.Runs, names: dict, out: Path, seed: int, title: str) -> None:
    """Dev accuracy during training of the PREFIX-10 runs of `seed` (`names` as `table1` gives them), one
    line per model (a note where none has finished), with `title` (the report's `variant`) in the title."""
    fig, ax = plt.subplots(figsize=(6, 4))
    for row, label in ROWS.items():
        c = runs.curve(names.get((row, "prefix10", seed), ""))
        c = c[c.dev_accuracy.notna()].drop_duplicates("step", keep="last") if "dev_accuracy" in c else c.iloc[0:0]
        if not c.empty:
            ax.plot(c.step, 100 * c.dev_accuracy, label=label, ls="-" if "gru" in row else "--")
    ax.set(xlabel="training batches", ylabel="dev accuracy %")
    ax.set_title(f"{prose.fill('hnn', 'figure_title', seed=seed)}\n{textwrap.fill(title, 90)}", fontsize=9)
    if ax.lines:
        ax.legend(fontsize=7)
    else:  # say so, not an empty frame
        ax.text(0.5, 0.5, prose.fill("hnn", "figure_empty"), transform=ax.transAxes, ha="center")
    fig.tight_layout()
    figures.save(fig, out)


def _settings(finished: pd.DataFrame) -> str:
    """The settings the profile reduces (those of the PREFIX runs, when there are any: SNLI's
    train_size null means all its pairs), and the NaN/inf events counted over the finished runs."""
    prefix = finished[finished["cfg.data.label"] != "snli"]
    r = (prefix if len(prefix) else finished).iloc[0]
    size = r["cfg.data.train_size"]
    size = int(size) if size == size else None  # NaN: all pairs
    batch = int(r["cfg.data.batch_size"])
    epochs = finished.groupby("cfg.model.cell")["cfg.trainer.epochs"].max().astype(int)  # cell -> epochs

    def budget(e: int) -> str:
        return f"{e} epochs ({e * -(-size // batch)} batches of {batch})" if size else f"{e} epochs (batches of {batch})"
    budgets = (budget(epochs.iloc[0]) if epochs.nunique() == 1
               else ", ".join(f"the {cell.upper()}s {budget(e)}" for cell, e in epochs.items()))  # the cpu profile
    return prose.fill("hnn", "settings", pairs=size or "all", budgets=budgets,
                      eval_every=int(r["cfg.trainer.eval_every_steps"]), dtype=r["cfg.trainer.dtype"],
                      runs=len(finished), events=int(finished.nonfinite_events.sum()))


def _experiment(finished: pd.DataFrame) -> str:
    """The experiment that trained the finished runs when they share one (e.g. hnn/compensated), else
    hnn/table1."""
    names = set(finished.get("cfg.experiment_name", pd.Series(dtype=object)).dropna())
    return names.pop() if len(names) == 1 else "hnn/table1"


def _finished_counts(runs: run_table.Runs, names: dict) -> str:
    """'54 of 54 PREFIX runs and 0 of 18 SNLI runs': of the report's runs (`names` as `table1` gives
    them), of the kinds it has."""
    kinds = {kind: [name for (_, data, _), name in names.items() if (data == "snli") == (kind == "SNLI")]
             for kind in ("PREFIX", "SNLI")}
    return " and ".join(f"{sum(map(runs.is_done, found))} of {len(found)} {kind} runs" for kind, found in kinds.items() if found)


def make(runs_dir: Path, profile: str, out: Path, seeds=None, overrides=()) -> list[Path]:
    """From the per-run data in `out` (runs.csv, curves.csv.gz), after merging into it the ended runs
    under runs_dir/hnn/<profile>: write table1 (CSV, Markdown, LaTeX), claims, fig_prefix10_dev (PNG +
    PDF), the ablations' tables once they have runs, and summary.md. Runs of one smaller experiment (e.g.
    hnn/compensated) get a table of its models and datasets only."""
    runs = run_table.Runs(*run_table.load(runs_dir, "hnn", profile, out))
    seeds = seeds or table1_seeds(runs.table)
    table, names = table1(runs, profile, seeds, overrides)
    if runs.finished(names.values()).empty:
        raise FileNotFoundError(f"no finished hnn runs in {out}/runs.csv nor under {runs_dir}/hnn/{profile}: run "
                                f"`python -m noneuclid.train -m experiment=hnn/table1 profile={profile}` first")
    experiment = _experiment(runs.finished(names.values()))
    if experiment != "hnn/table1":  # runs of a smaller experiment: its models and datasets only
        grid = [v.removeprefix("hnn/") for v in sweep_values(experiment, "variant")], experiment_value(experiment, "stack.data")
        table, names = table1(runs, profile, seeds, overrides, *grid)
    finished = runs.finished(sorted(names.values()))
    snli_missing = _snli_train_missing()
    shown, title = shown_table1(table, snli_missing), prose.fill("hnn", "table1_title")
    tables.write(out, "table1", table, shown, f"Ganea et al., {title}", _settings(finished))
    figure(runs, names, out / "fig_prefix10_dev", seeds[0], variant(finished, profile, overrides))
    extra = "".join(f" {o}" for o in overrides)
    summary = prose.fill(
        "hnn", "summary", profile=profile, title_overrides="," + extra if extra else "", experiment=experiment,
        stack_seeds=(f" 'stack.seed=[{','.join(map(str, seeds))}]'"
                     if list(seeds) != list(experiment_value(experiment, "stack.seed")) else ""),
        overrides=extra, out_option=" --out " + str(out) if extra else "",
        seeds_option=(f" --seeds {','.join(map(str, seeds))}"
                      if list(seeds) != list(experiment_value("hnn/table1", "stack.seed")) else ""),
        counts=_finished_counts(runs, names), seeds=", ".join(map(str, seeds)),
        snli=prose.fill("hnn", "snli_missing") if snli_missing and any(k[1] == "snli" for k in names) else "",
        settings=_settings(finished), table1_title=title,
        claims=tables.write_claims(out, "claims", hnn_claims.verdicts(finished, {k[1] for k in names})),
        health="".join(f"{line}\n" for line in hnn_claims.health(finished, runs)),
        table1=shown.to_markdown(index=False, disable_numparse=True,  # the paper's digits as printed: 72.10
                                 colalign=["right" if c.endswith("(paper)") else "left" for c in shown.columns]))
    (out / "summary.md").write_text("\n".join([summary, "", *_summary_more(runs, out, profile, seeds, overrides)]))
    return sorted(out.iterdir())


def _summary_more(runs: run_table.Runs, out: Path, profile: str, seeds, overrides) -> list[str]:
    """summary.md after Table 1: a float32 report's comparisons with float64 (Table 1's seeds; seeds.csv
    with experiment=hnn/seeds' more; same_init.csv of the pairs started from the same weights; the table
    of same_weights.csv where `python -m noneuclid.evaluate same-weights` wrote it into `out`) and the
    ablations with runs, each table's CSV written (the ablations' Markdown and LaTeX too), an earlier
    report's files of tables whose runs are not found now removed."""
    comparison = hnn_ablations.dtype_comparison(runs, profile, seeds, overrides)
    same = out / "same_weights.csv"
    blocks = [(prose.fill("hnn", "dtype"), comparison),
              (prose.fill("hnn", "more_seeds", seeds=", ".join(map(str, experiment_value("hnn/seeds", "stack.seed")))),
               _csv(out, "seeds", hnn_ablations.more_seeds(runs, profile, seeds, overrides))),
              (prose.fill("hnn", "same_init"), _csv(out, "same_init", hnn_ablations.same_init(runs, profile, overrides))),
              (prose.fill("hnn", "same_weights"), pd.read_csv(same) if comparison is not None and same.is_file() else None)]
    for name, table, title, heading in hnn_ablations.ablations(runs, profile, seeds, overrides):
        for ext in ("csv", "md", "tex"):  # an earlier report's, of runs not found now
            (out / f"{name}.{ext}").unlink(missing_ok=True)
        if table is not None:
            tables.write(out, name, table, table.astype(object).fillna("-"), title,
                         prose.fill("hnn", "ablation_caption", heading=heading, profile=profile))
            blocks.append((prose.fill("hnn", "ablation_heading", heading=heading), table))
    return [line for text, table in blocks if table is not None for line in (text, "", table.to_markdown(index=False), "")]


def _csv(out: Path, name: str, table: pd.DataFrame | None) -> pd.DataFrame | None:
    """`table` written to out/<name>.csv (an earlier report's removed where it is None); returns it."""
    if table is None:
        (out / f"{name}.csv").unlink(missing_ok=True)
    else:
        table.to_csv(out / f"{name}.csv", index=False)
    return table
