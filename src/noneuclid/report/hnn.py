"""Ganea et al.'s Table 1 (test accuracy at the best dev accuracy: of the seed with the best dev accuracy,
as the paper picks the best of its 3 runs, and mean +- s.d.),
a figure of dev accuracy during training on PREFIX-10, the per-cell check of the paper's comparisons,
run health (runs below 80 %, encoders saturated on the boundary), three ablations beyond the paper
(embedding init, the GRUs' and the RNNs' training budgets) and, for a float32 report, its comparison
with float64 (with same_weights.csv, when `python -m noneuclid.evaluate same-weights` wrote it),
redrawn from the per-run data (runs.csv, curves.csv.gz; report.run_table) and the run folders merged into it.

    python -m noneuclid.report hnn [--runs runs] [--profile cpu] [--seeds 0-2] [--out DIR] [overrides ...]
    (default: the seeds run; overrides such as trainer.dtype=float32 select the runs and need --out)
"""

from __future__ import annotations

import copy
import functools
import itertools
import math
import textwrap
from collections import Counter
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from noneuclid.claims import data as claims_data, engine, render  # noqa: E402
from noneuclid.config import compose, experiment_value, sweep_values  # noqa: E402
from noneuclid.data.files import DataError  # noqa: E402
from noneuclid.report import figures, prose, run_table, tables  # noqa: E402
from noneuclid.report.estimates import difference_interval, estimate, fisher_exact, mean_interval  # noqa: E402
from noneuclid.runs import RunDir  # noqa: E402

ROWS = {  # configs/variant/hnn/<name>.yaml -> label
    "euclidean_rnn": "fully Euclidean RNN", "hyperbolic_rnn_eucl_mlr": "hyperbolic RNN + FFNN, Eucl. MLR",
    "hyperbolic_rnn": "fully hyperbolic RNN", "euclidean_gru": "fully Euclidean GRU",
    "hyperbolic_gru_eucl_mlr": "hyperbolic GRU + FFNN, Eucl. MLR", "hyperbolic_gru": "fully hyperbolic GRU",
}
DATASETS = {"snli": "SNLI", "prefix10": "PREFIX-10%", "prefix30": "PREFIX-30%", "prefix50": "PREFIX-50%"}
PAPER = {  # Table 1 of the paper, test accuracy %, as printed there (72.10, not 72.1)
    "euclidean_rnn": ("79.34", "89.62", "81.71", "72.10"),
    "hyperbolic_rnn_eucl_mlr": ("79.18", "96.36", "87.83", "76.50"),
    "hyperbolic_rnn": ("78.21", "96.91", "87.25", "62.94"),
    "euclidean_gru": ("81.52", "95.96", "86.47", "75.04"),
    "hyperbolic_gru_eucl_mlr": ("79.76", "97.36", "88.47", "76.87"),
    "hyperbolic_gru": ("81.19", "97.14", "88.26", "76.44"),
}
TABLE1 = ("Table 1: test accuracy % at the best dev accuracy (test accuracy of the seed with the best dev accuracy; "
          "mean ± s.d. over n seeds)")


def run_name(profile, row, data, seed, overrides) -> str:
    """The run (folder) name of one Table 1 cell's seed (with `overrides`, e.g. trainer.dtype=float32)."""
    cfg = copy.deepcopy(_cell_config(profile, row, data, tuple(overrides)))
    cfg.seed = seed  # what the override seed=<seed> sets: composing once per cell, not per seed, saves 0.1 s each
    return RunDir(cfg).name


def run_folder(runs_dir, profile, row, data, seed, overrides) -> Path:
    """The run folder of one Table 1 cell's seed under runs_dir (`run_name`)."""
    return Path(runs_dir) / "hnn" / profile / run_name(profile, row, data, seed, overrides)


@functools.cache
def _cell_config(profile: str, row: str, data: str, overrides: tuple[str, ...]):
    return compose(["experiment=hnn/table1", f"profile={profile}", f"variant=hnn/{row}", f"data={data}", *overrides])


def _mean_sd(values) -> str:
    """'91.99 ± 6.38': mean ± standard deviation over seeds (0 for one seed)."""
    s = pd.Series(list(values), dtype=float)
    return f"{s.mean():.2f} ± {s.std(ddof=1) if len(s) > 1 else 0:.2f}"


def _snli_train_missing() -> bool:
    from noneuclid.data import snli
    cfg = compose(["experiment=hnn/table1", "data=snli"])
    try:
        next(snli._triples("train", Path(cfg.paths.data_dir) / "snli"))
    except (DataError, StopIteration):
        return True
    return False


def _selected(finished: pd.DataFrame) -> pd.Series:
    """The paper's pick among a cell's finished runs (rows of runs.csv): the run with the best dev
    accuracy, the lowest seed of those tied on it."""
    ordered = finished.sort_values("cfg.seed", kind="stable")
    return ordered.loc[ordered.best_dev_accuracy.idxmax()]


