"""Beyond Ganea et al.'s Table 1, on PREFIX-10: the ablations (experiment=hnn/<name>'s models under each
of its settings in ABLATIONS) and, for a float32 report, float32 against float64 (Table 1's seeds,
experiment=hnn/seeds' more seeds, experiment=hnn/same_init's pairs started from the same weights)."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import pandas as pd

from noneuclid.config import experiment_value
from noneuclid.report import run_table
from noneuclid.report.estimates import difference_interval, estimate, fisher_exact, mean_interval, plus_minus
from noneuclid.report.hnn_claims import DATASETS, ROWS, variants
from noneuclid.runs.lookup import FLOAT32, float64_overrides, table1_run_name as run_name

BUDGET = (("profile (Table 1)", ()), ("{epochs} epochs", ("trainer.epochs={epochs}",)))
# name -> (the column naming a setting, the settings as (label, overrides)); each of experiment=hnn/<name>'s
# models (its variant sweep) runs under each setting, {epochs} its ablation.epochs; the titles and summary
# headings are the sections <name>_title and <name>_heading of templates/hnn.md
ABLATIONS = {
    "init": ("embedding init", (("x1 (paper)", ("trainer.epochs={epochs}",)),
                                ("x100", ("trainer.epochs={epochs}", "model.embedding_init_scale=100.0")))),
    "budget": ("budget", BUDGET), "long": ("budget", BUDGET), "gru_long": ("budget", BUDGET),
    "carry_gaps": ("model.carry_gaps", (("off (Table 1)", ("model.carry_gaps=false",)),
                                        ("on", ("model.carry_gaps=true",)))),
    "order": ("data order", (("original", ("data.order=original",)), ("shuffled", ("data.order=shuffled",)))),
}


def ablation(runs: run_table.Runs, profile: str, seeds, overrides, name: str, epochs: int | None = None
             ) -> pd.DataFrame | None:
    """experiment=hnn/<name>'s table (`epochs` in place of its ablation.epochs): per model and setting (its
    overrides replace the report's of the same key) the outcome of its finished PREFIX-10 runs (`_outcome`);
    only models with runs of two settings or more; None while there is none."""
    column, settings = ABLATIONS[name]
    epochs = epochs or experiment_value(f"hnn/{name}", "ablation.epochs")
    rows = []
    for row, (label, extra) in itertools.product(variants(f"hnn/{name}"), settings):
        extra = [e.format(epochs=epochs) for e in extra]
        keys = {e.split("=", 1)[0] for e in extra}
        run_overrides = [*(o for o in overrides if o.split("=", 1)[0] not in keys), *extra]
        found = runs.finished([run_name(profile, row, "prefix10", seed, run_overrides) for seed in seeds])
        if len(found):
            rows.append({"model": ROWS[row], column: label.format(epochs=epochs), **_outcome(runs, found)})
    settings_found = Counter(r["model"] for r in rows)
    table = pd.DataFrame([r for r in rows if settings_found[r["model"]] > 1])
    return table if len(table) else None


def _outcome(runs: run_table.Runs, found: pd.DataFrame) -> dict:
    """Test accuracy at best dev (mean ± s.d., best), per seed the batches until dev accuracy first reaches
    60 % and 80 %, the final training loss and the share of sentence states on the boundary (where an
    encoder passes no gradient), of the finished runs of one model and setting."""
    acc = 100 * found.test_accuracy_at_best_dev
    metrics = [runs.metrics(name) for name in found.run]
    last = [m[-1] for m in metrics]
    escape = [" / ".join("never" if e == math.inf else str(int(e)) for e in (escape_batches(m, 0.6), escape_batches(m, 0.8)))
              for m in metrics]
    return {"test accuracy % (mean ± s.d.)": mean_sd(acc), "best": round(acc.max(), 2),
            "batches to 60 % / 80 % dev (per seed)": ", ".join(escape),
            "final train loss (chance: ln 2 = 0.693)": ", ".join(f"{r['train_loss']:.3f}" for r in last),
            "test states at the boundary, s1 / s2": ", ".join(_boundary_shares(r) for r in last),
            "seeds": len(found)}


def escape_batches(metrics: list[dict], level: float) -> float:
    """The first evaluated batch at which dev accuracy reaches `level` in a run's metrics (inf: never)."""
    return next((r["step"] for r in metrics if r.get("dev_accuracy", -1) >= level), math.inf)


def _boundary_shares(row: dict) -> str:
    """'75 % / 58 %': the share of each encoder's sentence states within 1e-3 of the ball's boundary in an
    evaluation row ('-' for Euclidean encoders)."""
    if "test_boundary_share_s1" not in row:
        return "-"
    return " / ".join(f"{100 * row[f'test_boundary_share_s{k}']:.0f} %" for k in (1, 2))


