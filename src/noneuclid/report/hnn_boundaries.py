"""The figure of Ganea et al.'s Table 2 classifiers in the 2-D Poincare ball (the paper draws none), from
the run folders' checkpoints."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import torch  # noqa: E402
from omegaconf import OmegaConf  # noqa: E402

from noneuclid.data import wordnet  # noqa: E402
from noneuclid.models.mlr import GEOMETRIES, PointMLR  # noqa: E402
from noneuclid.report import figures, prose  # noqa: E402
from noneuclid.report.hnn_claims import CLASSIFIERS  # noqa: E402

COLORS = {"hyperbolic": "tab:red", "euclidean": "tab:blue", "euclidean_log0": "tab:green"}


@torch.no_grad()
def draw(values: pd.DataFrame, emb: pd.DataFrame, root: Path, c, out: Path) -> None:
    """fig_table2_boundaries.{png,pdf} in `out`: per subtree, the 2-D ball with its points and the seed-0
    classifiers' decision boundaries (logit difference 0 on a grid), from their run folders under `root`,
    and its caption (.md) naming each boundary outside the ball (no sign change inside it). Without the
    folders, where there are 2-D runs, says why it is not redrawn (an earlier figure stays)."""
    seed0 = values[(values.dim == 2) & (values.seed == 0)]
    folders = [root / run for run in (*emb[emb.dim == 2].run, *seed0.run)]
    if seed0.empty or emb[emb.dim == 2].empty or not all((f / "checkpoint.pt").is_file() for f in folders):
        if not values[values.dim == 2].empty:
            left = "; the figure there is left as it is" if (out / "fig_table2_boundaries.png").is_file() else ""
            print(f"{out / 'fig_table2_boundaries'}: not redrawn: it needs the 2-D embedding's points and its "
                  f"classifiers' weights, which only their run folders' checkpoints hold (not under {root}){left}")
        return
    points = torch.load(folders[0] / "checkpoint.pt", map_location="cpu", weights_only=False)["model"]["weight"]
    h = wordnet.load(c.data.hierarchy, c.paths.generated_dir)
    grid = torch.linspace(-1, 1, 401, dtype=points.dtype)
    gx, gy = torch.meshgrid(grid, grid, indexing="xy")
    inside = gx ** 2 + gy ** 2 < 0.999
    xy = torch.stack([gx, gy], -1) * inside[..., None]  # [401, 401, 2]; outside the ball: masked below
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
            margin = _margin(root / row.run.iloc[0], geometry, xy, points.dtype).masked_fill(~inside, float("nan"))
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
    figures.save(fig, out / "fig_table2_boundaries")
    (out / "fig_table2_boundaries.md").write_text("".join(
        f"{line}\n" for line in [prose.fill("hnn", "boundaries_image"), "", *outside]))


def _margin(folder: Path, geometry: str, xy: torch.Tensor, dtype) -> torch.Tensor:
    """The trained classifier's logit difference (subtree - rest) at the points xy [..., 2]."""
    model = PointMLR(2, geometry, offsets=OmegaConf.load(folder / "config.yaml").model.get("offsets")).to(dtype)
    model.load_state_dict(torch.load(folder / "checkpoint.pt", map_location="cpu", weights_only=False)["model"])
    logits = model(xy)
    return logits[..., 1] - logits[..., 0]
