"""The data of Table 2's boundary figure (figures.hnn.boundaries) beside it: each seed-0 classifier of the
2-D embedding (runs.hnn_table2.WEIGHTS) evaluated on a grid of SIZE x SIZE points over [-1, 1]^2, as its
logit difference subtree - rest, the figure's zero contour. GRID: one row per grid point (x, y), one column
`<subtree> <classifier>` per classifier, empty outside the ball (x^2 + y^2 >= 0.999). Only the corners of
grid cells whose corners differ in sign decide where the zero contour runs (marching squares interpolates
along their edges); every other point keeps its sign alone (+1 or -1), which keeps the file small."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import torch

from noneuclid import prose
from noneuclid.figures import hnn as drawn
from noneuclid.models.mlr import PointMLR
from noneuclid.runs import hnn_table2 as table2_runs
from noneuclid.runs.folder import CSV_COMPRESSION
from noneuclid.runs.hnn_table2 import WEIGHTS

GRID, SIZE = "fig_table2_boundaries_grid.csv.gz", 401


def write(out: Path) -> None:
    """GRID in `out` from WEIGHTS there (nothing without them)."""
    if (out / WEIGHTS).is_file():
        grid(pd.read_csv(out / WEIGHTS)).to_csv(
            out / GRID, index=False, float_format="%.17g", compression=CSV_COMPRESSION
        )


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
    above = margin > 0
    corners = (above[:-1, :-1], above[1:, :-1], above[:-1, 1:], above[1:, 1:])  # each [SIZE - 1, SIZE - 1]
    mixed = ~((corners[0] == corners[1]) & (corners[0] == corners[2]) & (corners[0] == corners[3]))
    kept = np.zeros_like(above)
    for rows, cols in (
        (slice(None, -1), slice(None, -1)),
        (slice(1, None), slice(None, -1)),
        (slice(None, -1), slice(1, None)),
        (slice(1, None), slice(1, None)),
    ):
        kept[rows, cols] |= mixed
    return kept


def figure(values: pd.DataFrame, emb: pd.DataFrame, root: Path, cfg, out: Path) -> str:
    """fig_table2_boundaries.{png,pdf,md} in `out` from its data there, exported first from the run folders
    under `root` where they are (runs.hnn_table2.export_boundaries), its grid computed from them
    (write); without the data, where `values` have
    2-D runs, says so. Returns the figure in words (fig_table2_boundaries.md, kept with it; '' without)."""
    table2_runs.export_boundaries(values, emb, root, cfg, out)
    write(out)
    if (out / table2_runs.POINTS).is_file() and (out / GRID).is_file():
        drawn.boundaries(
            pd.read_csv(out / table2_runs.POINTS), pd.read_csv(out / GRID, float_precision="round_trip"), out
        )
    elif not values[values.dim == 2].empty:
        print(
            prose.fill(
                "hnn",
                "boundaries_not_drawn",
                stem=out / drawn.BOUNDARIES,
                points=table2_runs.POINTS,
                weights=table2_runs.WEIGHTS,
                root=root,
            )
        )
    caption = out / "fig_table2_boundaries.md"
    return caption.read_text() if caption.is_file() else ""
