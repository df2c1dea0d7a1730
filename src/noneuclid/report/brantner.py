"""Brantner's Fig. 3a/3b, Table 2, the test accuracies and the section experiment from the per-run data,
the authors' curves (GeometricMachineLearning.jl, <data>/reference/brantner_gml) beside ours. Numbers:
claims/brantner.yaml (reference); prose: templates/brantner.md."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from noneuclid import tables
from noneuclid.claims import engine, estimates, render
from noneuclid.config import sweep_values
from noneuclid.data.brantner_gml import authors_curves, reference_dir
from noneuclid.figures import brantner as drawn
from noneuclid.figures.brantner import UNIFORM_LOSS
from noneuclid.report import brantner_evaluated as evaluated, provenance, table_engine
from noneuclid.report.brantner_claims import CLAIMS, SETUPS, text
from noneuclid.runs import select, table as run_table

PAPER = CLAIMS.reference  # the paper's epochs, MNIST's training images, Fig. 3a's plateau, the runs of each figure
SECTIONS = sweep_values("brantner/section", "optim.section")  # arms section_householder, section_random
CURVE_EPOCHS = (1, 5, 10, 25)  # where our curves and theirs are compared (and our last epoch)
ONE_CLASS = PAPER["one_class_share"]  # a model whose top prediction covers more of the test set has collapsed
DRIFT = "max abs(YᵀY - I) (all epochs)"


def load(out: Path, profile: str, seeds=None, overrides=()) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The finished runs in `out` with `seeds` (None: all there) of each setup: variant=brantner/<setup>,
    and experiment=brantner/section optim.section=<s> for section_<s> (one run may serve two setups):
    (per setup each metric's mean over seeds, the seeds and those predicting one class with their classes;
    the mean training curve per setup and epoch; one row per run)."""
    runs, curves = run_table.read(out)
    if runs.empty:
        return runs, curves, runs
    seeds = sorted({int(s) for s in runs.seed.dropna()}) if seeds is None else seeds
    settings = {
        **{v: [f"variant=brantner/{v}"] for v in SETUPS},
        **{f"section_{s}": ["experiment=brantner/section", f"optim.section={s}"] for s in SECTIONS},
    }
    chosen = {
        setup: select.trained_by(runs, [*args, f"profile={profile}", *overrides]) for setup, args in settings.items()
    }
    per_seed = pd.concat(
        [found[found.seed.isin(seeds)].assign(setup=setup) for setup, found in chosen.items()], ignore_index=True
    )
    numeric = [c for c in per_seed.select_dtypes("number").columns if not c.startswith(("cfg.", "env."))]
    means = per_seed.groupby("setup")[numeric].mean()
    means["seeds"] = per_seed.groupby("setup").size()
    one_class = per_seed[per_seed.final_test_top_class_share > ONE_CLASS].groupby("setup").final_test_top_class
    means["one_class_seeds"] = one_class.size().reindex(means.index, fill_value=0)
    means["one_class_classes"] = (
        one_class.agg(lambda c: ", ".join(str(int(x)) for x in c)).astype(object).reindex(means.index, fill_value="")
    )
    curves = curves[curves.train_loss.notna()].merge(per_seed[["run", "setup"]], on="run")
    return means.reset_index(), curves.groupby(["setup", "epoch"], as_index=False)["train_loss"].mean(), per_seed


def verdicts(per_seed: pd.DataFrame, out: Path | None = None) -> list[engine.Verdict]:
    """Every claim cell: the drift, authors' and timing cells from the CSVs in `out`
    (brantner_evaluated.verdict), the others from one value per seed of the runs."""
    return [
        evaluated.verdict(claim, cell, out) or _verdict(claim, cell, per_seed)
        for claim in CLAIMS.claims
        for cell in claim.cells
    ]


def _verdict(claim, cell, per_seed: pd.DataFrame) -> engine.Verdict:
    """The cell judged on one value per seed of its arms' runs (paired: the seeds both arms have)."""
    if not len(per_seed):  # no runs: every arm without values
        per_seed = pd.DataFrame(columns=["setup", "seed", claim.metric])
    arms = [per_seed[per_seed.setup == arm].sort_values("seed") for arm in cell.arms]
    if cell.paired:
        arms = [runs[runs.seed.isin(set.intersection(*(set(r.seed) for r in arms)))] for runs in arms]
    return engine.judge(
        claim,
        cell,
        *(list(runs[claim.metric]) for runs in arms),
        paired=cell.paired,
        runs=[name for runs in arms for name in runs.get("run", [])],
    )