def table1(runs: run_table.Runs, profile: str, seeds, overrides=(), models=tuple(ROWS),
           datasets=tuple(DATASETS)) -> tuple[pd.DataFrame, dict]:
    """One row per model and dataset (of `models` and `datasets`, default all of Table 1's), the test
    accuracy % at best dev of the finished seeds: `selected`, of the seed with the best dev accuracy
    (`selected_seed`), their mean, s.d., s.e. and n, and the paper's number; and the run name of each
    (model, dataset, seed)."""
    names = {(row, data, seed): run_name(profile, row, data, seed, overrides)
             for row in models for data in DATASETS if data in datasets for seed in seeds}
    rows = [_table1_cell(runs.finished([names[(row, data, seed)] for seed in seeds]), ROWS[row], DATASETS[data],
                         float(paper))
            for row in models for data, paper in zip(DATASETS, PAPER[row]) if data in datasets]
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


def shown_table1(table: pd.DataFrame, snli_missing: bool) -> pd.DataFrame:
    """`table1` laid out as the paper's Table 1: one row per model, for each dataset ours as
    'selected (mean ± s.d., n=n)' (as TABLE1, its caption, says; s.d. 0 for one seed), 'not run' (with
    '(data missing)' for SNLI without its training split) beside the paper's number as printed."""
    rows = {}
    for r in table.itertuples(index=False):
        ours = (f"{r.selected:.2f} ({r.mean:.2f} ± {0 if r.n < 2 else r.sd:.2f}, n={r.n})" if r.n
                else "not run (data missing)" if r.dataset == DATASETS["snli"] and snli_missing else "not run")
        rows.setdefault(r.model, {"model": r.model}).update({f"{r.dataset} (ours)": ours,
                                                              f"{r.dataset} (paper)": f"{r.paper:.2f}"})
    return pd.DataFrame(list(rows.values()))


def table1_markdown(table: pd.DataFrame) -> str:
    """Table 1 as Markdown, its cells as written: the paper's numbers keep the digits it prints (tabulate
    would read '72.10' as the number 72.1), right-aligned."""
    align = ["right" if c.endswith("(paper)") else "left" for c in table.columns]
    return table.to_markdown(index=False, disable_numparse=True, colalign=align)


def variant(finished: pd.DataFrame, profile: str, overrides) -> str:
    """What tells a report's runs from those of the reports beside it (results/hnn/cpu, cpu-float32,
    cpu-shuffled, ...): 'cpu profile, float32, data.order=shuffled', the profile, the dtype of the
    finished runs and the report's other overrides."""
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
    ax.set_title(f"PREFIX-10%: dev accuracy (seed {seed})\n{textwrap.fill(title, 90)}", fontsize=9)
    if ax.lines:
        ax.legend(fontsize=7)
    else:  # say so, not an empty frame
        ax.text(0.5, 0.5, "no finished PREFIX-10 run with dev accuracy", transform=ax.transAxes, ha="center")
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
    return (f"Settings: {size or 'all'} training pairs, {budgets} "
            f"(the paper: 500000 pairs, 30 epochs, 3 seeds), evaluation every "
            f"{int(r['cfg.trainer.eval_every_steps'])} batches, {r['cfg.trainer.dtype']}. "
            f"NaN/inf events over the {len(finished)} finished runs: {int(finished.nonfinite_events.sum())}.")


CHANCE = 0.52  # below this, a balanced 2-class model has learnt nothing yet
SATURATED = 0.5  # share of sentence states within 1e-3 of the ball's boundary that marks an encoder stuck there
GEOMETRY_OF = {"euclidean": "Euclidean", "hyperbolic_eucl_mlr": "hyperbolic + Eucl. MLR", "hyperbolic": "fully hyperbolic"}


def _row(geometry: str, cell: str) -> str:
    """The ROWS key (configs/variant/hnn/<key>.yaml) of a run's model.geometry and model.cell."""
    return f"hyperbolic_{cell}_eucl_mlr" if geometry == "hyperbolic_eucl_mlr" else f"{geometry}_{cell}"


CLAIMS = claims_data.load("hnn")
ON_PAR_OR_BETTER, GAIN = "table1_hyperbolic_on_par_or_better", "prefix_gain_grows_with_tree_likeness"
DATA_OF = {"SNLI": "snli", "PREFIX-10": "prefix10", "PREFIX-30": "prefix30", "PREFIX-50": "prefix50"}


