"""Ganea et al.'s Table 2 (F1 of hyperbolic vs Euclidean MLR on WordNet noun subtrees), the
reconstruction quality of the Poincare embeddings it uses, and a figure of the learned decision
boundaries in the 2-D ball, redrawn from finished run folders only.

    python -m noneuclid.report.hnn_table2 [--runs runs] [--profile cpu]

writes results/hnn/<profile>/{table2.csv, table2.md, table2_embeddings.csv, fig_table2_boundaries.{png,pdf}}
and, for the cpu and paper profiles, copies table2.md into the hnn_table2 results block of docs/hnn.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import torch  # noqa: E402

from noneuclid.config import compose  # noqa: E402
from noneuclid.data import wordnet  # noqa: E402
from noneuclid.models.mlr import GEOMETRIES, PointMLR  # noqa: E402
from noneuclid.report import docs, figures  # noqa: E402
from noneuclid.report.estimates import t975  # noqa: E402
from noneuclid.runs import read_metrics  # noqa: E402

DIMS = (2, 3, 5, 10)
SEEDS = (0, 1, 2)
LABELS = {"hyperbolic": "hyperbolic MLR", "euclidean": "Euclidean MLR", "euclidean_log0": "Euclidean MLR on log_0"}
COLORS = {"hyperbolic": "tab:red", "euclidean": "tab:blue", "euclidean_log0": "tab:green"}
# Reconstruction of the noun closure by Poincare embeddings: Nickel & Kiela (2017), Table 1
RECONSTRUCTION_REFERENCE = {5: "4.9 / 0.823", 10: "4.02 / 0.851"}
NOT_AVAILABLE = "not available here"
# Table 2 tests the classifiers only on embeddings that reconstruct the hierarchy: a dimension whose
# embedding's MAP (all nouns) is below this, or was not evaluated, has its cells "not testable here".
MIN_EMBEDDING_MAP = 0.5


def _folder(runs_dir, profile: str, run_name: str) -> Path | None:
    """The run folder <runs_dir>/hnn/<profile>/<run_name>-<hash>, None if there is none; several
    (runs of other settings under the same name) are an error that says which to delete."""
    found = sorted((Path(runs_dir) / "hnn" / profile).glob(f"{run_name}-" + "[0-9a-f]" * 8))
    if len(found) > 1:
        raise ValueError(f"several run folders for {run_name}: {', '.join(map(str, found))}; delete the "
                         f"stale ones (their config.yaml says which settings they ran)")
    return found[0] if found else None


def embedding_folder(runs_dir, profile: str, hierarchy: str, dim: int) -> Path | None:
    return _folder(runs_dir, profile, f"poincare-{hierarchy}-d{dim}-s0")


def classifier_folder(runs_dir, profile: str, geometry: str, subtree: str, dim: int, seed: int) -> Path | None:
    return _folder(runs_dir, profile, f"mlr-{geometry}-{subtree}-d{dim}-s{seed}")


def embeddings(runs_dir, profile: str, hierarchy: str) -> pd.DataFrame:
    """One row per dimension: state, epochs, training minutes and the last reconstruction numbers."""
    rows = []
    for dim in DIMS:
        folder = embedding_folder(runs_dir, profile, hierarchy, dim)
        metrics = read_metrics(folder / "metrics.jsonl") if folder else []
        evaluated = [r for r in metrics if "reconstruction_map" in r]
        done = folder is not None and (folder / "DONE").exists()
        row = {"dim": dim, "state": "finished" if done else ("unfinished" if metrics else "not run"),
               "epochs": metrics[-1]["epoch"] if metrics else 0,
               "train minutes": round(sum(r["train_seconds"] for r in metrics if "train_seconds" in r) / 60, 1)}
        if evaluated:
            last = evaluated[-1]
            row.update({"evaluated at epoch": last["epoch"], "nodes ranked": last["reconstruction_nodes"],
                        "mean rank": round(last["reconstruction_mean_rank"], 2),
                        "MAP": round(last["reconstruction_map"], 3)})
        row["reference (mean rank / MAP)"] = RECONSTRUCTION_REFERENCE.get(dim, NOT_AVAILABLE)
        rows.append(row)
    return pd.DataFrame(rows)


def interval(values: list[float]) -> tuple[float, float]:
    """(mean, half-width of the 95 % Student-t interval of the mean; NaN for one value)."""
    s = pd.Series(values, dtype=float)
    if len(s) < 2:
        return float(s.mean()), float("nan")
    return float(s.mean()), float(t975(len(s) - 1) * s.std(ddof=1) / len(s) ** 0.5)


def f1_values(runs_dir, profile) -> pd.DataFrame:
    """One row per finished classifier run: subtree, dim, geometry, seed, test F1 (last epoch)."""
    rows = []
    for subtree in wordnet.SUBTREES:
        for dim in DIMS:
            for geometry in GEOMETRIES:
                for seed in SEEDS:
                    folder = classifier_folder(runs_dir, profile, geometry, subtree, dim, seed)
                    if folder is not None and (folder / "DONE").exists():
                        summary = json.loads((folder / "summary.json").read_text())
                        rows.append({"subtree": subtree, "dim": dim, "geometry": geometry, "seed": seed,
                                     "f1": summary["final_test_f1"], "folder": folder})
    return pd.DataFrame(rows, columns=["subtree", "dim", "geometry", "seed", "f1", "folder"])


def testable(emb_map: dict[int, float]) -> dict[int, str]:
    """dim -> why its cells cannot be tested (an empty string where they can), from the embedding's MAP."""
    return {dim: "" if emb_map.get(dim, 0.0) >= MIN_EMBEDDING_MAP else
            f"not testable here (embedding MAP {emb_map[dim]:.3f} < {MIN_EMBEDDING_MAP})" if dim in emb_map else
            "not testable here (embedding not evaluated)" for dim in DIMS}


