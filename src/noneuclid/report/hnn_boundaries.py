"""The figure of Ganea et al.'s Table 2 classifiers in the 2-D Poincare ball (the paper draws none). Its data
are committed beside it, so that a fresh clone redraws it without the run folders: POINTS (the 2-D
embedding's points to 4 decimals, and for each subtree whether a point lies in it) and WEIGHTS (the seed-0
classifiers' weights, one row per number), both written from the run folders' checkpoints where they are
(runs.hnn_table2.export_boundaries)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import torch  # noqa: E402

from noneuclid.data import wordnet  # noqa: E402
from noneuclid.models.mlr import GEOMETRIES, PointMLR  # noqa: E402
from noneuclid.report import figures, prose  # noqa: E402
from noneuclid.report.hnn_claims import CLASSIFIERS  # noqa: E402
from noneuclid.runs.hnn_table2 import POINTS, WEIGHTS  # noqa: E402

COLORS = {"hyperbolic": "tab:red", "euclidean": "tab:blue", "euclidean_log0": "tab:green"}
STEM = "fig_table2_boundaries"


def draw(values: pd.DataFrame, root: Path, out: Path) -> None:
    """fig_table2_boundaries.{png,pdf,md} in `out` from its data there (written from the run folders under
    `root` where they are). Without the data, where `values` have 2-D runs, says so."""
    if not ((out / POINTS).is_file() and (out / WEIGHTS).is_file()):
        if not values[values.dim == 2].empty:
            print(prose.fill("hnn", "boundaries_not_drawn", stem=out / STEM, points=POINTS, weights=WEIGHTS, root=root))
        return
    figure(pd.read_csv(out / POINTS), pd.read_csv(out / WEIGHTS), out)


def figure(points: pd.DataFrame, weights: pd.DataFrame, out: Path) -> None:
    """Per subtree, the 2-D ball with its points and each classifier's decision boundary (logit difference 0
    on a grid); the caption (.md) names each boundary outside the ball (no sign change inside it)."""
    xy = torch.tensor(points[["x", "y"]].to_numpy())  # [nodes, 2]
    grid = torch.linspace(-1, 1, 401, dtype=torch.float64)
    gx, gy = torch.meshgrid(grid, grid, indexing="xy")
    inside = gx ** 2 + gy ** 2 < 0.999
    at = torch.stack([gx, gy], -1) * inside[..., None]  # [401, 401, 2]; outside the ball: masked below
    fig, axes = plt.subplots(1, len(wordnet.SUBTREES), figsize=(4 * len(wordnet.SUBTREES), 4.4),
                             constrained_layout=True)
    outside = []
    for ax, subtree in zip(axes, wordnet.SUBTREES):
        pos = torch.tensor(points[subtree].to_numpy() == 1)
        ax.add_patch(plt.Circle((0, 0), 1, fill=False, lw=0.8))
        ax.scatter(*xy[~pos].T, s=0.2, c="0.75", rasterized=True, label="other nouns")
        ax.scatter(*xy[pos].T, s=0.5, c="k", rasterized=True, label="subtree")
        for geometry in GEOMETRIES:
            rows = weights[(weights.subtree == subtree) & (weights.geometry == geometry)]
            if rows.empty:
                continue
            margin = _margin(rows, at).masked_fill(~inside, float("nan"))
            if not (margin[inside] > 0).any() or not (margin[inside] < 0).any():
                outside.append(prose.fill("hnn", "boundary_outside", subtree=subtree, classifier=CLASSIFIERS[geometry],
                                          side="in" if (margin[inside] > 0).all() else "out of"))
            else:
                ax.contour(gx, gy, margin, levels=[0], colors=COLORS[geometry], linewidths=1.2)
            ax.plot([], [], c=COLORS[geometry], label=CLASSIFIERS[geometry])
        ax.set(xlim=(-1.02, 1.02), ylim=(-1.02, 1.02), aspect="equal", title=f"{subtree} (2-D)")
        ax.axis("off")
        ax.legend(fontsize=6, loc="lower left", markerscale=8)
    fig.suptitle(prose.fill("hnn", "boundaries_title"), fontsize=9)
    figures.save(fig, out / STEM)
    (out / f"{STEM}.md").write_text("".join(f"{line}\n" for line in [prose.fill("hnn", "boundaries_image"), "",
                                                                      *outside]))


@torch.no_grad()
def _margin(rows: pd.DataFrame, at: torch.Tensor) -> torch.Tensor:
    """The classifier of `rows` (one per weight) as its logit difference (subtree - rest) at the points at [..., 2]."""
    offsets = rows.offsets.iloc[0]
    model = PointMLR(2, rows.geometry.iloc[0], offsets=None if pd.isna(offsets) else bool(offsets)).double()
    state = model.state_dict()
    for name, group in rows.groupby("tensor"):
        state[name] = torch.tensor(group.sort_values("index").value.to_numpy()).reshape(state[name].shape)
    model.load_state_dict(state)
    logits = model(at)
    return logits[..., 1] - logits[..., 0]
