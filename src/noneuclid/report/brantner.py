"""Brantner's Fig. 3a/3b, Table 2, the test accuracies and the section experiment from the per-run data,
the authors' curves (GeometricMachineLearning.jl, <data>/reference/brantner_gml) beside ours. Numbers:
claims/brantner.yaml (reference); prose: templates/brantner.md."""

from __future__ import annotations

import functools
import math
import os
from pathlib import Path

import numpy as np
import pandas as pd

from noneuclid.claims import data as claims_data, engine, estimates
from noneuclid.report import brantner_evaluated as evaluated, figures, prose, tables
from noneuclid.runs import table as run_table

CLAIMS = claims_data.load("brantner")
PAPER = CLAIMS.reference  # the paper's epochs, MNIST's training images, Fig. 3a's plateau
SETUPS = PAPER["setups"]  # the paper's four runs -> label, colour, Table 2's minutes, the authors' run
SECTIONS = ("householder", "random")  # experiment=brantner/section: arms section_householder, section_random
CURVE_EPOCHS = (1, 5, 10, 25)  # where our curves and theirs are compared (and our last epoch)
UNIFORM_LOSS = math.sqrt(0.9)  # every class 1/10
ONE_CLASS = 0.99  # a model whose most frequent prediction covers more of the test set than this has collapsed
DRIFT = "max abs(YᵀY - I) (all epochs)"
text = functools.partial(prose.fill, "brantner")


def expected_runs(profile: str, seeds, overrides=()) -> dict[str, set[str]]:
    """setup -> its seeds' run names: variant=brantner/<setup>, and experiment=brantner/section
    optim.section=<s> for section_<s> (one run may serve two setups)."""
    settings = {**{v: [f"variant=brantner/{v}"] for v in SETUPS},
                **{f"section_{s}": ["experiment=brantner/section", f"optim.section={s}"] for s in SECTIONS}}
    return {setup: run_table.names(args, profile, seeds, overrides) for setup, args in settings.items()}


def load(out: Path, profile: str, seeds=None, overrides=()) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The finished runs in `out` of the setups with `seeds` (None: all there): (`means`, the mean training
    curve per setup and epoch, one row per run)."""
    runs, curves = run_table.read(out)
    if runs.empty:
        return runs, curves, runs
    seeds = sorted({int(s) for s in runs.seed.dropna()}) if seeds is None else seeds
    per_seed = run_table.labelled(runs, expected_runs(profile, seeds, overrides))
    if per_seed.empty:
        return per_seed, pd.DataFrame(), per_seed
    curves = curves[curves.train_loss.notna()].merge(per_seed[["run", "setup"]], on="run")
    return means(per_seed), curves.groupby(["setup", "epoch"], as_index=False)["train_loss"].mean(), per_seed


def means(per_seed: pd.DataFrame) -> pd.DataFrame:
    """Per setup: each metric's mean over seeds, the seeds, those predicting one class and the environment."""
    numeric = [c for c in per_seed.select_dtypes("number").columns if not c.startswith(("cfg.", "env."))]
    table = per_seed.groupby("setup")[numeric].mean()
    table["seeds"] = per_seed.groupby("setup").size()
    one_class = per_seed[per_seed.final_test_top_class_share > ONE_CLASS]  # each such seed's class
    table["one_class_seeds"] = one_class.groupby("setup").size().reindex(table.index, fill_value=0)
    table["one_class_classes"] = one_class.groupby("setup").final_test_top_class.agg(
        lambda c: ", ".join(str(int(x)) for x in c)).astype(object).reindex(table.index, fill_value="")
    env = [c for c in ("env.processor", "env.cpu_count", "env.torch", "env.cuda") if c in per_seed]
    return table.join(per_seed.groupby("setup")[env].first()).reset_index()


def verdicts(per_seed: pd.DataFrame, out: Path | None = None) -> list[engine.Verdict]:
    """Every claim cell: from the runs one value per seed, the drift, authors' and CPU timing cells from
    the CSVs in `out` (report.brantner_evaluated)."""
    return [_verdict(claim, cell, per_seed, out) for claim in CLAIMS.claims for cell in claim.cells]