def verdicts(finished: pd.DataFrame, datasets=tuple(DATASETS)) -> list[engine.Verdict]:
    """Table 1's claims (claims/hnn.yaml) judged by the claims engine on our seeds, for the cells on
    `datasets` (an experiment's grid): per cell, the paper's better hyperbolic model against its
    Euclidean one (test accuracy % at best dev, Welch); the hyperbolic gain per seed (that model minus
    the Euclidean one of the same seed) of a PREFIX dataset against another's. A cell whose models
    all stayed at chance, or without runs, is not testable here; a gain cell also where one of its four
    models falls short of the paper's accuracy (the claim's `learned`)."""
    rows = []
    claim = CLAIMS[ON_PAR_OR_BETTER]
    for cell in claim.cells:
        data, kind = _cell_of(cell.name)
        if data not in datasets:
            continue
        arms = [_accuracies(finished, data, kind, g) for g in cell.arms]
        rows.append(_judged(claim, cell, arms, _untestable(finished, data, kind, cell)))
    claim = CLAIMS[GAIN]
    for cell in claim.cells:
        kind = cell.name.split(", ")[0].lower()
        if not set(cell.arms) <= set(datasets):
            continue
        arms = [_gains(finished, data, kind) for data in cell.arms]
        why = "; ".join(w for w in (_untestable(finished, data, kind) for data in cell.arms) if w)
        rows.append(_judged(claim, cell, arms, why, _models(finished, cell.arms, kind)))
    return rows


def _models(finished: pd.DataFrame, datasets, cell: str) -> dict[str, tuple[list[float], float]]:
    """The models a gain cell involves (on each dataset, its Table 1 cell's two arms) -> their test
    accuracies % per seed and the paper's: the claim's precondition `learned` (claims/hnn.yaml)."""
    models = {}
    for data in datasets:
        table1 = CLAIMS[ON_PAR_OR_BETTER].cell(f"{DATASETS[data].rstrip('%')}, {cell.upper()}")
        for geometry in table1.arms:
            models[f"{DATASETS[data]} {ROWS[_row(geometry, cell)]}"] = (
                _accuracies(finished, data, cell, geometry).tolist(), table1.paper[geometry])
    return models


def _cell_of(name: str) -> tuple[str, str]:
    """'PREFIX-10, RNN' -> ('prefix10', 'rnn')."""
    data, kind = name.split(", ")
    return DATA_OF[data], kind.lower()


def _accuracies(finished: pd.DataFrame, data: str, cell: str, geometry: str) -> pd.Series:
    """Test accuracy % at best dev per seed (indexed by seed) of one model on one dataset."""
    runs = finished[(finished["cfg.data.label"] == data) & (finished["cfg.model.cell"] == cell)
                    & (finished["cfg.model.geometry"] == geometry)] if len(finished) else finished
    if runs.empty:
        return pd.Series(dtype=float)
    return (100 * runs.set_index("cfg.seed").test_accuracy_at_best_dev).sort_index()


def _gains(finished: pd.DataFrame, data: str, cell: str) -> list[float]:
    """Per seed with both: the Table 1 cell's hyperbolic model minus its Euclidean model (points)."""
    hyperbolic = CLAIMS[ON_PAR_OR_BETTER].cell(f"{DATASETS[data].rstrip('%')}, {cell.upper()}").arms[0]
    gain = _accuracies(finished, data, cell, hyperbolic) - _accuracies(finished, data, cell, "euclidean")
    return gain.dropna().tolist()


def _untestable(finished: pd.DataFrame, data: str, cell: str, claim_cell=None) -> str:
    """Why a Table 1 cell cannot be tested here ('' where it can): no runs (SNLI: no training split),
    or every model of the cell at chance (the budget too small to leave it)."""
    accs = [_accuracies(finished, data, cell, g) for g in GEOMETRY_OF]
    if all(a.empty for a in accs):
        return (f"precondition not met: {claim_cell.precondition}" if claim_cell is not None and claim_cell.precondition
                else f"no finished runs of {DATASETS[data]} {cell.upper()}")
    if max(a.max() for a in accs if not a.empty) < 100 * CHANCE:
        return f"no model of {DATASETS[data]} {cell.upper()} left chance level at this training budget"
    return ""


def _judged(claim, cell, arms, reason: str, models=None) -> engine.Verdict:
    """engine.judge of the arms' per-seed values (and the models a gain involves), or not testable for
    `reason`."""
    if reason:
        return engine.untestable(claim, cell, reason, *map(len, arms))
    return engine.judge(claim, cell, *(list(a) for a in arms), models=models)


