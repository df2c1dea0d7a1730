"""Brantner's orthonormality over the paper's number of steps, redrawn from the CSVs that `python -m
noneuclid.evaluate drift` writes (no optimizer runs here): our optimizers' max |Y^T Y - I| over the
projections against steps (drift.csv), the authors' 500-epoch networks at the paper's last step
(drift_authors.csv) and the claim's bound (claims/brantner.yaml), as drift.png/.pdf and the table
drift_summary (CSV, Markdown, LaTeX); the float32 error one update adds, ours against the update as
the paper writes it (drift_one_step.csv, shown as drift_one_step.md and .tex); and the claim's cells
of arms drift_<optimizer> (per seed, the max at the last step, of the paper's retraction) and
authors_<optimizer> (one exact value, its interval gamma_N = N u / (1 - N u), u the float32 unit
roundoff, N the projections' rows: claims.engine.judge_exact).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from noneuclid.claims import engine  # noqa: E402
from noneuclid.config import compose  # noqa: E402
from noneuclid.report import figures, prose, tables  # noqa: E402

COLORS = {"adam": "tab:orange", "momentum": "tab:green", "gd": "tab:blue"}  # as fig3b's setups
LABELS = {"adam": "Adam", "momentum": "Momentum", "gd": "Gradient"}
STYLES = {"geodesic": "-", "cayley": "--"}


def load(out: Path) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """(ours, authors) from out/drift.csv and out/drift_authors.csv; None where either is missing."""
    files = out / "drift.csv", out / "drift_authors.csv"
    return tuple(pd.read_csv(f) for f in files) if all(f.is_file() for f in files) else None


def figure(ours: pd.DataFrame, authors: pd.DataFrame, bound: float, stem: Path) -> None:
    """max_dev against steps, log y: per optimizer and retraction the mean over seeds (the range of the
    seeds shaded); the authors' networks as points at their last step; the bound as a dotted line."""
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for (name, retraction), runs in ours.groupby(["optimizer", "retraction"], sort=False):
        by_step = runs.groupby("step").max_dev
        seeds = runs.seed.nunique()
        ax.plot(by_step.mean().index, by_step.mean(), STYLES[retraction], color=COLORS[name], lw=1.2,
                label=f"{LABELS[name]}, {retraction} (ours, {seeds} seed{'s' * (seeds > 1)})")
        if seeds > 1:
            ax.fill_between(by_step.min().index, by_step.min(), by_step.max(), color=COLORS[name], alpha=0.15, lw=0)
    for row in authors.itertuples():
        ax.plot(row.step, row.max_dev, "*", ms=11, color=COLORS[row.optimizer], markeredgecolor="black",
                label=f"{LABELS[row.optimizer]} (authors' network, {row.file})")
    ax.axhline(bound, ls=":", color="black", lw=1)
    ax.text(0, bound, f" the claim's bound, {bound:.3g}", va="bottom", fontsize=7)
    ax.set(yscale="log", xlabel="optimizer step", ylabel="max |YᵀY - I| over the projections",
           title="Orthonormality drift of the attention projections, float32")
    ax.legend(fontsize=6.5, loc="upper left")
    fig.tight_layout()
    figures.save(fig, stem)


