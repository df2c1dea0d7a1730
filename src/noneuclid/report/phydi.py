"""PHYDI's Tables 1 and 2 (convergence of PHResNets on CIFAR-10) and Fig. 4 (PHTransformers on
WikiText-2), redrawn from run folders.

    python -m noneuclid.report phydi [--runs runs] [--profile cpu]

Metrics, from each run's per-epoch validation curve:
    M1   epochs until the validation accuracy first reaches 80 % (mean +- standard error over seeds)
    M2   our reading of the paper's "epochs to beat a model with the proposed approach": the first epoch
         at which the PHYDI model's validation accuracy (mean over seeds) exceeds the compared model's
         (mean over seeds) at the same epoch
    Fig. 4: epochs until the validation perplexity first reaches <= 200, per depth; "diverged" when the
         loss became NaN/inf (the run folder holds DIVERGED), "not reached" otherwise.
"""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import NullFormatter  # noqa: E402
import pandas as pd  # noqa: E402

from noneuclid.report import aggregate, figures  # noqa: E402

M1_ACCURACY, PERPLEXITY = 0.80, 200.0
INITS = ("standard", "wkp", "phydi")
LABELS = {"standard": "PHResNet{d}", "wkp": "+ WKP", "phydi": "+ PHYDI"}
# The paper's Table 1: (depth, n) -> init -> (M1 mean, M1 s.e., M2); M2 is None for PHYDI itself.
PAPER_TABLE1 = {
    (18, 2): {"standard": (6.00, 0.58, 2), "wkp": (5.75, 0.25, 2), "phydi": (6.00, 0.00, None)},
    (50, 2): {"standard": (10.67, 1.20, 3), "wkp": (10.67, 0.67, 2), "phydi": (7.00, 0.58, None)},
    (152, 2): {"standard": (32.67, 2.03, 4), "wkp": (29.80, 3.68, 4), "phydi": (6.33, 1.33, None)},
    (18, 3): {"standard": (6.33, 0.33, 2), "wkp": (6.00, 0.00, 1), "phydi": (5.00, 0.58, None)},
    (50, 3): {"standard": (8.67, 1.20, 2), "wkp": (9.0, 0.58, 2), "phydi": (6.33, 0.67, None)},
    (152, 3): {"standard": (26.67, 1.76, 4), "wkp": (20.00, 2.12, 4), "phydi": (4.67, 0.33, None)},
    (18, 4): {"standard": (3.75, 0.48, 1), "wkp": (5.67, 0.67, 2), "phydi": (4.50, 0.50, None)},
    (50, 4): {"standard": (8.33, 0.88, 2), "wkp": (9.33, 0.88, 2), "phydi": (7.00, 1.15, None)},
    (152, 4): {"standard": (22.67, 3.71, 3), "wkp": (20.60, 1.60, 3), "phydi": (5.33, 0.33, None)},
}
# Table 2 (batch 128): (depth, n, lr) -> init -> (M1 mean, M1 s.e., M2)
PAPER_TABLE2 = {
    (18, 2, 0.1): {"standard": (21.86, 3.14, 3), "wkp": (17.17, 3.35, 3), "phydi": (10.00, 1.22, None)},
    (50, 2, 0.01): {"standard": (24.33, 2.19, 3), "wkp": (12.67, 1.67, 2), "phydi": (8.67, 0.88, None)},
    (18, 3, 0.1): {"standard": (20.50, 5.08, 3), "wkp": (12.83, 1.68, 3), "phydi": (8.00, 0.58, None)},
    (50, 3, 0.01): {"standard": (11.25, 2.56, 2), "wkp": (12.80, 3.89, 2), "phydi": (10.75, 2.25, None)},
    (18, 4, 0.1): {"standard": (21.40, 3.22, 3), "wkp": (20.67, 2.78, 2), "phydi": (8.80, 1.24, None)},
    (50, 4, 0.01): {"standard": (22.33, 8.67, 2), "wkp": (11.00, 0.58, 2), "phydi": (10.00, 1.00, None)},
}


def first_epoch(curve: pd.DataFrame, column: str, reached) -> int | None:
    """The first epoch whose `column` satisfies `reached`, or None."""
    hits = curve[curve[column].notna() & curve[column].map(reached)]
    return int(hits.epoch.min()) if len(hits) else None


