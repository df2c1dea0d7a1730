"""Brantner's Fig. 3a/3b, Table 2, the test accuracies and the section experiment from the per-run data,
the authors' curves (GeometricMachineLearning.jl, <data>/reference/brantner_gml) beside ours. Tables:
claims/brantner_tables.yaml; numbers: claims/brantner.yaml (reference); the runs each figure shows: its
experiment's sweep (configs/experiment/brantner/<figure>.yaml); prose: templates/brantner.md."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from noneuclid import tables
from noneuclid.config import sweep_values
from noneuclid.data.brantner_gml import authors_curves, reference_dir
from noneuclid.figures import brantner as drawn
from noneuclid.report import brantner_evaluated as evaluated, provenance, table_engine
from noneuclid.report.brantner_claims import AUTHORS, BASE, CLAIMS, SETUPS, paper_run, summarised, text, verdicts
from noneuclid.runs import select, table as run_table

PAPER = CLAIMS.numbers  # MNIST's training images, Fig. 3a's plateau, the uniform output's loss


def load(out: Path, profile: str, seeds=None, overrides=()) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The finished runs in `out` with `seeds` (None: all there) of each setup (runs.select.swept): those of
    experiment=brantner/table2's variant=brantner/<setup>, and of experiment=brantner/section's
    optim.section=<s> for section_<s> (one run may serve two setups): (one row per run and setup, its setup
    in column setup; the mean training curve per setup and epoch)."""
    runs, curves = run_table.read(out)
    if runs.empty:
        return runs, curves
    seeds = sorted({int(s) for s in runs.seed.dropna()}) if seeds is None else seeds
    ran = [f"profile={profile}", *overrides]
    fig3 = select.swept(runs, "brantner/table2", ran, named="variant")
    section = select.swept(runs, "brantner/section", ran, named="optim.section")
    setups = [fig3.variant.str.removeprefix("brantner/"), "section_" + section["optim.section"]]
    per_seed = pd.concat([f.assign(setup=s) for f, s in zip((fig3, section), setups)], ignore_index=True)
    per_seed = per_seed[per_seed.seed.isin(seeds)].drop(columns=["variant", "optim.section"]).reset_index(drop=True)
    curves = curves[curves.train_loss.notna()].merge(per_seed[["run", "setup"]], on="run")
    return per_seed, curves.groupby(["setup", "epoch"], as_index=False)["train_loss"].mean()


def curves_table(curves: pd.DataFrame, theirs: dict) -> pd.DataFrame:
    """Per setup we ran, our mean training loss and the authors' at the epochs that claims/brantner_tables.yaml's
    authors_curves compares and our last epoch."""
    last, compared = curves.groupby("setup").epoch.max(), table_engine.load("brantner")["authors_curves"]["epochs"]
    epochs = {s: sorted({*compared, last[s]}) for s in SETUPS if s in last}
    rows = [(s, SETUPS[s], e, theirs[s][e - 1]) for s, at in epochs.items() for e in at]
    data = pd.DataFrame(rows, columns=["setup", "label", "epoch", "authors_train_loss"])
    data = data.merge(curves, on=["setup", "epoch"], how="left")
    return data.assign(last_epoch=data.epoch == data.setup.map(last))


def _budget(runs: pd.DataFrame) -> dict:
    """The epochs, training images, batch size, seeds and commits of runs and the paper's epochs, for the
    captions."""
    images = int(runs["cfg.data.train_size"].fillna(PAPER["train_images"]).max())  # null: all of MNIST's
    seeds = ", ".join(str(int(s)) for s in sorted(runs.seed.unique()))
    epochs, batch = int(runs.epochs.max()), int(runs["cfg.data.batch_size"].max())
    paper = {"paper_epochs": paper_run(BASE).trainer.epochs, "commits": run_table.commits(runs)}
    return {"epochs": epochs, "images": images, "batch": batch, "seeds": seeds, **paper}