def _verdict(claim, cell, per_seed: pd.DataFrame, out: Path | None) -> engine.Verdict:
    if cell.arms[0].startswith(("drift_", "authors_")):
        return evaluated.drift_verdict(claim, cell, out)
    if claim.metric == "epoch_time_ratio" and "GPU" not in cell.name:
        return evaluated.timing_verdict(claim, cell, out)
    if cell.paired and len(per_seed):  # the seeds both arms have
        per_seed = per_seed[per_seed.seed.isin(set.intersection(*(set(per_seed[per_seed.setup == arm].seed)
                                                                  for arm in cell.arms)))]
    arms = [_per_seed(per_seed, arm, claim.metric) for arm in cell.arms]
    if claim.metric == "epoch_time_ratio":  # the GPU cell
        if not len(per_seed) or not (per_seed.setup == "adam_euclidean").any():
            return engine.untestable(claim, cell, "no finished runs of adam_euclidean to time against",
                                     *map(len, arms))
        if "env.cuda" not in per_seed or not per_seed["env.cuda"].notna().all():  # the GPU's name, or empty
            return engine.untestable(claim, cell, f"{claim.precondition}: our runs are on the CPU", *map(len, arms))
    return engine.judge(claim, cell, *arms, paired=cell.paired)


def _per_seed(per_seed: pd.DataFrame, setup: str, metric: str) -> list[float]:
    """The metric of each seed's run of `setup` (epoch_time_ratio: seconds per epoch over Euclidean Adam's mean)."""
    if not len(per_seed):
        return []
    runs = per_seed[per_seed.setup == setup].sort_values("seed")
    if metric != "epoch_time_ratio":
        return list(runs[metric])
    base = per_seed[per_seed.setup == "adam_euclidean"].median_seconds_per_epoch.mean()
    return list(runs.median_seconds_per_epoch / base)


def figure(runs, curves, setups, title: str, out: Path, theirs: dict | None = None) -> None:
    """Our training curves and, when given, the authors' (dashed, log epoch axis, our epochs shaded)."""
    with figures.axes(out, (6.2, 4.0)) as ax:
        for setup in (s for s in setups if (runs.setup == s).any()):
            c = curves[curves.setup == setup]
            ax.plot(c.epoch, c.train_loss, label=f"{SETUPS[setup]['label']} (ours)", color=SETUPS[setup]["color"])
        for setup in setups if theirs else ():
            ax.plot(np.arange(1, len(theirs[setup]) + 1), theirs[setup], ls="--", lw=1, color=SETUPS[setup]["color"],
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


def curves_table(curves, theirs: dict) -> pd.DataFrame:
    """Our training loss and the authors' at CURVE_EPOCHS and our last epoch."""
    rows = []
    for setup, ref in SETUPS.items():
        ours = curves[curves.setup == setup].set_index("epoch").train_loss
        last = int(ours.index.max()) if len(ours) else None
        rows += [{"run": ref["label"], "epoch": epoch,
                  "train loss (ours)": round(float(ours[epoch]), 4) if epoch in ours.index else None,
                  "train loss (authors)": round(float(theirs[setup][epoch - 1]), 4),
                  "our last epoch": "yes" if epoch == last else ""}
                 for epoch in (sorted({*CURVE_EPOCHS, last}) if len(ours) else ())]
    return pd.DataFrame(rows)


def table2(runs) -> pd.DataFrame:
    """Per setup: our median seconds per epoch, its ratio to Euclidean Adam's, and the paper's Table 2."""
    ours = runs.set_index("setup")
    seconds = {k: float(ours.median_seconds_per_epoch.get(k, float("nan"))) for k in SETUPS}
    base = SETUPS["adam_euclidean"]
    return pd.DataFrame([{
        "optimizer": ref["label"], "epochs run": int(ours.epochs.get(setup, 0)),
        "s / epoch (ours)": round(seconds[setup], 2),
        "ratio to Adam (ours)": round(seconds[setup] / seconds["adam_euclidean"], 3),
        "min / 500 epochs (ours, extrapolated)": round(seconds[setup] * PAPER["epochs"] / 60, 1),
        "paper Table 2 CPU min": ref["cpu_min"], "paper Table 2 CPU ratio": round(ref["cpu_min"] / base["cpu_min"], 3),
        "paper Table 2 GPU min": ref["gpu_min"], "paper Table 2 GPU ratio": round(ref["gpu_min"] / base["gpu_min"], 3)}
        for setup, ref in SETUPS.items()])


def accuracy(runs) -> pd.DataFrame:
    """Per setup: our test accuracy, final loss, collapsed seeds and drift beside the authors' run."""
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
                     DRIFT: r.max_orthonormality_error if "stiefel" in setup else None, **authors})
    return pd.DataFrame(rows).astype({"epochs": "Int64", "seeds": "Int64"})  # whole numbers, empty where not run