def curves_table(curves, theirs: dict) -> pd.DataFrame:
    """Our training loss and the authors' at CURVE_EPOCHS and our last epoch."""
    rows = []
    for setup, ref in SETUPS.items():
        ours = curves[curves.setup == setup].set_index("epoch").train_loss
        last = int(ours.index.max()) if len(ours) else None
        rows += [
            {
                "run": ref["label"],
                "epoch": epoch,
                "train loss (ours)": round(float(ours[epoch]), 4) if epoch in ours.index else None,
                "train loss (authors)": round(float(theirs[setup][epoch - 1]), 4),
                "our last epoch": "yes" if epoch == last else "",
            }
            for epoch in (sorted({*CURVE_EPOCHS, last}) if len(ours) else ())
        ]
    return pd.DataFrame(rows)


def tables_of(runs) -> dict[str, pd.DataFrame]:
    """Per setup, ours beside the paper's or the authors' run: table2 (our median seconds per epoch and its
    ratio to Euclidean Adam's, the paper's Table 2) and accuracy (test accuracy, final loss, collapsed seeds
    and drift)."""
    ours, paper = runs.set_index("setup").reindex(list(SETUPS)), pd.DataFrame.from_dict(SETUPS, orient="index")
    seconds, cpu, gpu = ours.median_seconds_per_epoch, paper.cpu_min, paper.gpu_min
    one_class = [
        None if pd.isna(n) else f"{int(n)} of {int(s)} seeds (class {c})" if n else "no"
        for n, s, c in zip(ours.one_class_seeds, ours.seeds, ours.one_class_classes)
    ]
    table2 = pd.DataFrame(
        {
            "optimizer": paper.label,
            "epochs run": ours.epochs.fillna(0).astype(int),
            "s / epoch (ours)": seconds.round(2),
            "ratio to Adam (ours)": (seconds / seconds["adam_euclidean"]).round(3),
            "min / 500 epochs (ours, extrapolated)": (seconds * PAPER["epochs"] / 60).round(1),
            "paper Table 2 CPU min": cpu,
            "paper Table 2 CPU ratio": (cpu / cpu["adam_euclidean"]).round(3),
            "paper Table 2 GPU min": gpu,
            "paper Table 2 GPU ratio": (gpu / gpu["adam_euclidean"]).round(3),
        }
    )
    accuracy = pd.DataFrame(
        {
            "run": paper.label,
            "epochs": ours.epochs.astype("Int64"),
            "seeds": ours.seeds.astype("Int64"),
            "test accuracy % (ours)": (100 * ours.final_test_accuracy).round(2),
            "final train loss (ours)": ours.final_train_loss.round(4),
            "predicts one class": one_class,
            DRIFT: ours.max_orthonormality_error.where(ours.index.str.contains("stiefel")),
            "authors' run test accuracy % (500 epochs)": paper.authors_acc,
            "authors' run final train loss": paper.authors_loss,
        }
    )
    return {"table2": table2.reset_index(drop=True), "accuracy": accuracy.reset_index(drop=True)}


def _budget(runs: pd.DataFrame) -> dict:
    """The epochs, training images, batch size and seeds of runs, for the captions."""
    images = runs["cfg.data.train_size"].fillna(PAPER["train_images"])  # null: all of MNIST's
    return {
        "epochs": int(runs.epochs.max()),
        "images": int(images.max()),
        "batch": int(runs["cfg.data.batch_size"].max()),
        "seeds": ", ".join(str(int(s)) for s in sorted(runs.seed.unique())),
    }