def summary(ours: pd.DataFrame, authors: pd.DataFrame, bound: float) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(data, shown): per optimizer and retraction, at the last step, the max and median over the
    projections (mean and range over seeds), the authors' network's and the bound."""
    last = ours[ours.step == ours.step.max()]
    data = (last.groupby(["optimizer", "retraction", "section"], sort=False)
            .agg(seeds=("seed", "nunique"), step=("step", "first"), max_dev_mean=("max_dev", "mean"),
                 max_dev_min=("max_dev", "min"), max_dev_max=("max_dev", "max"),
                 median_dev_mean=("median_dev", "mean")).reset_index()
            .merge(authors[["optimizer", "max_dev", "median_dev"]].rename(
                columns={"max_dev": "authors_max_dev", "median_dev": "authors_median_dev"}), on="optimizer")
            .assign(bound=bound))
    shown = pd.DataFrame({
        "optimizer": data.optimizer.map(LABELS), "retraction": data.retraction, "section": data.section,
        "seeds": data.seeds, "step": data.step.map("{:,}".format),
        "max (ours)": [f"{m:.2e} [{lo:.2e}, {hi:.2e}]" if s > 1 else f"{m:.2e}"
                       for m, lo, hi, s in zip(data.max_dev_mean, data.max_dev_min, data.max_dev_max, data.seeds)],
        "median (ours)": data.median_dev_mean.map("{:.2e}".format),
        "max (authors)": data.authors_max_dev.map("{:.2e}".format),
        "median (authors)": data.authors_median_dev.map("{:.2e}".format),
        "bound": data.bound.map("{:.2e}".format)})
    return data, shown


def make(out: Path, bound: float) -> tuple[list[Path], str]:
    """drift.png/.pdf and drift_summary.csv/.md/.tex in `out` from its drift CSVs; returns the files and
    the Markdown section for summary.md ([] and "" when the CSVs are missing)."""
    loaded = load(out)
    if loaded is None:
        return [], ""
    ours, authors = loaded
    figure(ours, authors, bound, out / "drift")
    data, shown = summary(ours, authors, bound)
    title = prose.fill("brantner", "drift_title")
    text = prose.fill("brantner", "drift_caption", projections=authors.projections.iloc[0], steps=ours.step.max())
    written = tables.write(out, "drift_summary", data, shown, title, text)
    section = [f"## {title}", "", text, "", tables.markdown(shown), "", "![drift](drift.png)", ""]
    steps_written, steps_section = write_one_step(out)
    return [out / "drift.png", out / "drift.pdf", *written, *steps_written], "\n".join(section + steps_section)


def write_one_step(out: Path) -> tuple[list[Path], list[str]]:
    """drift_one_step.md and .tex from out/drift_one_step.csv (the CSV is evaluate's), and its lines for
    summary.md; nothing where the CSV is missing."""
    if not (out / "drift_one_step.csv").is_file():
        return [], []
    shown, text = one_step(pd.read_csv(out / "drift_one_step.csv"))
    title = prose.fill("brantner", "one_step_title")
    (out / "drift_one_step.md").write_text(f"# {title}\n\n{text}\n\n{tables.markdown(shown)}\n")
    (out / "drift_one_step.tex").write_text(tables.latex(shown, f"{title}. {text}", "tab:drift_one_step"))
    return [out / "drift_one_step.md", out / "drift_one_step.tex"], [f"## {title}", "", text, "",
                                                                      tables.markdown(shown), ""]


def one_step(steps: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """(shown, caption) of drift_one_step.csv (evaluate.paper_step): per update, complement and
    retraction, the median, 99th percentile and maximum over the samples of max |Y_newᵀY_new - YᵀY|."""
    shown = steps[["update", "complement", "retraction"]].assign(
        **{name: steps[column].map("{:.1e}".format) for name, column in
           (("median", "median_change"), ("99th percentile", "q99_change"), ("max", "max_change"))})
    return shown, prose.fill("brantner", "one_step_caption", samples=steps.samples.iloc[0], lr=steps.lr.iloc[0])


def float32_rounding(n: int) -> float:
    """gamma_n = n u / (1 - n u), u = 2^-24: the rounding bound of a float32 inner product of length n."""
    u = float(np.finfo(np.float32).eps) / 2
    return n * u / (1 - n * u)


@lru_cache
def paper_settings(optimizer: str) -> tuple[str, int]:
    """The retraction and the projections' rows N (model.dim) of the paper's run of `optimizer`."""
    cfg = compose(["profile=paper", f"variant=brantner/{optimizer}_stiefel"])
    return cfg.optim.retraction, cfg.model.dim


def verdict(claim, cell, out: Path | None) -> engine.Verdict:
    """The verdict of a cell of arm drift_<optimizer> or authors_<optimizer> (module doc) from out's CSVs."""
    loaded = load(out) if out is not None else None
    if loaded is None:
        return engine.untestable(claim, cell, "no drift.csv and drift_authors.csv: run "
                                 "`python -m noneuclid.evaluate drift`")
    ours, authors = loaded
    kind, name = cell.arms[0].split("_", 1)
    retraction, rows = paper_settings(name)
    if kind == "authors":
        value = float(authors.loc[authors.optimizer == name, "max_dev"].iloc[0])
        return engine.judge_exact(claim, cell, value, float32_rounding(rows))
    runs = ours[(ours.optimizer == name) & (ours.retraction == retraction)]
    last, paper_steps = int(runs.step.max()), int(authors.step.iloc[0])
    if last != paper_steps:
        return engine.untestable(claim, cell, f"drift.csv ends at step {last:,}, not the paper's {paper_steps:,}")
    return engine.judge(claim, cell, list(runs[runs.step == last].sort_values("seed").max_dev))