def table2(values: pd.DataFrame, emb_map: dict[int, float]) -> pd.DataFrame:
    """One row per subtree and dimension: the embedding's MAP (the precondition) and 'mean ± 95 %
    half-width (n)' test F1 % per classifier, or why the cell is not testable."""
    rows, why = [], testable(emb_map)
    for subtree in wordnet.SUBTREES:
        for dim in DIMS:
            row = {"subtree": subtree, "dim": dim, "embedding MAP": emb_map.get(dim, float("nan"))}
            for geometry in GEOMETRIES:
                if why[dim]:
                    row[LABELS[geometry]] = why[dim]
                    continue
                f1 = values[(values.subtree == subtree) & (values.dim == dim) & (values.geometry == geometry)].f1
                if f1.empty:
                    row[LABELS[geometry]] = "not run"
                    continue
                mean, half = interval(list(100 * f1))
                row[LABELS[geometry]] = f"{mean:.2f} ± {half:.2f} (n={len(f1)})" if len(f1) > 1 else f"{mean:.2f} (n=1)"
            row["paper"] = NOT_AVAILABLE
            rows.append(row)
    return pd.DataFrame(rows)


def claims(values: pd.DataFrame, emb_map: dict[int, float]) -> list[str]:
    """The paper's claim per cell: hyperbolic MLR at least as good as both Euclidean ones (mean F1),
    and the margin over the better Euclidean one, by dimension; only on embeddings that pass the
    precondition (MIN_EMBEDDING_MAP)."""
    lines, margins = [], {}
    why = testable(emb_map)
    skipped = [f"- {dim}-D: {why[dim]}" for dim in DIMS if why[dim]]
    values = values[values.dim.map(lambda d: not why[d])]
    means = values.groupby(["subtree", "dim", "geometry"]).f1.mean().unstack("geometry") if len(values) else None
    means = means.dropna() if means is not None and set(GEOMETRIES) <= set(means.columns) else []
    if len(means) == 0:
        return ["Claim not checked: no testable cell has all three classifiers finished.", "", *skipped]
    held = 0
    for (subtree, dim), m in means.iterrows():
        margin = 100 * (m["hyperbolic"] - max(m["euclidean"], m["euclidean_log0"]))
        margins.setdefault(dim, []).append(margin)
        held += margin >= 0
        lines.append(f"- {subtree}, {dim}-D: hyperbolic {100 * m['hyperbolic']:.2f}, Euclidean {100 * m['euclidean']:.2f}, "
                     f"Euclidean on log_0 {100 * m['euclidean_log0']:.2f}: "
                     + ("hyperbolic >= both" if margin >= 0 else f"NOT reproduced (margin {margin:.2f})"))
    by_dim = ", ".join(f"{dim}-D {sum(v) / len(v):+.2f}" for dim, v in sorted(margins.items()))
    return [f"Hyperbolic MLR >= both Euclidean MLRs (mean test F1) in {held} of {len(means)} cells; mean margin "
            f"over the better Euclidean one, F1 points, by dimension: {by_dim} (the paper: largest in low "
            f"dimensions).", "", *lines, *skipped]