def _health(finished: pd.DataFrame, runs: run_table.Runs) -> list[str]:
    """PREFIX-10 models below 80 %, runs still at chance when training stopped (per dataset and
    model), and runs at chance whose encoders sit on the ball's boundary."""
    lines = []
    keys = ["cfg.data.label", "cfg.model.geometry", "cfg.model.cell"]
    totals = finished.groupby(keys).size()  # finished runs per dataset and model
    p10 = finished[finished["cfg.data.label"] == "prefix10"]
    if len(p10):
        low = p10[p10.test_accuracy_at_best_dev < 0.8]
        below = [f"{ROWS[_row(*key[1:])]}: {n} of {totals[key]}" for key, n in low.groupby(keys).size().items()]
        lines.append(f"PREFIX-10: {len(p10) - len(low)} of {len(p10)} finished runs reach 80 % test accuracy"
                     + (f"; seeds below 80 %: {', '.join(below)}." if below else "."))
    at_chance = finished[finished.final_test_accuracy < CHANCE].groupby(keys).size()
    if len(at_chance):
        lines.append(f"Still at chance when training stopped (final test accuracy below {100 * CHANCE:.0f} %): "
                     + ", ".join(f"{DATASETS[data]} {ROWS[_row(geometry, cell)]} {n} of {totals[(data, geometry, cell)]}"
                                 for (data, geometry, cell), n in at_chance.items()) + ".")
    stuck = []
    for name in finished.run:
        rows = [r for r in runs.metrics(name) if "test_boundary_share_s1" in r]
        if rows and rows[-1]["test_accuracy"] < CHANCE and max(rows[-1][f"test_boundary_share_s{k}"] for k in (1, 2)) > SATURATED:
            stuck.append(name)
    if stuck:
        lines.append(f"At chance with an encoder saturated (over {SATURATED:.0%} of its sentence states within 1e-3 of "
                     f"the boundary): {', '.join(stuck)}.")
    return lines


def escape_batches(metrics: list[dict], level: float) -> float:
    """The first evaluated batch at which dev accuracy reaches `level` in a run's metrics rows (inf if
    it never does)."""
    return next((r["step"] for r in metrics if r.get("dev_accuracy", -1) >= level), float("inf"))


def _boundary_shares(row: dict) -> str:
    """'75 % / 58 %': the share of each encoder's sentence states within 1e-3 of the ball's boundary
    in an evaluation row ('-' for Euclidean encoders, which have no boundary)."""
    if "test_boundary_share_s1" not in row:
        return "-"
    return " / ".join(f"{100 * row[f'test_boundary_share_s{k}']:.0f} %" for k in (1, 2))


def ablation(runs: run_table.Runs, profile: str, seeds, overrides, column: str, settings) -> pd.DataFrame | None:
    """A PREFIX-10 ablation table: for each (row, value, extra overrides) in `settings`, the finished
    runs of that model with those overrides: test accuracy at best dev (mean ± s.d. and best), per
    seed the batches until dev accuracy first reaches 60 % and 80 %, the final training loss and the
    share of sentence states on the boundary (an encoder whose states sit there passes no gradient).
    `column` names the setting; a setting's overrides replace the report's of the same key. Only
    models with finished runs of two settings or more are shown (a comparison); None while there is none."""
    rows = []
    for row, value, extra in settings:
        keys = {e.split("=", 1)[0] for e in extra}
        run_overrides = [*(o for o in overrides if o.split("=", 1)[0] not in keys), *extra]
        found = runs.finished([run_name(profile, row, "prefix10", seed, run_overrides) for seed in seeds])
        if found.empty:
            continue
        acc = 100 * found.test_accuracy_at_best_dev
        metrics = [runs.metrics(name) for name in found.run]
        last = [m[-1] for m in metrics]
        escape = [" / ".join("never" if e == float("inf") else str(int(e)) for e in (escape_batches(m, 0.6), escape_batches(m, 0.8)))
                  for m in metrics]
        rows.append({"model": ROWS[row], column: value,
                     "test accuracy % (mean ± s.d.)": _mean_sd(acc),
                     "best": round(acc.max(), 2),
                     "batches to 60 % / 80 % dev (per seed)": ", ".join(escape),
                     "final train loss (chance: ln 2 = 0.693)": ", ".join(f"{r['train_loss']:.3f}" for r in last),
                     "test states at the boundary, s1 / s2": ", ".join(_boundary_shares(r) for r in last),
                     "seeds": len(found)})
    settings_found = Counter(r["model"] for r in rows)
    table = pd.DataFrame([r for r in rows if settings_found[r["model"]] > 1])
    return table if len(table) else None


def ablation_epochs(experiment: str) -> int:
    """The epochs of an ablation experiment (ablation.epochs, which every profile keeps)."""
    return int(experiment_value(experiment, "ablation.epochs"))


def init_ablation(runs: run_table.Runs, profile: str, seeds, overrides=(), epochs: int | None = None) -> pd.DataFrame | None:
    """experiment=hnn/init: the PREFIX-10 GRUs with the paper's embedding init and x100, for `epochs`
    (experiment=hnn/init's by default; the x100 init saturates the hyperbolic GRU's encoders on the boundary)."""
    epochs = [f"trainer.epochs={epochs or ablation_epochs('hnn/init')}"]
    settings = [(row, f"x{scale:g}" + (" (paper)" if scale == 1 else ""), epochs + ([] if scale == 1 else [f"model.embedding_init_scale={scale}"]))
                for row in ("euclidean_gru", "hyperbolic_gru") for scale in (1.0, 100.0)]
    return ablation(runs, profile, seeds, overrides, "embedding init", settings)


