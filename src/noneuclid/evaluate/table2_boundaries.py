"""The data of Table 2's boundary figure (figures.hnn.boundaries draws it; the paper draws none), from the run
folders of the 2-D embedding Table 2 shows and its seed-0 classifiers (runs.hnn_table2.shown):

- POINTS: the embedding's points to 4 decimals and, per subtree, whether a point lies in it;
- WEIGHTS: the classifiers' weights, one row per number;
- GRID: each classifier evaluated on SIZE x SIZE points over [-1, 1]^2 as its logit difference subtree - rest,
  the figure's zero contour: one row per point (x, y), one column `<subtree> <classifier>` per classifier,
  empty outside the ball (x^2 + y^2 >= 0.999). Only the corners of grid cells whose corners differ in sign
  decide where the zero contour runs (marching squares interpolates along their edges); every other point
  keeps its sign alone (+1 or -1), which keeps the file small.

    python -m noneuclid.evaluate table2-boundaries [--runs runs] [--profile cpu] [--out results/hnn/cpu]
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import torch
from omegaconf import OmegaConf

from noneuclid.config import compose
from noneuclid.data import wordnet
from noneuclid.figures.hnn import GRID, POINTS, WEIGHTS
from noneuclid.models.mlr import PointMLR
from noneuclid.runs import hnn_table2 as table2_runs, select, table as run_table
from noneuclid.runs.folder import CSV_COMPRESSION
from noneuclid.tables import FLOAT_FORMAT

SIZE = 401  # grid points per axis


def make(runs_dir: Path, profile: str, out: Path) -> list[Path]:
    """POINTS, WEIGHTS and GRID written into `out` from the run folders under runs_dir/hnn/<profile>; their paths.
    FileNotFoundError where the 2-D embedding or a seed-0 classifier has no finished folder with a checkpoint."""
    root = Path(runs_dir) / "hnn" / profile
    runs, curves = run_table.ended_runs(runs_dir, "hnn", profile)
    cfg = compose(["experiment=hnn/table2", f"profile={profile}"])
    values, emb, _ = table2_runs.shown(select.finished(runs), curves, profile, cfg.data)
    seed0 = values[(values.dim == 2) & (values.seed == 0)].sort_values(["subtree", "geometry"])
    embedding = emb[emb["cfg.model.dim"] == 2].run  # Table 2's one 2-D embedding, or none
    folders = [root / run for run in (*embedding, *seed0.run)]
    if seed0.empty or embedding.empty or not all((f / "checkpoint.pt").is_file() for f in folders):
        raise FileNotFoundError(
            f"no finished 2-D embedding and seed-0 Table 2 classifiers with checkpoints under {root}: train them "
            f"first, python -m noneuclid.train -m experiment=hnn/poincare profile={profile}, then "
            f"experiment=hnn/table2 profile={profile}"
        )
    out.mkdir(parents=True, exist_ok=True)
    export(folders[0], seed0, root, cfg.data.hierarchy, cfg.paths.generated_dir, out)
    return [out / POINTS, out / WEIGHTS, write_grid(out)]


def write_grid(out: Path) -> Path:
    """GRID in `out` from WEIGHTS there; its path."""
    margins = grid(pd.read_csv(out / WEIGHTS))
    # at FLOAT_FORMAT's 10 digits: the last of 17 differ between CPUs by rounding, the committed file must not
    margins.to_csv(out / GRID, index=False, float_format=FLOAT_FORMAT, compression=CSV_COMPRESSION)
    return out / GRID


@torch.no_grad()
def export(embedding: Path, seed0: pd.DataFrame, root: Path, hierarchy: str, generated: str, out: Path) -> None:
    """POINTS from the checkpoint of the `embedding` run folder, with the subtrees of `hierarchy`, and WEIGHTS of
    the classifiers of `seed0` (rows of runs.hnn_table2.f1_values) from their folders under `root`."""
    points = torch.load(embedding / "checkpoint.pt", map_location="cpu", weights_only=False)["model"]["weight"]
    h = wordnet.load(hierarchy, generated)
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