def observations(runs, curves) -> str:
    """What our runs show beside the claims table: Euclidean Adam's plateau (the paper's 1.34)."""
    if not (runs.setup == "adam_euclidean").any():
        return ""
    e, c = runs[runs.setup == "adam_euclidean"].iloc[0], curves[curves.setup == "adam_euclidean"]
    spread = c.train_loss.tail(max(1, len(c) // 2)).agg(lambda x: x.max() - x.min())
    collapse = (
        text(
            "one_class",
            one_class=int(e.one_class_seeds),
            seeds=int(e.seeds),
            classes=e.one_class_classes,
            accuracy=100 * e.final_test_accuracy,
            uniform=UNIFORM_LOSS,
            plateau=PAPER["plateau"],
            share=SETUPS["adam_euclidean"]["authors_acc"],
        )
        if e.one_class_seeds
        else text("no_one_class")
    )
    plateau = text("plateau", epochs=int(e.epochs), seeds=int(e.seeds), spread=spread, loss=e.final_train_loss)
    return f"- {plateau} {collapse}\n"


def make(
    runs_dir: Path, profile: str, out: Path, seeds=None, overrides=(), reference: Path | None = None
) -> list[Path]:
    """Write fig3a, fig3b, table2, accuracy, authors_curves (with the authors' curves at `reference`, default
    reference_dir()), claims, section, drift and timing tables and summary.md into `out`."""
    run_table.export(runs_dir, "brantner", profile, out)
    runs, curves, per_seed = load(out, profile, seeds, overrides)
    if runs.empty or not runs.setup.isin(SETUPS).any():
        raise FileNotFoundError(text("no_runs", runs=runs_dir, profile=profile))
    theirs = authors_curves(reference_dir() if reference is None else reference, SETUPS)  # None: no reference
    for name, setups in PAPER["figures"].items():
        drawn.fig3(runs, curves, {s: SETUPS[s] for s in setups}, text(name, profile=profile), out / name, theirs)
    fig3, md = per_seed[per_seed.setup.isin(SETUPS)], {}
    caption = text(
        "budget", profile=profile, paper_epochs=PAPER["epochs"], commits=run_table.commits(fig3), **_budget(fig3)
    )
    for name, df in {**tables_of(runs), **({"authors_curves": curves_table(curves, theirs)} if theirs else {})}.items():
        shown = tables.shown(df, {DRIFT: "{:.1e}"} if name == "accuracy" else None)
        tables.write(out, name, df, shown, text(f"title_{name}"), caption)
        md[name] = shown.to_markdown(index=False)
    env = per_seed.iloc[0]
    parts = [
        text(
            "summary",
            profile=profile,
            epochs=int(runs[runs.setup.isin(SETUPS)].epochs.max()),
            cpus=env.get("env.cpu_count", "?"),
            torch=env.get("env.torch", "?"),
            cuda=env["env.cuda"] if isinstance(env.get("env.cuda"), str) and env["env.cuda"] else "none",
            claims=render.write(out, "claims", provenance.final(verdicts(per_seed, out), per_seed, "brantner")),
            shows=observations(runs, curves),
            dashed=text("dashed") if theirs else "",
            accuracy=md["accuracy"],
            table2=md["table2"],
            authors_curves=text("authors_curves", table=md["authors_curves"]) + "\n\n" if theirs else "",
        ),
        "",
    ]
    if (out / "authors_networks.md").is_file():  # written by `noneuclid.evaluate authors-networks`
        parts += ["#" + (out / "authors_networks.md").read_text(), ""]
    if len(sections := per_seed[per_seed.setup.str.startswith("section_")]):
        parts.append(
            table_engine.section(
                "brantner", out, "section", section_table(sections), profile=profile, **_budget(sections)
            )
        )
    parts += [s for s in (evaluated.drift_section(out), evaluated.timing_section(out)) if s]
    (out / "summary.md").write_text("\n".join(parts))
    return sorted(out.iterdir())


def section_table(sections: pd.DataFrame) -> pd.DataFrame:
    """Per section, final training loss and test accuracy % (mean, s.d., s.e. over seeds) and the seeds
    predicting one class."""
    rows = []
    for section in SECTIONS:
        r = sections[sections.setup == f"section_{section}"]
        stats = {
            f"{name}_{k}": v
            for name, values in (
                ("final_train_loss", r.final_train_loss),
                ("test_accuracy", 100 * r.final_test_accuracy),
            )
            for k, v in estimates.summary(values).items()
            if k in ("mean", "sd", "se")
        }
        rows.append(
            {
                "section": section,
                "seeds": len(r),
                "epochs": int(r.epochs.max()) if len(r) else 0,
                **stats,
                "seeds_predicting_one_class": int((r.final_test_top_class_share > ONE_CLASS).sum()),
            }
        )
    return pd.DataFrame(rows)