def order_ablation(runs: run_table.Runs, profile: str, seeds, overrides=()) -> pd.DataFrame | None:
    """experiment=hnn/order: the six PREFIX-10 models with the authors' fixed batches of consecutive
    pairs (data.order=original, the default) and with the examples shuffled, at the profile's epochs
    (whatever data.order the report's overrides set)."""
    settings = [(row, order, [f"data.order={order}"]) for row in ROWS for order in ("original", "shuffled")]
    return ablation(runs, profile, seeds, overrides, "data order", settings)


def carry_gaps_ablation(runs: run_table.Runs, profile: str, seeds, overrides=()) -> pd.DataFrame | None:
    """experiment=hnn/carry_gaps: the PREFIX-10 hyperbolic GRUs trained with model.carry_gaps and
    without (Table 1's runs), at the profile's epochs, in the report's dtype (float32: its runs)."""
    settings = [(row.removeprefix("hnn/"), label, [f"model.carry_gaps={on}"])
                for row in sweep_values("hnn/carry_gaps", "variant")
                for label, on in (("off (Table 1)", "false"), ("on", "true"))]
    return ablation(runs, profile, seeds, overrides, "model.carry_gaps", settings)


def budget_ablation(runs: run_table.Runs, profile: str, seeds, overrides=(), experiment: str = "hnn/budget",
                    epochs: int | None = None) -> pd.DataFrame | None:
    """experiment=hnn/budget (the three PREFIX-10 GRUs for a third of the profile's epochs: how many
    batches the plateau costs), hnn/long (the RNNs for 1.5 times as many) or hnn/gru_long (the
    hyperbolic GRU + Eucl. MLR for five times as many, the paper's batches): the experiment's models
    at the profile's epochs (Table 1's runs) and at `epochs` (the experiment's by default)."""
    epochs = epochs or ablation_epochs(experiment)
    settings = [(row.removeprefix("hnn/"), label, extra) for row in sweep_values(experiment, "variant")
                for label, extra in (("profile (Table 1)", []), (f"{epochs} epochs", [f"trainer.epochs={epochs}"]))]
    return ablation(runs, profile, seeds, overrides, "budget", settings)


FLOAT32 = "trainer.dtype=float32"


def float64_overrides(overrides) -> list:
    """The overrides of a float32 report without the dtype: those of its float64 runs."""
    return [o for o in overrides if o != FLOAT32]


def _interval_verdict(low: float, high: float) -> str:
    """What a 95 % interval of float32 - float64 shows."""
    if math.isnan(low):
        return "not tested: fewer than 2 seeds in a dtype"
    if low > 0 or high < 0:
        return f"float32 {'higher' if low > 0 else 'lower'} (the interval excludes 0)"
    return "none the seeds can tell (the interval holds 0)"


def dtype_comparison(runs: run_table.Runs, profile: str, seeds, overrides, models=tuple(ROWS),
                     datasets=None) -> pd.DataFrame | None:
    """For a float32 report: per PREFIX dataset and model (of `models` and `datasets`, default all), the
    test accuracy over the seeds in float32 and in float64 (the same runs without
    trainer.dtype=float32), mean ± s.d., their difference and its combined standard error
    sqrt(se_32^2 + se_64^2) (the Euclidean models, with no Möbius arithmetic, show how large the seeds'
    spread is), its 95 % interval (Welch's: the differences the seeds leave possible) and what that
    interval shows: float32 lower or higher when it excludes 0, else no difference the seeds can tell;
    and how many runs of each reach 80 % (a run past the plateau: the paper's PREFIX-10 models reach
    89.6-97.4 %), with Fisher's exact p that the two shares are the same (a run's outcome is nearly
    bimodal, on the plateau or past it, so the share tests what the mean blurs)."""
    if FLOAT32 not in overrides:
        return None
    other = float64_overrides(overrides)
    datasets = datasets or [data for data in DATASETS if data.startswith("prefix")]
    rows = []
    for data, row in itertools.product(datasets, models):
        name, label = DATASETS[data], ROWS[row]
        acc = {}
        for dtype, ovr in (("float32", overrides), ("float64", other)):
            found = runs.finished([run_name(profile, row, data, s, ovr) for s in seeds])
            if len(found):
                acc[dtype] = 100 * found.test_accuracy_at_best_dev
        if len(acc) == 2:
            e32, e64 = estimate(acc["float32"]), estimate(acc["float64"])
            diff, se = e32.mean - e64.mean, math.hypot(e32.se, e64.se)
            low, high = difference_interval(e32, e64)
            rows.append({"dataset": name, "model": label,
                         **{k: f"{_mean_sd(a)} (n={len(a)})" for k, a in acc.items()},
                         "float32 - float64": round(diff, 2), "combined s.e.": round(se, 2),
                         "95 % interval": f"[{low:.2f}, {high:.2f}]", "difference": _interval_verdict(low, high),
                         **_past_plateau(acc)})
    return pd.DataFrame(rows) if rows else None