def _interval_verdict(low: float, high: float) -> str:
    """What a 95 % interval of float32 - float64 shows."""
    if math.isnan(low):
        return "not tested: fewer than 2 seeds in a dtype"
    if low > 0 or high < 0:
        return f"float32 {'higher' if low > 0 else 'lower'} (the interval excludes 0)"
    return "none the seeds can tell (the interval holds 0)"


def dtype_comparison(runs: run_table.Runs, profile: str, seeds, overrides, models=tuple(ROWS),
                     datasets=None) -> pd.DataFrame | None:
    """For a float32 report: per PREFIX dataset and model (default all), test accuracy in float32 and in
    float64 (the same runs without trainer.dtype=float32), their difference with its combined s.e.
    sqrt(se_32^2 + se_64^2) and Welch's 95 % interval, and the runs past the plateau."""
    if FLOAT32 not in overrides:
        return None
    rows = []
    for data, row in itertools.product(datasets or [d for d in DATASETS if d.startswith("prefix")], models):
        acc = {dtype: 100 * found.test_accuracy_at_best_dev
               for dtype, ovr in (("float32", overrides), ("float64", float64_overrides(overrides)))
               if len(found := runs.finished([run_name(profile, row, data, s, ovr) for s in seeds]))}
        if len(acc) == 2:
            e32, e64 = estimate(acc["float32"]), estimate(acc["float64"])
            low, high = difference_interval(e32, e64)
            rows.append({"dataset": DATASETS[data], "model": ROWS[row], **_by_dtype(acc),
                         "float32 - float64": round(e32.mean - e64.mean, 2),
                         "combined s.e.": round(math.hypot(e32.se, e64.se), 2),
                         "95 % interval": f"[{low:.2f}, {high:.2f}]", "difference": _interval_verdict(low, high),
                         **_past_plateau(acc)})
    return pd.DataFrame(rows) if rows else None


def more_seeds(runs: run_table.Runs, profile: str, seeds, overrides) -> pd.DataFrame | None:
    """`dtype_comparison` with the report's seeds and experiment=hnn/seeds' more, for its models and
    datasets; None where the report has those seeds or they have no runs in both dtypes (a repeat)."""
    extra = [s for s in experiment_value("hnn/seeds", "stack.seed") if s not in seeds]
    models = variants("hnn/seeds")
    datasets = experiment_value("hnn/seeds", "stack.data")
    if not extra or dtype_comparison(runs, profile, extra, overrides, models, datasets) is None:
        return None
    return dtype_comparison(runs, profile, (*seeds, *extra), overrides, models, datasets)


def same_init(runs: run_table.Runs, profile: str, overrides) -> pd.DataFrame | None:
    """For a float32 report: experiment=hnn/same_init's float32 runs (from the initial weights of the float64
    run of their seed) against those float64 runs, seed by seed: the mean difference with its 95 % interval
    (Student's t), the seeds within 2 points, those that reach 60 % dev at the same evaluation in both
    dtypes, and the runs past the plateau; None while no model has 2 pairs."""
    if FLOAT32 not in overrides:
        return None
    paired = [*overrides, f"trainer.init_dtype={experiment_value('hnn/same_init', 'trainer.init_dtype')}"]
    rows = []
    for row in variants("hnn/same_init"):
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
        together = sum(len({escape_batches(runs.metrics(name), 0.6) for name in pair}) == 1 for pair in pairs)
        rows.append({"model": ROWS[row], **_by_dtype(acc), "float32 - float64, paired": round(diff.mean, 2),
                     "95 % interval": f"[{low:.2f}, {high:.2f}]", "difference": _interval_verdict(low, high),
                     "seeds within 2 points": f"{int((abs(acc['float32'] - acc['float64']) <= 2).sum())} of {len(pairs)}",
                     "60 % dev at the same batch": f"{together} of {len(pairs)}", **_past_plateau(acc)})
    return pd.DataFrame(rows) if rows else None


def mean_sd(values) -> str:
    """'91.99 ± 6.38': mean ± standard deviation over seeds (0 for one seed)."""
    s = pd.Series(list(values), dtype=float)
    return plus_minus(s.mean(), s.std(ddof=1) if len(s) > 1 else 0)


def _by_dtype(acc: dict) -> dict:
    """{'float32': '91.99 ± 6.38 (n=3)', 'float64': ...} for acc = {dtype: accuracies %}."""
    return {k: f"{mean_sd(a)} (n={len(a)})" for k, a in acc.items()}


def _past_plateau(acc: dict) -> dict:
    """The runs past the plateau (test accuracy >= 80 %, under every PREFIX-10 model of the paper's Table 1:
    the outcome is nearly bimodal, so the share tests what the mean blurs) in each dtype of acc (%), and
    Fisher's exact p that the two shares are the same."""
    passed = {k: int((a >= 80).sum()) for k, a in acc.items()}
    return {"runs >= 80 % (float32, float64)": ", ".join(f"{passed[k]} of {len(a)}" for k, a in acc.items()),
            "same share, Fisher's p": round(fisher_exact(passed["float32"], len(acc["float32"]),
                                                         passed["float64"], len(acc["float64"])), 3)}