def _runs(runs_dir: Path, profile: str, model: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(one row per run of `model`, one row per run and evaluated epoch) under runs/phydi/<profile>."""
    root = Path(runs_dir) / "phydi" / profile
    runs = aggregate.runs([root]) if root.exists() else pd.DataFrame()
    if runs.empty:
        return runs, pd.DataFrame()
    runs = runs[runs["cfg.model.name"] == model].copy()
    runs["diverged"] = [(Path(p) / "DIVERGED").exists() for p in runs.path]
    curves = aggregate.curves([Path(p) for p in runs.path]) if len(runs) else pd.DataFrame()
    if not curves.empty:
        curves = curves[curves["epoch"].notna() & curves.filter(like="val_").notna().any(axis=1)]
        curves = curves.drop_duplicates(["run", "epoch"], keep="last")
    return runs, curves


def _mean_se(values: list[float]) -> str:
    if not values:
        return "-"
    s = pd.Series(values, dtype=float)
    se = s.std(ddof=1) / math.sqrt(len(s)) if len(s) > 1 else 0.0
    return f"{s.mean():.2f} ± {se:.2f}"


def convergence_table(runs: pd.DataFrame, curves: pd.DataFrame, keys: list[str], paper: dict) -> pd.DataFrame:
    """One row per setting (keys) and init: M1 (mean +- s.e., runs that reached 80 %), M2, beside the paper."""
    rows = []
    if runs.empty:
        return pd.DataFrame()
    done = runs[runs.status == "done"]
    for setting, group in done.groupby([f"cfg.{k}" for k in keys], sort=True):
        mean_curves = {}
        for init, g in group.groupby("cfg.model.init"):
            c = curves[curves.run.isin(g.run)]
            mean_curves[init] = c.groupby("epoch").val_accuracy.mean()
        for init in INITS:
            g = group[group["cfg.model.init"] == init]
            if g.empty:
                continue
            m1 = [first_epoch(curves[curves.run == r], "val_accuracy", lambda a: a >= M1_ACCURACY) for r in g.run]
            reached = [m for m in m1 if m is not None]
            best = max(curves[curves.run.isin(g.run)].val_accuracy, default=float("nan"))
            m2 = None
            if init != "phydi" and "phydi" in mean_curves:
                both = pd.concat({"phydi": mean_curves["phydi"], "other": mean_curves[init]}, axis=1).dropna()
                beat = both[both.phydi > both.other]
                m2 = int(beat.index.min()) if len(beat) else None
            ref = paper.get(tuple(setting), {}).get(init)
            depth = dict(zip(keys, setting)).get("model.depth", "")
            rows.append({
                **{k.split(".")[-1]: v for k, v in zip(keys, setting)},
                "model": LABELS[init].format(d=depth),
                "M1 (ours)": _mean_se(reached) if reached else f"not reached (best {100 * best:.1f} %)",
                "reached 80 % / runs": f"{len(reached)}/{len(g)}",
                "best val acc % (ours)": round(100 * best, 1),
                "M2 (ours)": "-" if init == "phydi" else (m2 if m2 is not None else "never"),
                "epochs": int(g.epochs.max()),
                "M1 (paper)": f"{ref[0]:.2f} ± {ref[1]:.2f}" if ref else "",
                "M2 (paper)": "-" if ref and ref[2] is None else (ref[2] if ref else ""),
            })
    return pd.DataFrame(rows)


def fig4_table(runs: pd.DataFrame, curves: pd.DataFrame) -> pd.DataFrame:
    """One row per transformer run: depth, norm, n, epochs to validation perplexity <= 200 (or why not)."""
    rows = []
    for _, r in runs.iterrows():
        c = curves[curves.run == r.run]
        hit = first_epoch(c, "val_perplexity", lambda p: p <= PERPLEXITY) if "val_perplexity" in c else None
        outcome = hit if hit is not None else ("diverged" if r.diverged else
                                                "not reached" if r.status == "done" else "unfinished")
        rows.append({"depth": int(r["cfg.model.depth"]), "norm": r["cfg.model.norm"], "n": int(r["cfg.model.n"]),
                     "seed": int(r["cfg.seed"]), "epochs to ppl <= 200": outcome,
                     "best val ppl": round(float(c.val_perplexity.min()), 1) if len(c) else None,
                     "epochs run": int(c.epoch.max()) if len(c) else 0})
    return pd.DataFrame(rows).sort_values(["n", "norm", "depth", "seed"]) if rows else pd.DataFrame()


def fig4(table: pd.DataFrame, out: Path) -> None:
    """Left: epochs to perplexity <= 200 by depth (x: not reached / diverged, drawn at the top).
    Right: best validation perplexity by depth. One line per norm and n."""
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(10, 4))
    ceiling = max([int(e) for e in table["epochs run"]] + [1]) + 1
    for (norm, n), g in table.groupby(["norm", "n"]):
        g = g.groupby("depth").first().reset_index()
        y = [v if isinstance(v, int) else ceiling for v in g["epochs to ppl <= 200"]]
        line, = ax.plot(g.depth, y, marker="o", label=f"{norm}, n={n}")
        missed = [isinstance(v, str) for v in g["epochs to ppl <= 200"]]
        ax.scatter(g.depth[missed], [ceiling] * sum(missed), marker="x", s=60, color=line.get_color())
        bx.plot(g.depth, g["best val ppl"], marker="o", label=f"{norm}, n={n}", color=line.get_color())
    ax.set(xscale="log", xlabel="layers", ylabel="epochs to validation perplexity <= 200",
           title=f"x at {ceiling}: not reached or diverged")
    bx.set(xscale="log", yscale="log", xlabel="layers", ylabel="best validation perplexity")
    bx.axhline(PERPLEXITY, color="grey", lw=0.8, ls=":")
    depths = sorted(table.depth.unique())
    for a in (ax, bx):  # the depths themselves as ticks, not log-scale powers of ten
        a.set_xticks(depths, [str(d) for d in depths])
        a.xaxis.set_minor_formatter(NullFormatter())
    ax.legend(fontsize=7)
    fig.tight_layout()
    figures.save(fig, out)


def resnet_claims(name: str, table: pd.DataFrame, keys: list[str]) -> list[str]:
    """The paper's claim for the ResNets, per setting: PHYDI converges faster than standard and WKP
    initialisation. Where 80 % is reached (M1) it compares M1; otherwise the best validation accuracy
    within the epochs run, and M2 (the first epoch PHYDI's curve is above the other's)."""
    lines = []
    cols = [k.split(".")[-1] for k in keys]
    for setting, g in table.groupby(cols, sort=True):
        by = g.set_index(g.model.str.replace(r"PHResNet\d+", "standard", regex=True).str.replace("+ ", "").str.lower())
        if "phydi" not in by.index or len(by) < 2:
            continue
        others = [i for i in by.index if i != "phydi"]
        ahead = all(by.at["phydi", "best val acc % (ours)"] > by.at[i, "best val acc % (ours)"] for i in others)
        label = ", ".join(f"{c} {v}" for c, v in zip(cols, setting if isinstance(setting, tuple) else (setting,)))
        accs = ", ".join(f"{i} {by.at[i, 'best val acc % (ours)']} %" for i in ("standard", "wkp", "phydi") if i in by.index)
        m2 = ", ".join(f"{i} {by.at[i, 'M2 (ours)']}" for i in others)
        verdict = "PHYDI ahead, as in the paper" if ahead else "NOT reproduced at this scale"
        lines.append(f"- {name}, {label}: best validation accuracy {accs}; M2 (first epoch with PHYDI's curve above): {m2}: {verdict}.")
    if lines and table["reached 80 % / runs"].str.endswith("/1").all():
        lines.append("- One seed per cell: differences of a few points are within what another seed could change.")
    return lines


def fig4_claims(table: pd.DataFrame) -> list[str]:
    """The paper's three claims about Fig. 4, per n, from the best validation perplexity by depth
    (a diverged run counts as infinite), over the depths where all three norms have finished:
    PostNorm degrades or diverges with depth, PreNorm is best at the smallest depth, PHYDI is best at
    the largest."""
    lines = []
    finished = table[table["epochs to ppl <= 200"] != "unfinished"].assign(
        ppl=lambda t: t["best val ppl"].where(t["epochs to ppl <= 200"] != "diverged", math.inf))
    for n, g in finished.groupby("n"):
        best = g.groupby(["norm", "depth"]).ppl.min().unstack("depth")  # norm x depth
        if not {"post", "pre", "phydi"} <= set(best.index):
            continue
        best = best.loc[["post", "pre", "phydi"]].dropna(axis=1)
        if best.shape[1] < 2:
            continue
        low, high = best.columns.min(), best.columns.max()
        post = best.loc["post"]
        show = lambda v: "diverged" if v == math.inf else f"{v:.0f}"  # noqa: E731
        lines += [
            f"- n = {n}, PostNorm by depth: best perplexity {', '.join(f'{d}: {show(v)}' for d, v in post.items())}: "
            + ("worse with depth, as in the paper." if post[high] > post[low] else "NOT worse with depth at this scale."),
            f"- n = {n}, depth {low}: " + ", ".join(f"{m} {show(best.at[m, low])}" for m in best.index)
            + (": PreNorm best, as in the paper." if best[low].idxmin() == "pre"
               else f": {best[low].idxmin()} best, NOT PreNorm as in the paper."),
            f"- n = {n}, depth {high}: " + ", ".join(f"{m} {show(best.at[m, high])}" for m in best.index)
            + (": PHYDI best, as in the paper." if best[high].idxmin() == "phydi"
               else f": {best[high].idxmin()} best, NOT PHYDI as in the paper."),
        ]
    return lines


def _reductions(runs: pd.DataFrame, keys: dict[str, str]) -> str:
    """The settings of the runs that a profile reduces, as 'label: values'."""
    parts = []
    for key, label in keys.items():
        col = f"cfg.{key}"
        if col in runs:
            values = sorted(set(runs[col]), key=lambda v: (isinstance(v, str), v if v == v else 0))
            parts.append(f"{label} {', '.join(str(int(v)) if isinstance(v, float) and v.is_integer() else str(v) for v in values)}")
    return "; ".join(parts)


def make(runs_dir: Path, profile: str, out: Path, seeds=None, overrides=()) -> list[Path]:
    """Write table1, table2 (CSV + Markdown), fig4 (PNG + PDF) and summary.md from every run found
    under runs/phydi/<profile> (so seeds and training overrides are not chosen here)."""
    if seeds or overrides:
        raise ValueError("the phydi report reads every run under runs/phydi/<profile>: drop --seeds and overrides")
    resnets, resnet_curves = _runs(runs_dir, profile, "phresnet")
    transformers, transformer_curves = _runs(runs_dir, profile, "phtransformer")
    if resnets.empty and transformers.empty:
        raise FileNotFoundError(f"no phydi runs under {runs_dir}/phydi/{profile}: run `python -m noneuclid.train "
                                f"-m experiment=phydi/table1 profile={profile}` (and table2, fig4) first")
    out.mkdir(parents=True, exist_ok=True)
    lines = [f"# PHYDI: our runs ({profile} profile)", "",
             f"Made by `make reproduce-phydi PROFILE={profile}` (the sweeps experiment=phydi/table1, table2 and "
             f"fig4, then `python -m noneuclid.report phydi --profile {profile}`).", ""]
    if not resnets.empty:
        lines += ["Settings of the ResNet runs: " + _reductions(resnets, {
            "data.train_size": "training images (null = 50000)", "model.width_mult": "width x",
            "trainer.epochs": "epochs at most", "data.batch_size": "batch"}) + ".", ""]
        table1_runs = resnets[resnets["cfg.experiment_name"] == "phydi/table1"]
        table2_runs = resnets[resnets["cfg.experiment_name"] == "phydi/table2"]
        for name, runs_, keys, paper in (("table1", table1_runs, ["model.depth", "model.n"], PAPER_TABLE1),
                                         ("table2", table2_runs, ["model.depth", "model.n", "optim.lr"], PAPER_TABLE2)):
            table = convergence_table(runs_, resnet_curves, keys, paper)
            if table.empty:
                lines += [f"## {name}: no finished runs", ""]
                continue
            table.to_csv(out / f"{name}.csv", index=False)
            (out / f"{name}.md").write_text(table.to_markdown(index=False) + "\n")
            lines += [f"## {name.capitalize()}: epochs to 80 % validation accuracy (M1) and M2", "",
                      "What reproduces (PHYDI converges faster than standard and WKP initialisation):",
                      *resnet_claims(name.capitalize(), table, keys), "", table.to_markdown(index=False), ""]
    if not transformers.empty:
        table = fig4_table(transformers, transformer_curves)
        table.to_csv(out / "fig4.csv", index=False)
        (out / "fig4.md").write_text(table.to_markdown(index=False) + "\n")
        fig4(table, out / "fig4")
        lines += ["## Fig. 4: epochs until validation perplexity <= 200, by depth", "",
                  "Settings of the transformer runs: " + _reductions(transformers, {
                      "data.train_tokens": "training tokens (null = all)", "trainer.epochs": "epochs at most",
                      "model.depth": "depths"}) + ".", "",
                  "What reproduces (best validation perplexity by depth"
                  + ("" if (table["epochs to ppl <= 200"].map(type) == int).any() else "; no run reaches 200 here")
                  + "):",
                  *fig4_claims(table), "", table.to_markdown(index=False), "", "![Fig. 4](fig4.png)", ""]
    (out / "summary.md").write_text("\n".join(lines))
    return sorted(out.iterdir())