def seeds_run(found: pd.DataFrame) -> tuple[int, ...]:
    """Table 1's seeds that have runs in `found` (rows of runs.csv or of aggregate.runs; the smoke
    profile runs seed 0 only), else all of Table 1's (0, 1, 2)."""
    table1 = experiment_value("hnn/table1", "stack.seed")
    return tuple(s for s in table1 if s in {int(x) for x in found["cfg.seed"]}) if len(found) else tuple(table1)


def more_seeds(runs: run_table.Runs, profile: str, seeds, overrides) -> pd.DataFrame | None:
    """For a float32 report: float32 against float64 (`dtype_comparison`) with the report's seeds and
    experiment=hnn/seeds' more seeds, for that experiment's models and datasets; None when the report's
    seeds include them already or none of them has finished runs in both dtypes (the table would
    repeat the one above)."""
    extra = [s for s in experiment_value("hnn/seeds", "stack.seed") if s not in seeds]
    models = [v.removeprefix("hnn/") for v in sweep_values("hnn/seeds", "variant")]
    datasets = experiment_value("hnn/seeds", "stack.data")
    if not extra or dtype_comparison(runs, profile, extra, overrides, models, datasets) is None:
        return None
    return dtype_comparison(runs, profile, (*seeds, *extra), overrides, models, datasets)


def _past_plateau(acc: dict) -> dict:
    """The two columns of the runs past the plateau (test accuracy >= 80 %; the paper's PREFIX-10
    models reach 89.6-97.4 %) for acc = {"float32": [...], "float64": [...]} (%): how many of each, and
    Fisher's exact p that the two shares are the same."""
    passed = {k: int((a >= 80).sum()) for k, a in acc.items()}
    return {"runs >= 80 % (float32, float64)": ", ".join(f"{passed[k]} of {len(a)}" for k, a in acc.items()),
            "same share, Fisher's p": round(fisher_exact(passed["float32"], len(acc["float32"]),
                                                         passed["float64"], len(acc["float64"])), 3)}


def same_init(runs: run_table.Runs, profile: str, overrides) -> pd.DataFrame | None:
    """For a float32 report: experiment=hnn/same_init's float32 runs, which start from the initial
    weights of the float64 run of their seed, against those float64 runs, seed by seed (PREFIX-10):
    both means ± s.d., the mean of the seeds' differences float32 - float64 with its 95 % interval
    (Student's t over the differences) and what it shows, the seeds within 2 points, the seeds whose
    float32 run first reaches 60 % dev accuracy at the same evaluation as their float64 run (the two
    leave chance together), and the runs past 80 % with Fisher's p; None while no model has 2 pairs."""
    if FLOAT32 not in overrides:
        return None
    paired = [*overrides, f"trainer.init_dtype={experiment_value('hnn/same_init', 'trainer.init_dtype')}"]
    rows = []
    for row in (v.removeprefix("hnn/") for v in sweep_values("hnn/same_init", "variant")):
        pairs = [(f32, f64) for f32, f64 in ((run_name(profile, row, "prefix10", s, o)
                                             for o in (paired, float64_overrides(overrides)))
                                            for s in experiment_value("hnn/same_init", "stack.seed"))
                 if runs.is_done(f32) and runs.is_done(f64)]
        if len(pairs) < 2:
            continue
        acc = {dtype: 100 * runs.finished(names).test_accuracy_at_best_dev.to_numpy()
               for dtype, names in zip(("float32", "float64"), zip(*pairs))}
        diff = estimate(acc["float32"] - acc["float64"])
        low, high = mean_interval(diff)
        together = sum(len({escape_batches(runs.metrics(name), 0.6) for name in pair}) == 1
                       for pair in pairs)
        rows.append({"model": ROWS[row], **{k: f"{_mean_sd(a)} (n={len(a)})" for k, a in acc.items()},
                     "float32 - float64, paired": round(diff.mean, 2), "95 % interval": f"[{low:.2f}, {high:.2f}]",
                     "difference": _interval_verdict(low, high),
                     "seeds within 2 points": f"{int((abs(acc['float32'] - acc['float64']) <= 2).sum())} of {len(pairs)}",
                     "60 % dev at the same batch": f"{together} of {len(pairs)}",
                     **_past_plateau(acc)})
    return pd.DataFrame(rows) if rows else None


