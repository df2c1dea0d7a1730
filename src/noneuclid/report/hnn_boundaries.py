"""The data of Table 2's boundary figure (figures.hnn.boundaries) beside it. POINTS: the 2-D embedding's
points to 4 decimals and, per subtree, whether a point lies in it; WEIGHTS: the seed-0 classifiers' weights,
one row per number (both exported from the run folders' checkpoints). GRID: each classifier of WEIGHTS
evaluated on SIZE x SIZE points over [-1, 1]^2 as its logit difference subtree - rest, the figure's zero
contour: one row per point (x, y), one column `<subtree> <classifier>` per classifier, empty outside the
ball (x^2 + y^2 >= 0.999). Only the corners of grid cells whose corners differ in sign decide where the
zero contour runs (marching squares interpolates along their edges); every other point keeps its sign
alone (+1 or -1), which keeps the file small."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import torch
from omegaconf import OmegaConf

from noneuclid.data import wordnet
from noneuclid.figures import hnn as drawn
from noneuclid.models.mlr import PointMLR
from noneuclid.report.hnn_claims import text
from noneuclid.runs.folder import CSV_COMPRESSION
from noneuclid.tables import FLOAT_FORMAT

POINTS, WEIGHTS = "fig_table2_boundaries_points.csv.gz", "fig_table2_boundaries_classifiers.csv"
GRID, SIZE = "fig_table2_boundaries_grid.csv.gz", 401


@torch.no_grad()
def export(values: pd.DataFrame, emb: pd.DataFrame, root: Path, cfg, out: Path) -> None:
    """POINTS and WEIGHTS in `out` from the checkpoints under `root` of the 2-D embedding of `emb` and the
    seed-0 classifiers of `values` (runs.hnn_table2.f1_values), with the subtrees of cfg.data.hierarchy (a
    composed Table 2 config); nothing where a folder is missing."""
    seed0 = values[(values.dim == 2) & (values.seed == 0)].sort_values(["subtree", "geometry"])
    folders = [root / run for run in (*emb[emb.dim == 2].run, *seed0.run)]
    if seed0.empty or emb[emb.dim == 2].empty or not all((f / "checkpoint.pt").is_file() for f in folders):
        return
    points = torch.load(folders[0] / "checkpoint.pt", map_location="cpu", weights_only=False)["model"]["weight"]
    h = wordnet.load(cfg.data.hierarchy, cfg.paths.generated_dir)
    members = {subtree: h.descendants(subtree).numpy().astype(int) for subtree in wordnet.SUBTREES}  # 1: in it
    table = pd.DataFrame(points.numpy(), columns=["x", "y"]).assign(**members)
    table.to_csv(out / POINTS, index=False, float_format="%.4f", compression=CSV_COMPRESSION)
    rows = []
    for r in seed0.itertuples():
        offsets = OmegaConf.load(root / r.run / "config.yaml").model.get("offsets")
        weights = torch.load(root / r.run / "checkpoint.pt", map_location="cpu", weights_only=False)["model"]
        classifier = {"subtree": r.subtree, "geometry": r.geometry, "run": r.run, "offsets": offsets}
        rows += [
            {**classifier, "tensor": name, "index": i, "value": v}
            for name, w in weights.items()
            for i, v in enumerate(w.flatten().tolist())
        ]
    pd.DataFrame(rows).to_csv(out / WEIGHTS, index=False, float_format="%.17g")


def grid(weights: pd.DataFrame) -> pd.DataFrame:
    """The GRID table of the classifiers of `weights` (WEIGHTS' rows), in their order."""
    axis = torch.linspace(-1, 1, SIZE, dtype=torch.float64)
    gx, gy = torch.meshgrid(axis, axis, indexing="xy")  # [SIZE, SIZE] each: row y, column x
    inside = gx**2 + gy**2 < 0.999
    at = torch.stack([gx, gy], -1) * inside[..., None]  # [SIZE, SIZE, 2]; outside the ball: masked below
    columns = {"x": gx.flatten().numpy(), "y": gy.flatten().numpy()}
    for (subtree, geometry), rows in weights.groupby(["subtree", "geometry"], sort=False):
        margin = _margin(rows, at).masked_fill(~inside, float("nan")).numpy()
        columns[f"{subtree} {geometry}"] = np.where(_at_sign_changes(margin), margin, np.sign(margin)).flatten()
    return pd.DataFrame(columns)


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


def _at_sign_changes(margin: np.ndarray) -> np.ndarray:
    """[SIZE, SIZE] bool: the corners of the grid cells whose four corners are not all on one side of 0."""
    corners = [(slice(None, -1), slice(None, -1)), (slice(1, None), slice(None, -1))]
    corners += [(rows, slice(1, None)) for rows, _ in corners]  # the four corners of each cell, [SIZE - 1] x 2
    above = np.stack([(margin > 0)[c] for c in corners])  # [4, SIZE - 1, SIZE - 1]
    mixed, kept = above.any(0) & ~above.all(0), np.zeros(margin.shape, bool)
    for c in corners:
        kept[c] |= mixed
    return kept


def figure(values: pd.DataFrame, emb: pd.DataFrame, root: Path, cfg, out: Path) -> str:
    """fig_table2_boundaries.{png,pdf,md} in `out` from its data there, exported first from the run folders
    under `root` where they are (export), its grid computed from them; without the data, where `values`
    have 2-D runs, says so. Returns the figure in words (fig_table2_boundaries.md, kept with it; '' without)."""
    export(values, emb, root, cfg, out)
    if (out / WEIGHTS).is_file():
        margins = grid(pd.read_csv(out / WEIGHTS))
        # at FLOAT_FORMAT's 10 digits: the last of 17 differ between CPUs by rounding, the committed file must not
        margins.to_csv(out / GRID, index=False, float_format=FLOAT_FORMAT, compression=CSV_COMPRESSION)
    if (out / POINTS).is_file() and (out / GRID).is_file():
        drawn.boundaries(pd.read_csv(out / POINTS), pd.read_csv(out / GRID), out)
    elif not values[values.dim == 2].empty:
        fields = {"stem": out / drawn.BOUNDARIES, "points": POINTS, "weights": WEIGHTS, "root": root}
        print(text("boundaries_not_drawn", **fields))
    caption = out / "fig_table2_boundaries.md"
    return caption.read_text() if caption.is_file() else ""
