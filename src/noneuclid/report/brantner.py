"""Brantner's Fig. 3a/3b, Table 2 and the test accuracies, redrawn from run folders.

    python -m noneuclid.report brantner [--runs runs] [--profile cpu] [--out results/brantner/<profile>]
"""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from noneuclid.config import compose  # noqa: E402
from noneuclid.report import aggregate, figures  # noqa: E402
from noneuclid.train.run_dir import RunDir  # noqa: E402

# The four runs of the paper (configs/variant/brantner/<name>.yaml) -> label and published numbers
# (REFERENCE.md section 1: Table 2 minutes for 500 epochs; the authors' documentation run).
SETUPS = {
    "adam_euclidean": dict(label="Adam", color="tab:blue", gpu_min=44, cpu_min=2783, acc=9.74, loss=1.3436),
    "adam_stiefel": dict(label="Adam + Stiefel", color="tab:orange", gpu_min=153, cpu_min=2855, acc=86.13, loss=0.254),
    "gd_stiefel": dict(label="Gradient + Stiefel", color="tab:blue", gpu_min=144, cpu_min=2370, acc=55.18, loss=0.766),
    "momentum_stiefel": dict(label="Momentum + Stiefel", color="tab:green", gpu_min=148, cpu_min=2369, acc=63.51, loss=0.694),
}
UNIFORM_LOSS = math.sqrt(0.9)  # every class 1/10


def expected_folders(runs_dir: Path, profile: str, seeds, overrides=()) -> dict[str, str]:
    """The run folder of each setup and seed, as `experiment=brantner/table2 <overrides>` makes it:
    composed from the configs, so a run with other settings (another lr, a Cayley retraction) is
    never mixed in."""
    folders = {}
    for variant in SETUPS:
        for seed in seeds:
            cfg = compose([f"profile={profile}", f"variant=brantner/{variant}", f"seed={seed}",
                           f"paths.runs_dir={runs_dir}", *overrides])
            folders[str(RunDir(cfg).path)] = variant
    return folders