def ablation_tables(runs: run_table.Runs, profile: str, seeds, overrides) -> list[tuple]:
    """Every ablation as (file name, table, file title, summary heading); the table is None while it
    has no runs."""
    budget, long, gru_long, init = (ablation_epochs(f"hnn/{e}") for e in ("budget", "long", "gru_long", "init"))
    tables = [("init", init_ablation(runs, profile, seeds, overrides, init),
               "The plateau of the paper's embedding init (experiment=hnn/init)",
               f"the plateau of its embedding init (PREFIX-10, {init} epochs)"),
              ("budget", budget_ablation(runs, profile, seeds, overrides, "hnn/budget", budget),
               f"The PREFIX-10 GRUs for {budget} epochs (experiment=hnn/budget)",
               f"the GRUs with {budget} epochs (PREFIX-10, the paper's init)"),
              ("long", budget_ablation(runs, profile, seeds, overrides, "hnn/long", long),
               f"The PREFIX-10 RNNs for {long} epochs (experiment=hnn/long)",
               f"the RNNs with {long} epochs (PREFIX-10, the paper's settings)"),
              ("gru_long", budget_ablation(runs, profile, seeds, overrides, "hnn/gru_long", gru_long),
               f"The PREFIX-10 hyperbolic GRU + Eucl. MLR for {gru_long} epochs (experiment=hnn/gru_long)",
               f"the hyperbolic GRU + Eucl. MLR with {gru_long} epochs (PREFIX-10, the paper's settings)"),
              ("carry_gaps", carry_gaps_ablation(runs, profile, seeds, overrides),
               "The PREFIX-10 hyperbolic GRUs with the gates' gaps carried (experiment=hnn/carry_gaps)",
               "the hyperbolic GRUs trained with the gates' gaps carried (PREFIX-10, model.carry_gaps)"),
              ("order", order_ablation(runs, profile, seeds, overrides),
               "The PREFIX-10 models with the authors' batches and with shuffled examples (experiment=hnn/order)",
               "the authors' batches against shuffled examples (PREFIX-10, data.order)")]
    return tables


def _experiment(finished: pd.DataFrame) -> str:
    """The experiment that trained the finished runs when they share one (e.g. hnn/compensated), else
    hnn/table1."""
    names = set(finished.get("cfg.experiment_name", pd.Series(dtype=object)).dropna())
    return names.pop() if len(names) == 1 else "hnn/table1"


def _grid(experiment: str) -> tuple[list[str], list[str]]:
    """The models (ROWS keys) and datasets an experiment trains (its variant sweep and stack.data)."""
    return ([v.removeprefix("hnn/") for v in sweep_values(experiment, "variant")],
            experiment_value(experiment, "stack.data"))


def _finished_counts(runs: run_table.Runs, names: dict) -> str:
    """'54 of 54 PREFIX runs and 0 of 18 SNLI runs': of the report's runs (`names` as `table1` gives
    them), of the kinds it has."""
    parts = []
    for kind in ("PREFIX", "SNLI"):
        keys = [k for k in names if (k[1] == "snli") == (kind == "SNLI")]
        if keys:
            parts.append(f"{sum(runs.is_done(names[k]) for k in keys)} of {len(keys)} {kind} runs")
    return " and ".join(parts)


def _write_extra_tables(out: Path, runs: run_table.Runs, profile: str, seeds, overrides) -> tuple:
    """Write seeds.csv and same_init.csv (`more_seeds`, `same_init`) and each ablation's CSV and
    Markdown into `out`, removing an earlier report's files of those whose runs are not found now;
    return the seeds and same_init tables (None without runs) and the ablations with runs, as
    (name, table, title, heading)."""
    seeds_table, init_table = more_seeds(runs, profile, seeds, overrides), same_init(runs, profile, overrides)
    for name, extra_table in (("seeds", seeds_table), ("same_init", init_table)):
        if extra_table is not None:
            extra_table.to_csv(out / f"{name}.csv", index=False)
        else:
            (out / f"{name}.csv").unlink(missing_ok=True)  # an earlier report's, of runs not found now
    extra_tables = []
    for name, extra_table, title, heading in ablation_tables(runs, profile, seeds, overrides):
        if extra_table is None:  # an earlier report's files, of runs not found now
            for ext in ("csv", "md", "tex"):
                (out / f"{name}.{ext}").unlink(missing_ok=True)
            continue
        extra_tables.append((name, extra_table, title, heading))
        tables.write(out, name, extra_table, extra_table.astype(object).fillna("-"), title,
                     f"Beyond the paper: {heading}. Made by `python -m noneuclid.report hnn --profile {profile}`.")
    return seeds_table, init_table, extra_tables


