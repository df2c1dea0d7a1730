"""XOR blobs: points around the four corners (+-1, +-1) with labels the sign of x * y (1 where positive),
written once into <data root>/toy_blobs/blobs.csv (columns split, x, y, label; 200 train, 200 test) by
`python -m noneuclid.data fetch toy_blobs --data-dir DIR`."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import torch

from noneuclid.data.files import DataError
from noneuclid.data.registry import Source

FILE = Path("toy_blobs") / "blobs.csv"
POINTS = 200  # per split
SPREAD = 0.3  # the standard deviation of each blob


def fetch(root: Path, mirror: Path | None = None) -> None:
    """Draw the splits (numpy's generator, seed 0) and write them to root/FILE."""
    rng = np.random.default_rng(0)
    corners = rng.choice([-1.0, 1.0], size=(2 * POINTS, 2))
    points = corners + SPREAD * rng.standard_normal((2 * POINTS, 2))
    frame = pd.DataFrame(
        {
            "split": ["train"] * POINTS + ["test"] * POINTS,
            "x": points[:, 0].round(6),
            "y": points[:, 1].round(6),
            "label": (corners[:, 0] * corners[:, 1] > 0).astype(int),
        }
    )
    (Path(root) / FILE).parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(Path(root) / FILE, index=False)


def verify(data_dir: Path, generated_dir: Path) -> None:
    if not (Path(data_dir) / FILE).is_file():
        raise DataError(
            f"missing {Path(data_dir) / FILE}: python -m noneuclid.data fetch toy_blobs --data-dir {data_dir}"
        )


def load(data_dir: Path) -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
    """split -> (points [POINTS, 2], labels [POINTS])."""
    verify(data_dir, data_dir)
    frame = pd.read_csv(Path(data_dir) / FILE)
    return {
        split: (torch.tensor(rows[["x", "y"]].to_numpy()), torch.tensor(rows.label.to_numpy()))
        for split, rows in frame.groupby("split")
    }


SOURCES = {"toy_blobs": Source(fetch, verify)}