def observations(accuracy: pd.DataFrame, curves: pd.DataFrame) -> str:
    """What our runs show beside the claims table: Euclidean Adam's plateau (the paper's 1.34), from the
    accuracy table's data and the mean curves."""
    if not (accuracy.setup == "adam_euclidean").any():
        return ""
    e, c = accuracy[accuracy.setup == "adam_euclidean"].iloc[0], curves[curves.setup == "adam_euclidean"]
    spread = c.train_loss.tail(max(1, len(c) // 2)).agg(lambda x: x.max() - x.min())
    collapse = text("one_class", **e, uniform=PAPER["uniform_loss"], plateau=PAPER["plateau"])
    return f"- {text('plateau', **e, spread=spread)} {collapse if e.one_class_seeds else text('no_one_class')}\n"


def make(
    runs_dir: Path, profile: str, out: Path, seeds=None, overrides=(), reference: Path | None = None
) -> list[Path]:
    """Write fig3a, fig3b, table2, accuracy, authors_curves (with the authors' curves at `reference`, default
    reference_dir()), claims, section, drift and timing tables and summary.md into `out`."""
    reference = reference_dir() if reference is None else reference
    if (theirs := authors_curves(reference, AUTHORS)) is None and (out / "authors_curves.csv").is_file():
        raise FileNotFoundError(text("no_authors_reference", reference=reference, out=out))
    run_table.export(runs_dir, "brantner", profile, out)
    per_seed, curves = load(out, profile, seeds, overrides)
    if (fig3 := per_seed[per_seed.setup.isin(SETUPS)] if len(per_seed) else per_seed).empty:
        raise FileNotFoundError(text("no_runs", runs=runs_dir, profile=profile))
    for name in ("fig3a", "fig3b"):  # the setups of each: the variants experiment=brantner/<name> sweeps
        shown = [v.removeprefix("brantner/") for v in sweep_values(f"brantner/{name}", "variant")]
        title = text(name, profile=profile)
        drawn.fig3(fig3, curves, {s: SETUPS[s] for s in shown}, title, out / name, PAPER["uniform_loss"], theirs)
    data = {name: summarised(name, fig3) for name in ("table2", "accuracy")}
    data |= {"authors_curves": curves_table(curves, theirs)} if theirs else {}
    caption = text("budget", profile=profile, **_budget(fig3))
    md = {name: _written(out, name, table, caption) for name, table in data.items()}
    md["authors_curves"] = text("authors_curves", table=md["authors_curves"]) + "\n\n" if theirs else ""
    env, claims = per_seed.iloc[0], provenance.write(out, "claims", verdicts(per_seed, out), per_seed, "brantner")
    cuda = env.get("env.cuda") if isinstance(env.get("env.cuda"), str) and env["env.cuda"] else "none"
    machine = {"cpus": env.get("env.cpu_count", "?"), "torch": env.get("env.torch", "?"), "cuda": cuda}
    fields = {"claims": claims, "shows": observations(data["accuracy"], curves)}
    dashed, epochs = text("dashed") if theirs else "", int(data["accuracy"].epochs.max())
    parts = [text("summary", profile=profile, epochs=epochs, dashed=dashed, **fields, **machine, **md), ""]
    if (out / "authors_networks.md").is_file():  # written by `noneuclid.evaluate authors-networks`
        parts += ["#" + (out / "authors_networks.md").read_text(), ""]
    if len(sections := per_seed[per_seed.setup.str.startswith("section_")]):
        section = summarised("section", sections)
        parts.append(table_engine.section("brantner", out, "section", section, profile=profile, **_budget(sections)))
    parts += [s for s in (evaluated.drift_section(out), evaluated.timing_section(out)) if s]
    (out / "summary.md").write_text("\n".join(parts))
    return sorted(out.iterdir())


def _written(out: Path, name: str, data: pd.DataFrame, caption: str) -> str:
    """Table `name` of `data` written into `out` under `caption`; its display in Markdown for summary.md."""
    shown = table_engine.displayed("brantner", name, data)
    tables.write(out, name, data, shown, text(f"{name}_title"), caption)
    return shown.to_markdown(index=False)