def make(runs_dir: Path, profile: str, out: Path, seeds=None, overrides=()) -> list[Path]:
    """From the per-run data in `out` (runs.csv, curves.csv.gz), after merging into it the ended runs
    under runs_dir/hnn/<profile>: write table1 (CSV, Markdown, LaTeX), fig_prefix10_dev (PNG + PDF),
    init, budget, long, gru_long, carry_gaps and order (once their ablations have runs) and summary.md
    (`_summary`). Runs of one smaller experiment (e.g. hnn/compensated) get a table of its models and
    datasets only."""
    runs = run_table.Runs(*run_table.load(runs_dir, "hnn", profile, out))
    seeds = seeds or seeds_run(runs.table)
    table, names = table1(runs, profile, seeds, overrides)
    if runs.finished(names.values()).empty:
        raise FileNotFoundError(f"no finished hnn runs in {out}/runs.csv nor under {runs_dir}/hnn/{profile}: run "
                                f"`python -m noneuclid.train -m experiment=hnn/table1 profile={profile}` first")
    experiment = _experiment(runs.finished(names.values()))
    if experiment != "hnn/table1":  # runs of a smaller experiment: its models and datasets only
        table, names = table1(runs, profile, seeds, overrides, *_grid(experiment))
    finished = runs.finished(sorted(names.values()))
    shown = shown_table1(table, _snli_train_missing())
    tables.write(out, "table1", table, shown, f"Ganea et al., {TABLE1}", _settings(finished))
    figure(runs, names, out / "fig_prefix10_dev", seeds[0], variant(finished, profile, overrides))
    head = _summary_head(runs, names, finished, out, profile, seeds, overrides, experiment)
    (out / "summary.md").write_text("\n".join([
        *head, f"## {TABLE1}", "", table1_markdown(shown), "", "![dev accuracy on PREFIX-10](fig_prefix10_dev.png)",
        "", *_summary_more(runs, out, profile, seeds, overrides)]))
    return sorted(out.iterdir())


def _summary_head(runs: run_table.Runs, names: dict, finished: pd.DataFrame, out: Path, profile: str, seeds,
                  overrides, experiment: str) -> list[str]:
    """summary.md up to Table 1: the commands, the runs found, the settings, the claims (written to
    claims.csv, .md and .tex) and the health lines."""
    extra = "".join(f" {o}" for o in overrides)
    stack_seeds = (f" 'stack.seed=[{','.join(map(str, seeds))}]'"
                   if list(seeds) != list(experiment_value(experiment, "stack.seed")) else "")
    seeds_option = (f" --seeds {','.join(map(str, seeds))}"
                    if list(seeds) != list(experiment_value("hnn/table1", "stack.seed")) else "")
    snli = any(k[1] == "snli" for k in names)
    return [
        f"# Ganea et al., Hyperbolic Neural Networks: our runs ({profile} profile{',' + extra if extra else ''})", "",
        f"Made by `python -m noneuclid.train -m experiment={experiment} profile={profile}{stack_seeds}{extra}` and "
        f"`python -m noneuclid.report hnn --profile {profile}{seeds_option}{' --out ' + str(out) if extra else ''}{extra}`; "
        f"{_finished_counts(runs, names)} finished "
        f"(seeds {', '.join(map(str, seeds))})"
        f"{'; SNLI: not run (no training split here)' if snli and _snli_train_missing() else ''}.", "",
        _settings(finished), "", "## The paper's claims (claims/hnn.yaml, judged by the claims engine)", "",
        tables.write_claims(out, "claims", verdicts(finished, {k[1] for k in names})), "", *_health(finished, runs), ""]


def _summary_more(runs: run_table.Runs, out: Path, profile: str, seeds, overrides) -> list[str]:
    """summary.md after Table 1: a float32 report's comparisons with float64 (`dtype_comparison`, seeds.csv
    over experiment=hnn/seeds' seeds, same_init.csv over experiment=hnn/same_init's pairs of seeds started
    from the same weights, the table of same_weights.csv where `python -m noneuclid.evaluate same-weights`
    wrote it into `out`) and the ablations (written by `_write_extra_tables`)."""
    comparison = dtype_comparison(runs, profile, seeds, overrides)
    same = pd.read_csv(out / "same_weights.csv") if comparison is not None and (out / "same_weights.csv").is_file() else None
    seeds_table, init_table, extra_tables = _write_extra_tables(out, runs, profile, seeds, overrides)
    return [
        *([] if comparison is None else ["## float32 against float64 (test accuracy % at best dev, "
                                         "mean ± s.d. over seeds)", "", comparison.to_markdown(index=False), ""]),
        *([] if seeds_table is None else ["## float32 against float64 with more seeds (experiment=hnn/seeds: seeds "
                                          f"{', '.join(map(str, experiment_value('hnn/seeds', 'stack.seed')))} beside Table 1's; "
                                          "the Euclidean models, exact in float32, are the control)", "",
                                          seeds_table.to_markdown(index=False), ""]),
        *([] if init_table is None else ["## float32 from the initial weights of the float64 run of each seed "
                                         "(experiment=hnn/same_init), seed by seed", "", prose.fill("hnn", "same_init"), "",
                                         init_table.to_markdown(index=False), ""]),
        *([] if same is None else ["## The same weights in both dtypes: the PREFIX-10 models trained in each "
                                   "dtype (final epoch), evaluated in both", "", prose.fill("hnn", "same_weights"), "", same.to_markdown(index=False), ""]),
        *(line for _, extra_table, _, heading in extra_tables
          for line in (f"## Beyond the paper: {heading}", "", extra_table.to_markdown(index=False), ""))]