def load(runs_dir: Path, profile: str, seeds=(0,), overrides=()) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The finished runs of the paper's four setups (one row per setup: the mean over seeds) and
    their training curves (mean over seeds per epoch)."""
    folders = expected_folders(runs_dir, profile, seeds, overrides)
    runs = aggregate.runs([runs_dir / "brantner" / profile])
    if runs.empty:
        return runs, pd.DataFrame()
    runs = runs[(runs.status == "done") & runs.path.isin(list(folders))].copy()
    if runs.empty:
        return runs, pd.DataFrame()
    runs["setup"] = runs.path.map(folders)
    curves = aggregate.curves([Path(p) for p in runs.path])
    curves["setup"] = curves.run.map(dict(zip(runs.run, runs.setup)))
    curves = curves.groupby(["setup", "epoch"], as_index=False)["train_loss"].mean()
    numeric = [c for c in runs.select_dtypes("number").columns if not c.startswith(("cfg.", "env."))]
    table = runs.groupby("setup")[numeric].mean()
    table["seeds"] = runs.groupby("setup").size()
    table = table.join(runs.groupby("setup")[["env.processor", "env.cpu_count", "env.torch", "env.cuda"]].first())
    return table.reset_index(), curves


def figure(runs, curves, setups, title: str, out: Path) -> None:
    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    for setup in setups:
        match = runs[runs.setup == setup]
        if match.empty:
            continue
        c = curves[curves.setup == setup]
        ax.plot(c.epoch, c.train_loss, label=SETUPS[setup]["label"], color=SETUPS[setup]["color"])
    ax.axhline(UNIFORM_LOSS, ls=":", color="grey", lw=1)
    ax.text(ax.get_xlim()[0], UNIFORM_LOSS, " uniform output", va="bottom", fontsize=7, color="grey")
    ax.set(xlabel="epoch", ylabel="training loss  ||Ŷ-Y||_F / ||Y||_F", title=title)
    ax.legend()
    fig.tight_layout()
    figures.save(fig, out)


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
                     "paper CPU min": ref["cpu_min"], "paper CPU ratio": round(ref["cpu_min"] / 2783, 3),
                     "paper GPU min": ref["gpu_min"], "paper GPU ratio": round(ref["gpu_min"] / 44, 3)})
    return pd.DataFrame(rows)


def accuracy(runs) -> pd.DataFrame:
    rows = []
    for setup, ref in SETUPS.items():
        r = runs[runs.setup == setup]
        if r.empty:
            rows.append({"run": ref["label"], "test accuracy % (ours)": None})
            continue
        r = r.iloc[0]
        collapsed = r.final_test_top_class_share > 0.99
        rows.append({"run": ref["label"], "epochs": int(r.epochs), "seeds": int(r.seeds),
                     "test accuracy % (ours)": round(100 * r.final_test_accuracy, 2),
                     "final train loss (ours)": round(r.final_train_loss, 4),
                     "predicts one class": f"yes, class {int(r.final_test_top_class)}" if collapsed else "no",
                     "max abs(YᵀY - I) (all epochs)": f"{r.max_orthonormality_error:.1e}" if "stiefel" in setup else "-",
                     "paper test accuracy % (500 ep.)": ref["acc"], "paper final train loss": ref["loss"]})
    return pd.DataFrame(rows)


def claims(runs, curves) -> list[str]:
    """The paper's claims, checked against our numbers (sentences made from the data)."""
    get = {s: runs[runs.setup == s].iloc[0] for s in SETUPS if not runs[runs.setup == s].empty}
    out = []
    if "adam_euclidean" in get:
        e = get["adam_euclidean"]
        c = curves[curves.setup == "adam_euclidean"]
        spread = c.train_loss.tail(max(1, len(c) // 2)).agg(lambda x: x.max() - x.min())
        share = e.final_test_top_class_share
        out.append(
            f"Euclidean Adam plateaus: over the last half of its {int(e.epochs)} epochs the training loss "
            f"moves by {spread:.4f} around {e.final_train_loss:.4f}. "
            + (f"It predicts class {int(e.final_test_top_class)} for {100 * share:.1f} % of the test set "
               f"(test accuracy {100 * e.final_test_accuracy:.2f} %): a constant output, not the uniform "
               f"'maximum entropy' one (that would give {UNIFORM_LOSS:.3f}). For comparison, the paper's "
               f"1.34 is the loss of always predicting class 8 (9.74 % of the test set)."
               if share > 0.99 else f"It is not a constant output (top class share {100 * share:.1f} %)."))
    if "adam_euclidean" in get and "adam_stiefel" in get:
        e, s = get["adam_euclidean"], get["adam_stiefel"]
        verdict = "reproduces" if s.final_train_loss < e.final_train_loss - 0.1 else "does not reproduce"
        out.append(f"Stiefel Adam trains below Euclidean Adam: final training loss {s.final_train_loss:.4f} vs "
                   f"{e.final_train_loss:.4f}, test accuracy {100 * s.final_test_accuracy:.2f} % vs "
                   f"{100 * e.final_test_accuracy:.2f} % ({verdict}).")
    trio = ["adam_stiefel", "momentum_stiefel", "gd_stiefel"]
    if all(t in get for t in trio):
        losses = [get[t].final_train_loss for t in trio]
        ordered = losses[0] < losses[1] < losses[2]
        out.append("On Stiefel, Adam beats Momentum beats GD: final training losses "
                   + ", ".join(f"{SETUPS[t]['label']} {l:.4f}" for t, l in zip(trio, losses))
                   + (" (reproduces)." if ordered else " (the ordering does not reproduce at this budget)."))
    return out


def make(runs_dir: Path, profile: str, out: Path, seeds=(0,), overrides=()) -> list[Path]:
    """Write fig3a, fig3b (PNG + PDF), table2 and accuracy (CSV + Markdown) and summary.md from the
    runs of `python -m noneuclid.train -m experiment=brantner/table2 profile=<profile> <overrides>`."""
    runs, curves = load(runs_dir, profile, seeds, overrides)
    if runs.empty:
        raise FileNotFoundError(f"no finished brantner runs under {runs_dir}/brantner/{profile}: run "
                                f"`make reproduce-brantner PROFILE={profile}` first")
    out.mkdir(parents=True, exist_ok=True)
    epochs = int(runs.epochs.max())
    figure(runs, curves, ["adam_euclidean", "adam_stiefel"],
           f"Fig. 3a: Adam, Euclidean vs Stiefel ({profile} profile)", out / "fig3a")
    figure(runs, curves, ["gd_stiefel", "momentum_stiefel", "adam_stiefel"],
           f"Fig. 3b: optimizers on Stiefel ({profile} profile)", out / "fig3b")
    tables = {"table2": table2(runs), "accuracy": accuracy(runs)}
    for name, df in tables.items():
        df.to_csv(out / f"{name}.csv", index=False)
        (out / f"{name}.md").write_text(df.to_markdown(index=False) + "\n")
    env = runs.iloc[0]
    lines = [
        f"# Brantner, Adam on manifolds: our runs ({profile} profile, {epochs} epochs)", "",
        f"Made by `make reproduce-brantner PROFILE={profile}` "
        f"(`python -m noneuclid.train -m experiment=brantner/table2 profile={profile}`, then "
        f"`python -m noneuclid.report brantner --profile {profile}`).",
        f"Machine: {env.get('env.processor', '?')}, {env.get('env.cpu_count', '?')} CPUs, "
        f"torch {env.get('env.torch', '?')}, CUDA: {env.get('env.cuda') or 'none'}.", "",
        "## What reproduces", "", *[f"- {c}" for c in claims(runs, curves)], "",
        "## Fig. 3a and 3b (training loss per epoch)", "", "![fig3a](fig3a.png) ![fig3b](fig3b.png)", "",
        "## Test accuracy (the paper's numbers are after 500 epochs)", "", tables["accuracy"].to_markdown(index=False), "",
        "## Table 2: time per epoch (median over epochs), ratio to Euclidean Adam", "",
        tables["table2"].to_markdown(index=False), "",
    ]
    (out / "summary.md").write_text("\n".join(lines))
    return sorted(out.iterdir())