@torch.no_grad()
def figure(values: pd.DataFrame, runs_dir, profile: str, hierarchy: str, generated_dir, out: Path) -> list[str] | None:
    """For the 2-D embedding: the ball with each subtree's points against the rest and the decision
    boundaries (logit difference 0 on a grid) of the three classifiers trained with seed 0, a legend on
    every panel. Returns a sentence for each boundary that falls outside the ball (no sign change of
    the logit difference inside it), or None if there is no 2-D run to draw."""
    seed0 = values[(values.dim == 2) & (values.seed == 0)]
    if seed0.empty:
        return None
    points = torch.load(embedding_folder(runs_dir, profile, hierarchy, 2) / "checkpoint.pt", map_location="cpu",
                        weights_only=False)["model"]["weight"]
    h = wordnet.load(hierarchy, generated_dir)
    grid = torch.linspace(-1, 1, 401, dtype=points.dtype)
    gx, gy = torch.meshgrid(grid, grid, indexing="xy")
    inside = gx ** 2 + gy ** 2 < 0.999
    xy = torch.stack([gx, gy], -1) * inside[..., None]  # outside the ball: masked below
    fig, axes = plt.subplots(1, len(wordnet.SUBTREES), figsize=(4 * len(wordnet.SUBTREES), 4.4),
                             constrained_layout=True)
    outside = []
    for ax, subtree in zip(axes, wordnet.SUBTREES):
        pos = h.descendants(subtree)
        ax.add_patch(plt.Circle((0, 0), 1, fill=False, lw=0.8))
        ax.scatter(*points[~pos].T, s=0.2, c="0.75", rasterized=True, label="other nouns")
        ax.scatter(*points[pos].T, s=0.5, c="k", rasterized=True, label="subtree")
        for geometry in GEOMETRIES:
            row = seed0[(seed0.subtree == subtree) & (seed0.geometry == geometry)]
            if row.empty:
                continue
            margin = _margin(row.folder.iloc[0], geometry, xy, points.dtype).masked_fill(~inside, float("nan"))
            if not (margin[inside] > 0).any() or not (margin[inside] < 0).any():
                outside.append(f"{subtree}, {LABELS[geometry]}: the decision boundary lies outside the ball "
                               f"(every point is classified {'in' if (margin[inside] > 0).all() else 'out of'} the subtree).")
            else:
                ax.contour(gx, gy, margin, levels=[0], colors=COLORS[geometry], linewidths=1.2)
            ax.plot([], [], c=COLORS[geometry], label=LABELS[geometry])
        ax.set(xlim=(-1.02, 1.02), ylim=(-1.02, 1.02), aspect="equal", title=f"{subtree} (2-D)")
        ax.axis("off")
        ax.legend(fontsize=6, loc="lower left", markerscale=8)
    figures.save(fig, out)
    return outside


def _margin(folder: Path, geometry: str, xy: torch.Tensor, dtype) -> torch.Tensor:
    """The trained classifier's logit difference (subtree - rest) at the points xy [..., 2]."""
    model = PointMLR(2, geometry).to(dtype)
    model.load_state_dict(torch.load(folder / "checkpoint.pt", map_location="cpu", weights_only=False)["model"])
    logits = model(xy)
    return logits[..., 1] - logits[..., 0]