def _budget(runs: pd.DataFrame) -> dict:
    """The epochs, training images, batch size and seeds of runs, for the captions."""
    images = runs["cfg.data.train_size"].fillna(PAPER["train_images"]).max() if "cfg.data.train_size" in runs \
        else PAPER["train_images"]
    return {"epochs": int(runs.epochs.max()), "images": int(images), "batch": int(runs["cfg.data.batch_size"].max()),
            "seeds": ", ".join(str(int(s)) for s in sorted(runs.seed.unique()))}


def observations(runs, curves) -> str:
    """What our runs show beside the claims table: Euclidean Adam's plateau (the paper's 1.34)."""
    if not (runs.setup == "adam_euclidean").any():
        return ""
    e, c = runs[runs.setup == "adam_euclidean"].iloc[0], curves[curves.setup == "adam_euclidean"]
    spread = c.train_loss.tail(max(1, len(c) // 2)).agg(lambda x: x.max() - x.min())
    collapse = (text("one_class", one_class=int(e.one_class_seeds), seeds=int(e.seeds), classes=e.one_class_classes,
                     accuracy=100 * e.final_test_accuracy, uniform=UNIFORM_LOSS, plateau=PAPER["plateau"],
                     share=SETUPS["adam_euclidean"]["authors_acc"]) if e.one_class_seeds else text("no_one_class"))
    plateau = text("plateau", epochs=int(e.epochs), seeds=int(e.seeds), spread=spread, loss=e.final_train_loss)
    return f"- {plateau} {collapse}\n"


def make(runs_dir: Path, profile: str, out: Path, seeds=None, overrides=(),
         reference: Path | None = None) -> list[Path]:
    """Write fig3a, fig3b, table2, accuracy, authors_curves (with the authors' curves at `reference`, default
    reference_dir()), claims, section, drift and timing tables and summary.md into `out`."""
    run_table.export(runs_dir, "brantner", profile, out)
    runs, curves, per_seed = load(out, profile, seeds, overrides)
    if runs.empty or not runs.setup.isin(SETUPS).any():
        raise FileNotFoundError(f"no finished Fig. 3 / Table 2 runs under {runs_dir}/brantner/{profile}: run "
                                f"`make reproduce-brantner PROFILE={profile}` first")
    reference = reference_dir() if reference is None else reference
    theirs = ({k: v["curve"] for k, v in authors_metadata(reference).items()}
              if (reference / "mnist_metadata.h5").is_file() else None)
    out.mkdir(parents=True, exist_ok=True)
    figure(runs, curves, ["adam_euclidean", "adam_stiefel"], text("fig3a", profile=profile), out / "fig3a", theirs)
    figure(runs, curves, ["gd_stiefel", "momentum_stiefel", "adam_stiefel"], text("fig3b", profile=profile),
           out / "fig3b", theirs)
    data = {"table2": table2(runs), "accuracy": accuracy(runs), **({"authors_curves": curves_table(curves, theirs)}
                                                                  if theirs else {})}
    shown = {name: tables.shown(df, {DRIFT: "{:.1e}"} if name == "accuracy" else None) for name, df in data.items()}
    fig3 = per_seed[per_seed.setup.isin(SETUPS)]
    caption = text("budget", profile=profile, paper_epochs=PAPER["epochs"], commits=run_table.commits(fig3),
                   **_budget(fig3))
    for name, df in data.items():
        tables.write(out, name, df, shown[name], text(f"title_{name}"), caption)
    (out / "summary.md").write_text("\n".join(summary(out, runs, curves, per_seed, shown, profile)))
    return sorted(out.iterdir())


def summary(out: Path, runs, curves, per_seed, shown: dict, profile: str) -> list[str]:
    """The parts of summary.md; writes the claims table and the section, drift and timing tables."""
    env, md = runs.iloc[0], {name: df.to_markdown(index=False) for name, df in shown.items()}
    theirs = "authors_curves" in md
    lines = [text("summary", profile=profile, epochs=int(runs[runs.setup.isin(SETUPS)].epochs.max()),
                  cpus=env.get("env.cpu_count", "?"), torch=env.get("env.torch", "?"),
                  cuda=env["env.cuda"] if isinstance(env.get("env.cuda"), str) and env["env.cuda"] else "none",
                  claims=tables.write_claims(out, "claims", verdicts(per_seed, out)), shows=observations(runs, curves),
                  dashed=text("dashed") if theirs else "", accuracy=md["accuracy"], table2=md["table2"],
                  authors_curves=text("authors_curves", table=md["authors_curves"]) + "\n\n" if theirs else ""), ""]
    if (out / "authors_networks.md").is_file():  # written by `noneuclid.evaluate authors-networks`
        lines += ["#" + (out / "authors_networks.md").read_text(), ""]
    sections = per_seed[per_seed.setup.str.startswith("section_")]
    if len(sections):
        lines.append(tables.section(out, "section", *section_table(sections), text("section_title"),
                                    text("section_caption", profile=profile, **_budget(sections))))
    bound = next(c.bound for c in CLAIMS["orthonormality_to_machine_precision"].cells
                 if c.arms[0].startswith("drift_"))
    return lines + [s for s in (evaluated.drift_section(out, bound), evaluated.timing_section(out)) if s]


def reference_dir(data_dir=None) -> Path:
    """<data>/reference/brantner_gml (data root: $NONEUCLID_DATA_DIR, else ./data)."""
    return Path(data_dir or os.environ.get("NONEUCLID_DATA_DIR", "data")) / "reference" / "brantner_gml"


def authors_metadata(reference: Path) -> dict[str, dict]:
    """Per setup: the authors' run, its 500 per-epoch training losses ("curve") and its test accuracy."""
    import h5py

    with h5py.File(reference / "mnist_metadata.h5", "r") as f:
        return {setup: {"curve": np.asarray(f[f"loss_array{ref['gml']}"][()], dtype=float),
                        "accuracy": float(f[f"accuracy_score{ref['gml']}"][()])} for setup, ref in SETUPS.items()}


def section_table(sections: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(data, shown): per section, final training loss and test accuracy % (mean, s.d., s.e. over seeds)
    and the seeds predicting one class."""
    rows = []
    for section in SECTIONS:
        r = sections[sections.setup == f"section_{section}"]
        row = {"section": section, "seeds": len(r), "epochs": int(r.epochs.max()) if len(r) else 0}
        for name, values in (("final_train_loss", r.final_train_loss), ("test_accuracy", 100 * r.final_test_accuracy)):
            stats = estimates.summary(values)
            row |= {f"{name}_{k}": stats[k] for k in ("mean", "sd", "se")}
        rows.append({**row, "seeds_predicting_one_class": int((r.final_test_top_class_share > ONE_CLASS).sum())})
    data = pd.DataFrame(rows)
    shown = {name: [estimates.plus_minus(m, e, fmt=fmt) for m, e in zip(data[f"{column}_mean"], data[f"{column}_se"])]
             for name, column, fmt in (("final train loss", "final_train_loss", ".4f"),
                                       ("test accuracy %", "test_accuracy", ".2f"))}
    return data, data[["section", "seeds", "epochs"]].assign(
        **shown, **{"seeds predicting one class": data.seeds_predicting_one_class})
