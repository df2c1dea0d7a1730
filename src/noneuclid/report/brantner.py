"""Brantner's Fig. 3a/3b, Table 2, the test accuracies and the section experiment (random against
householder section), redrawn from the per-run data; the authors' own networks and curves
(GeometricMachineLearning.jl, <data>/reference/brantner_gml) beside ours.

    python -m noneuclid.report brantner [--runs runs] [--profile cpu] [--out results/brantner/<profile>]
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from noneuclid.claims import data as claims_data, engine, render  # noqa: E402
from noneuclid.config import compose  # noqa: E402
from noneuclid.report import brantner_drift, brantner_timing, figures, run_table, tables as report_tables  # noqa: E402
from noneuclid.report.estimates import estimate  # noqa: E402
from noneuclid.runs import RunDir  # noqa: E402

# The four runs of the paper (configs/variant/brantner/<name>.yaml) -> label, the paper's Table 2
# (gpu_min, cpu_min: minutes for 500 epochs) and the authors' run, their GeometricMachineLearning.jl
# documentation run of 500 epochs, not in the paper (authors_acc: test accuracy %, authors_loss: final
# training loss; both listed with their sources in docs/brantner.md, "Values taken from the paper");
# gml = k of the authors' files mnist_nn<k>.h5 and of loss_array<k>, accuracy_score<k> in mnist_metadata.h5.
SETUPS = {
    "adam_euclidean": dict(label="Adam", color="tab:blue", gpu_min=44, cpu_min=2783, authors_acc=9.74,
                           authors_loss=1.3436, gml=1),
    "adam_stiefel": dict(label="Adam + Stiefel", color="tab:orange", gpu_min=153, cpu_min=2855, authors_acc=86.13,
                         authors_loss=0.254, gml=2),
    "gd_stiefel": dict(label="Gradient + Stiefel", color="tab:blue", gpu_min=144, cpu_min=2370, authors_acc=55.18,
                       authors_loss=0.766, gml=3),
    "momentum_stiefel": dict(label="Momentum + Stiefel", color="tab:green", gpu_min=148, cpu_min=2369,
                             authors_acc=63.51, authors_loss=0.694, gml=4),
}
CURVE_EPOCHS = (1, 5, 10, 25)  # where our curves and theirs are compared (and our last epoch)
UNIFORM_LOSS = math.sqrt(0.9)  # every class 1/10
MNIST_TRAIN_IMAGES = 60_000  # data.train_size null: the whole training split
ONE_CLASS = 0.99  # a model whose most frequent prediction covers more of the test set than this has collapsed


SECTIONS = ("householder", "random")  # experiment=brantner/section: arms section_householder, section_random


def expected_runs(profile: str, seeds, overrides=()) -> dict[str, set[str]]:
    """setup -> the run folder names of its seeds, as `experiment=brantner/table2 <overrides>` and
    `experiment=brantner/section <overrides>` (setups section_<section>) make them: composed from the
    configs, so a run with other settings (another lr, a Cayley retraction) is never mixed in. One run
    can serve two setups (the section experiment's random arm is Adam + Stiefel where the profiles agree)."""
    names = {setup: set() for setup in [*SETUPS, *(f"section_{s}" for s in SECTIONS)]}
    for seed in seeds:
        for variant in SETUPS:
            cfg = compose([f"profile={profile}", f"variant=brantner/{variant}", f"seed={seed}", *overrides])
            names[variant].add(RunDir(cfg).name)
        for section in SECTIONS:
            cfg = compose(["experiment=brantner/section", f"profile={profile}", f"optim.section={section}",
                           f"seed={seed}", *overrides])
            names[f"section_{section}"].add(RunDir(cfg).name)
    return names


def load(out: Path, profile: str, seeds=None, overrides=()) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """From the per-run data in `out` (runs.csv, curves.csv.gz): the finished runs of the paper's four
    setups and of the section experiment with `seeds` (None: every seed there), one row per setup (the
    mean over seeds), their training curves (mean over seeds per epoch) and the runs themselves (one
    row per setup and seed)."""
    runs, curves = (pd.read_csv(out / f, low_memory=False) if (out / f).is_file() else pd.DataFrame()
                    for f in ("runs.csv", "curves.csv.gz"))
    if runs.empty:
        return runs, curves, runs
    seeds = sorted({int(s) for s in runs.seed.dropna()}) if seeds is None else seeds
    done = runs[runs.status == "done"]
    per_seed = pd.concat([done[done.run.isin(names)].assign(setup=setup)
                          for setup, names in expected_runs(profile, seeds, overrides).items()], ignore_index=True)
    if per_seed.empty:
        return per_seed, pd.DataFrame(), per_seed
    curves = curves[curves.train_loss.notna()].merge(per_seed[["run", "setup"]], on="run")
    curves = curves.groupby(["setup", "epoch"], as_index=False)["train_loss"].mean()
    numeric = [c for c in per_seed.select_dtypes("number").columns if not c.startswith(("cfg.", "env."))]
    table = per_seed.groupby("setup")[numeric].mean()
    table["seeds"] = per_seed.groupby("setup").size()
    one_class = per_seed[per_seed.final_test_top_class_share > ONE_CLASS]  # each such seed's class
    table["one_class_seeds"] = one_class.groupby("setup").size().reindex(table.index, fill_value=0)
    table["one_class_classes"] = one_class.groupby("setup").final_test_top_class.agg(
        lambda c: ", ".join(str(int(x)) for x in c)).astype(object).reindex(table.index, fill_value="")
    env = [c for c in ("env.processor", "env.cpu_count", "env.torch", "env.cuda") if c in per_seed]
    table = table.join(per_seed.groupby("setup")[env].first())
    return table.reset_index(), curves, per_seed


# -- the paper's claims (claims/brantner.yaml), judged by the claims engine -----------------------------
CLAIMS = claims_data.load("brantner")


def verdicts(per_seed: pd.DataFrame, out: Path | None = None) -> list[engine.Verdict]:
    """Every cell of the claims from our runs, one value per seed and setup (Welch: the paper's setups do
    not share their initial weights; a cell marked paired, the two sections, is paired by seed): the
    final training loss, the largest |Y^T Y - I| of a run, and a run's seconds per epoch over Euclidean
    Adam's mean (the GPU timing claim needs runs on a GPU); from the CSVs in `out`, the orthonormality
    cells of arms drift_* and authors_* (report.brantner_drift) and the CPU timing cells
    (report.brantner_timing)."""
    return [_verdict(claim, cell, per_seed, out) for claim in CLAIMS.claims for cell in claim.cells]


def _verdict(claim, cell, per_seed: pd.DataFrame, out: Path | None) -> engine.Verdict:
    if cell.arms[0].startswith(("drift_", "authors_")):
        return brantner_drift.verdict(claim, cell, out)
    if claim.metric == "epoch_time_ratio" and "GPU" not in cell.name:
        return brantner_timing.verdict(claim, cell, out)
    if cell.paired:  # the seeds both arms have
        seeds = set.intersection(*(set(per_seed[per_seed.setup == arm].seed) for arm in cell.arms)) if len(per_seed) else set()
        per_seed = per_seed[per_seed.seed.isin(seeds)] if len(per_seed) else per_seed
    arms = [_per_seed(per_seed, arm, claim.metric) for arm in cell.arms]
    if claim.metric == "epoch_time_ratio":  # the GPU cell
        if not len(per_seed) or not (per_seed.setup == "adam_euclidean").any():
            return engine.untestable(claim, cell, "no finished runs of adam_euclidean to time against", *map(len, arms))
        gpu = per_seed["env.cuda"].notna() if "env.cuda" in per_seed else pd.Series(False)  # the GPU's name, or empty
        if not gpu.all():
            return engine.untestable(claim, cell, f"{claim.precondition}: our runs are on the CPU", *map(len, arms))
    return engine.judge(claim, cell, *arms, paired=cell.paired)


def _per_seed(per_seed: pd.DataFrame, setup: str, metric: str) -> list[float]:
    """The metric of each seed's run of `setup` (epoch_time_ratio: its median seconds per epoch over
    Euclidean Adam's mean over seeds)."""
    runs = per_seed[per_seed.setup == setup].sort_values("seed") if len(per_seed) else per_seed
    if runs.empty:
        return []
    if metric == "epoch_time_ratio":
        base = per_seed[per_seed.setup == "adam_euclidean"].median_seconds_per_epoch.mean()
        return list(runs.median_seconds_per_epoch / base)
    return list(runs[metric])


def figure(runs, curves, setups, title: str, out: Path, theirs: dict | None = None) -> None:
    """Our training curves (solid) and, when given, the authors' 500-epoch curves (dashed, same colour)
    on one log-scaled epoch axis, with the epochs we ran shaded."""
    fig, ax = plt.subplots(figsize=(6.2, 4.0))
    for setup in setups:
        match = runs[runs.setup == setup]
        if match.empty:
            continue
        c = curves[curves.setup == setup]
        ax.plot(c.epoch, c.train_loss, label=f"{SETUPS[setup]['label']} (ours)", color=SETUPS[setup]["color"])
    for setup in setups if theirs else ():
        curve = theirs[setup]
        ax.plot(np.arange(1, len(curve) + 1), curve, ls="--", lw=1, color=SETUPS[setup]["color"],
                label=f"{SETUPS[setup]['label']} (authors, GML)")
    if theirs:
        ax.axvspan(1, int(runs[runs.setup.isin(setups)].epochs.max()), color="grey", alpha=0.12, lw=0,
                   label="epochs we ran")
        ax.set_xscale("log")
    ax.axhline(UNIFORM_LOSS, ls=":", color="grey", lw=1)
    ax.text(ax.get_xlim()[0], UNIFORM_LOSS, " uniform output", va="bottom", fontsize=7, color="grey")
    ax.set(xlabel="epoch" + (" (log scale)" if theirs else ""), ylabel="training loss  ||Ŷ-Y||_F / ||Y||_F",
           title=title)
    ax.legend(fontsize=7)
    fig.tight_layout()
    figures.save(fig, out)


def curves_table(curves, theirs: dict) -> pd.DataFrame:
    """Our training loss and the authors' at epochs 1, 5, 10, 25 and our last epoch (a missing epoch
    of ours stays empty)."""
    rows = []
    for setup, ref in SETUPS.items():
        ours = curves[curves.setup == setup].set_index("epoch").train_loss
        if ours.empty:
            continue
        last = int(ours.index.max())
        for epoch in sorted({*CURVE_EPOCHS, last}):
            rows.append({"run": ref["label"], "epoch": epoch,
                         "train loss (ours)": round(float(ours[epoch]), 4) if epoch in ours.index else None,
                         "train loss (authors)": round(float(theirs[setup][epoch - 1]), 4),
                         "our last epoch": "yes" if epoch == last else ""})
    return pd.DataFrame(rows)


def table2(runs) -> pd.DataFrame:
    rows = []
    base = runs[runs.setup == "adam_euclidean"]
    base_s = float(base.median_seconds_per_epoch.iloc[0]) if not base.empty else float("nan")
    for setup, ref in SETUPS.items():
        r = runs[runs.setup == setup]
        s = float(r.median_seconds_per_epoch.iloc[0]) if not r.empty else float("nan")
        rows.append({"optimizer": ref["label"], "epochs run": int(r.epochs.iloc[0]) if not r.empty else 0,
                     "s / epoch (ours)": round(s, 2), "ratio to Adam (ours)": round(s / base_s, 3),
                     "min / 500 epochs (ours, extrapolated)": round(s * 500 / 60, 1),
                     "paper Table 2 CPU min": ref["cpu_min"], "paper Table 2 CPU ratio": round(ref["cpu_min"] / 2783, 3),
                     "paper Table 2 GPU min": ref["gpu_min"], "paper Table 2 GPU ratio": round(ref["gpu_min"] / 44, 3)})
    return pd.DataFrame(rows)


DRIFT = "max abs(YᵀY - I) (all epochs)"


def accuracy(runs) -> pd.DataFrame:
    rows = []
    for setup, ref in SETUPS.items():
        r = runs[runs.setup == setup]
        authors = {"authors' run test accuracy % (500 epochs)": ref["authors_acc"],
                   "authors' run final train loss": ref["authors_loss"]}
        if r.empty:
            rows.append({"run": ref["label"], "test accuracy % (ours)": None, **authors})
            continue
        r = r.iloc[0]
        rows.append({"run": ref["label"], "epochs": int(r.epochs), "seeds": int(r.seeds),
                     "test accuracy % (ours)": round(100 * r.final_test_accuracy, 2),
                     "final train loss (ours)": round(r.final_train_loss, 4),
                     "predicts one class": (f"{r.one_class_seeds} of {r.seeds} seeds (class {r.one_class_classes})"
                                            if r.one_class_seeds else "no"),
                     DRIFT: r.max_orthonormality_error if "stiefel" in setup else None,
                     **authors})
    return pd.DataFrame(rows).astype({"epochs": "Int64", "seeds": "Int64"})  # whole numbers, empty where not run


SHOWN = {"accuracy": {DRIFT: "{:.1e}"}}  # a table's columns shown formatted (the CSV has the numbers)
TITLES = {"table2": "Brantner, Table 2: time per epoch (median over epochs), ratio to Euclidean Adam",
          "accuracy": "Brantner: test accuracy and final training loss, ours beside the authors' run",
          "authors_curves": "Brantner, Fig. 3: our training loss and the authors' at the same epochs"}


def budget(per_seed: pd.DataFrame, profile: str) -> str:
    """The caption of every table: what ran (epochs, images, batch, seeds) against the paper's 500
    epochs of all 60,000 images in batches of 2,048, and how the numbers are reduced."""
    images = per_seed["cfg.data.train_size"].fillna(MNIST_TRAIN_IMAGES) if "cfg.data.train_size" in per_seed else None
    seeds = ", ".join(str(int(s)) for s in sorted(per_seed.seed.unique()))
    return (f"Our runs ({profile} profile): {int(per_seed.epochs.max())} epochs of the paper's 500, "
            f"{int(images.max()) if images is not None else MNIST_TRAIN_IMAGES:,} training images, batches of "
            f"{int(per_seed['cfg.data.batch_size'].max()):,}, seeds {seeds}; ours are means over the seeds of "
            f"each setup (the per-seed values and their spread: claims.csv). The authors' run: their "
            f"GeometricMachineLearning.jl documentation run of 500 epochs, one seed. Made by `python -m "
            f"noneuclid.train -m experiment=brantner/table2 profile={profile}` and `python -m noneuclid.report "
            f"brantner --profile {profile}`, runs of commit "
            f"{run_table.commits(per_seed)}.")


def observations(runs, curves) -> list[str]:
    """What our runs show beside the claims table, in sentences made from the data: Euclidean Adam's
    plateau (the paper's 1.34), the setups' final losses and test accuracies (means over seeds)."""
    get = {s: runs[runs.setup == s].iloc[0] for s in SETUPS if not runs[runs.setup == s].empty}
    out = []
    if "adam_euclidean" in get:
        e = get["adam_euclidean"]
        c = curves[curves.setup == "adam_euclidean"]
        spread = c.train_loss.tail(max(1, len(c) // 2)).agg(lambda x: x.max() - x.min())
        out.append(
            f"Euclidean Adam plateaus: over the last half of its {int(e.epochs)} epochs the training loss "
            f"(mean over {int(e.seeds)} seeds) moves by {spread:.4f} around {e.final_train_loss:.4f}. "
            + (f"{int(e.one_class_seeds)} of {int(e.seeds)} seeds predict one class for the whole test set "
               f"(classes {e.one_class_classes}; mean test accuracy {100 * e.final_test_accuracy:.2f} %): a "
               f"constant output, not the uniform 'maximum entropy' one (that would give {UNIFORM_LOSS:.3f}). "
               f"For comparison, the paper's 1.34 (Fig. 3a, appendix D) is the loss of always predicting "
               f"class 8 (9.74 % of the test set)." if e.one_class_seeds
               else "No seed predicts one class for the whole test set."))
    return out


def make(runs_dir: Path, profile: str, out: Path, seeds=None, overrides=(), reference: Path | None = None) -> list[Path]:
    """Write fig3a, fig3b (PNG + PDF), table2, accuracy, claims, section (when its runs exist) and, when
    the authors' curves are at `reference` (default <data>/reference/brantner_gml), authors_curves (CSV,
    Markdown, LaTeX), and summary.md, from the runs of `python -m noneuclid.train -m
    experiment=brantner/table2 profile=<profile> <overrides>` and of experiment=brantner/section.
    summary.md includes what `python -m noneuclid.evaluate` wrote: authors_networks, drift and timing."""
    run_table.export(runs_dir, "brantner", profile, out)
    runs, curves, per_seed = load(out, profile, seeds, overrides)
    if runs.empty or not runs.setup.isin(SETUPS).any():
        raise FileNotFoundError(f"no finished Fig. 3 / Table 2 runs under {runs_dir}/brantner/{profile}: run "
                                f"`make reproduce-brantner PROFILE={profile}` first")
    reference = reference_dir() if reference is None else reference
    theirs = ({k: v["curve"] for k, v in authors_metadata(reference).items()}
              if (reference / "mnist_metadata.h5").is_file() else None)
    out.mkdir(parents=True, exist_ok=True)
    epochs = int(runs[runs.setup.isin(SETUPS)].epochs.max())
    figure(runs, curves, ["adam_euclidean", "adam_stiefel"],
           f"Fig. 3a: Adam, Euclidean vs Stiefel ({profile} profile)", out / "fig3a", theirs)
    figure(runs, curves, ["gd_stiefel", "momentum_stiefel", "adam_stiefel"],
           f"Fig. 3b: optimizers on Stiefel ({profile} profile)", out / "fig3b", theirs)
    tables = {"table2": table2(runs), "accuracy": accuracy(runs)}
    if theirs:
        tables["authors_curves"] = curves_table(curves, theirs)
    caption = budget(per_seed[per_seed.setup.isin(SETUPS)], profile)
    for name, df in tables.items():
        report_tables.write(out, name, df, report_tables.shown(df, SHOWN.get(name)), TITLES[name], caption)
    sections = per_seed[per_seed.setup.str.startswith("section_")]
    if len(sections):
        data, shown = section_table(sections)
        report_tables.write(out, "section", data, shown, SECTION_TITLE, section_caption(sections, profile))
    env = runs.iloc[0]
    lines = [
        f"# Brantner, Adam on manifolds: our runs ({profile} profile, {epochs} epochs)", "",
        f"Made by `make reproduce-brantner PROFILE={profile}` "
        f"(`python -m noneuclid.train -m experiment=brantner/table2 profile={profile}`, then "
        f"`python -m noneuclid.report brantner --profile {profile}`).",
        f"Machine: {env.get('env.cpu_count', '?')} CPUs, torch {env.get('env.torch', '?')}, "
        f"CUDA: {env['env.cuda'] if isinstance(env.get('env.cuda'), str) and env['env.cuda'] else 'none'}.", "",
        "## The paper's claims (claims/brantner.yaml, judged by the claims engine)", "",
        report_tables.write_claims(out, "claims", verdicts(per_seed, out), "tab:brantner_claims"), "",
        "## What the runs show", "", *[f"- {c}" for c in observations(runs, curves)], "",
        "## Fig. 3a and 3b (training loss per epoch" + (", the authors' 500-epoch curves dashed)" if theirs else ")"),
        "", "![fig3a](fig3a.png) ![fig3b](fig3b.png)", "",
    ]
    if theirs:
        lines += ["## Our training loss and the authors' (GeometricMachineLearning.jl) at the same epochs", "",
                  tables["authors_curves"].to_markdown(index=False), ""]
    lines += [
        "## Test accuracy (the authors' run: their GeometricMachineLearning.jl documentation run of 500 epochs; "
        "the paper gives no test accuracy)", "", report_tables.shown(tables["accuracy"], SHOWN["accuracy"]).to_markdown(index=False), "",
        "## Table 2: time per epoch (median over epochs), ratio to Euclidean Adam", "",
        tables["table2"].to_markdown(index=False), "",
    ]
    if (out / "authors_networks.md").is_file():  # written by `noneuclid.evaluate authors-networks`
        lines += ["#" + (out / "authors_networks.md").read_text(), ""]
    if len(sections):
        lines += [f"## {SECTION_TITLE}", "", section_caption(sections, profile), "", report_tables.markdown(shown), ""]
    lines += [s for _, s in (brantner_drift.make(out, drift_bound()), brantner_timing.make(out, "adam_euclidean")) if s]
    (out / "summary.md").write_text("\n".join(lines))
    return sorted(out.iterdir())


def drift_bound() -> float:
    """The bound of the orthonormality claim's cells for 500 epochs' steps (claims/brantner.yaml)."""
    cells = CLAIMS["orthonormality_to_machine_precision"].cells
    return next(c.bound for c in cells if c.arms[0].startswith("drift_"))


# -- the authors' networks and curves (GeometricMachineLearning.jl) --------------------------------------
def reference_dir(data_dir=None) -> Path:
    """<data>/reference/brantner_gml (data root: $NONEUCLID_DATA_DIR, else ./data)."""
    return Path(data_dir or os.environ.get("NONEUCLID_DATA_DIR", "data")) / "reference" / "brantner_gml"


def authors_metadata(reference: Path) -> dict[str, dict]:
    """Per setup: the authors' run, its 500 per-epoch training losses ("curve") and its test accuracy."""
    import h5py

    with h5py.File(reference / "mnist_metadata.h5", "r") as f:
        return {setup: {"curve": np.asarray(f[f"loss_array{ref['gml']}"][()], dtype=float),
                        "accuracy": float(f[f"accuracy_score{ref['gml']}"][()])}
                for setup, ref in SETUPS.items()}


# -- the section experiment (experiment=brantner/section) ----------------------------------------------
SECTION_TITLE = "Beyond the paper: does the section matter? Adam + Stiefel, householder vs random"


def section_table(sections: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(data, shown): per section, the final training loss and test accuracy % over seeds (mean, s.d.,
    s.e.), and how many seeds collapsed to predicting one class (over ONE_CLASS of the test set)."""
    rows = []
    for section in SECTIONS:
        r = sections[sections.setup == f"section_{section}"]
        loss, acc = estimate(r.final_train_loss), estimate(100 * r.final_test_accuracy)
        rows.append({"section": section, "seeds": len(r), "epochs": int(r.epochs.max()) if len(r) else 0,
                     "final_train_loss_mean": loss.mean, "final_train_loss_sd": r.final_train_loss.std(ddof=1),
                     "final_train_loss_se": loss.se, "test_accuracy_mean": acc.mean,
                     "test_accuracy_sd": (100 * r.final_test_accuracy).std(ddof=1), "test_accuracy_se": acc.se,
                     "seeds_predicting_one_class": int((r.final_test_top_class_share > ONE_CLASS).sum())})
    data = pd.DataFrame(rows)
    shown = pd.DataFrame({"section": data.section, "seeds": data.seeds, "epochs": data.epochs,
                          "final train loss": [f"{m:.4f} ± {e:.4f}" for m, e in zip(data.final_train_loss_mean,
                                                                                       data.final_train_loss_se)],
                          "test accuracy %": [f"{m:.2f} ± {e:.2f}" for m, e in zip(data.test_accuracy_mean,
                                                                                   data.test_accuracy_se)],
                          "seeds predicting one class": data.seeds_predicting_one_class})
    return data, shown


def section_caption(sections: pd.DataFrame, profile: str) -> str:
    """What the section runs are, their budget and seeds, and where they are judged."""
    images = sections["cfg.data.train_size"].fillna(MNIST_TRAIN_IMAGES).max()
    seeds = ", ".join(str(int(s)) for s in sorted(sections.seed.unique()))
    return (f"Adam + Stiefel with each section ({profile} profile): {int(sections.epochs.max())} epochs of the first "
            f"{int(images):,} training images, batches of {int(sections['cfg.data.batch_size'].max()):,}, seeds "
            f"{seeds}; mean ± standard error over seeds (s.d. in section.csv). Judged by the claims engine "
            f"(random_section_trains_lower in claims.csv). Made by `python -m noneuclid.train -m "
            f"experiment=brantner/section profile={profile}` and `python -m noneuclid.report brantner --profile {profile}`.")