def settings(e, c) -> str:
    """The settings of the profile's embedding (e) and classifier (c) configs, in words."""
    return (f"Settings: embeddings {e.trainer.epochs} epochs, batches of {e.data.batch_size} edges x "
            f"{e.data.negatives} negatives, lr {e.optim.lr} ({e.optim.burnin_epochs} burn-in epochs at "
            f"x{e.optim.burnin_factor}), {e.trainer.dtype}, reconstruction on "
            f"{e.data.eval_nodes or 'all'} nodes (the reference code: 1500 epochs, batches of 50, lr 1.0); "
            f"classifiers {c.trainer.epochs} epoch(s) of balanced batches of {c.data.batch_size}, Adam lr "
            f"{c.optim.lr}, Riemannian SGD lr {c.optim.ball_lr} for p_k.")


def make(runs_dir: Path, profile: str, out: Path) -> list[Path]:
    """Write table2.{csv,md}, table2_embeddings.csv and fig_table2_boundaries.{png,pdf} into `out`."""
    e = compose(["experiment=hnn/poincare", f"profile={profile}"])
    c = compose(["experiment=hnn/table2", f"profile={profile}"])
    emb = embeddings(runs_dir, profile, c.data.hierarchy)
    values = f1_values(runs_dir, profile)
    if values.empty and not (emb.state == "finished").any():
        raise FileNotFoundError(f"no finished Table 2 runs under {runs_dir}/hnn/{profile}: run "
                                f"`python -m noneuclid.train -m experiment=hnn/poincare profile={profile}` and then "
                                f"`python -m noneuclid.train -m experiment=hnn/table2 profile={profile}` first")
    out.mkdir(parents=True, exist_ok=True)
    emb_map = {int(r.dim): float(r.MAP) for r in emb.itertuples() if "MAP" in emb and pd.notna(r.MAP)}
    table = table2(values, emb_map)
    table.to_csv(out / "table2.csv", index=False)
    emb.to_csv(out / "table2_embeddings.csv", index=False)
    drawn = figure(values, runs_dir, profile, c.data.hierarchy, c.paths.generated_dir, out / "fig_table2_boundaries")
    (out / "table2.md").write_text("\n".join([
        f"# Ganea et al., Table 2: hyperbolic vs Euclidean MLR on WordNet noun subtrees ({profile} profile)", "",
        f"Made by `python -m noneuclid.train -m experiment=hnn/poincare profile={profile}`, "
        f"`python -m noneuclid.train -m experiment=hnn/table2 profile={profile}` and "
        f"`python -m noneuclid.report.hnn_table2 --profile {profile}`, from finished runs only "
        f"({len(values)} of {len(wordnet.SUBTREES) * len(DIMS) * len(GEOMETRIES) * len(SEEDS)} classifier runs). "
        f"Test F1 % of the subtree class (last epoch), mean ± half-width of the 95 % Student-t interval over "
        f"the seeds. The paper's F1 values could not be retrieved here.", "", settings(e, c), "",
        "## Poincare embeddings of the noun closure (reconstruction)", "",
        emb.to_markdown(index=False), "",
        "## Table 2: test F1 %", "", table.to_markdown(index=False), "",
        "## The paper's claim", "", *claims(values, emb_map), "",
        *(["![decision boundaries in the 2-D ball](fig_table2_boundaries.png)", "", *drawn, ""]
          if drawn is not None else []),
    ]))
    return sorted(p for p in out.iterdir() if p.name.startswith(("table2", "fig_table2")))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m noneuclid.report.hnn_table2", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=Path, default=Path(os.environ.get("NONEUCLID_RUNS_DIR", "runs")))
    parser.add_argument("--profile", default="cpu")
    parser.add_argument("--results", type=Path, default=Path("results"))
    parser.add_argument("--docs", type=Path, default=Path("docs"),
                        help="folder of the reports: the Table 2 block of its hnn.md is refreshed (never for smoke)")
    args = parser.parse_args(argv)
    out = args.results / "hnn" / args.profile
    try:
        written = make(args.runs, args.profile, out)
    except (FileNotFoundError, ValueError) as e:
        print(f"error: hnn Table 2: {e}", file=sys.stderr)
        return 1
    for path in written:
        print(path)
    if args.profile != "smoke" and docs.update(args.docs, out, "hnn", block="hnn_table2", source="table2.md"):
        print(f"{docs.path(args.docs, 'hnn')}: Table 2 of hnn ({args.profile} profile) updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
