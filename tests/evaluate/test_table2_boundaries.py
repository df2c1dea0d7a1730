"""The Table 2 boundary figure is redrawn from its committed data: a classifier rebuilt from its rows of
weights (one per number) gives the logits of the model they were written from, and the grid saved beside
the figure keeps every value its zero contour reads."""

from __future__ import annotations

import contourpy
import numpy as np
import pandas as pd
import pytest
import torch

from noneuclid.evaluate import table2_boundaries
from noneuclid.models.mlr import PointMLR


def _classifier(geometry: str, offsets: bool | None) -> tuple[PointMLR, pd.DataFrame]:
    """A random classifier of animal.n.01 and its rows of weights (one per number), as
    evaluate.table2_boundaries.export writes them."""
    torch.manual_seed(0)
    model = PointMLR(2, geometry, offsets=offsets).double()
    for p in model.parameters():
        p.data.normal_(0, 0.3)
    return model, pd.DataFrame(
        [
            {"subtree": "animal.n.01", "geometry": geometry, "offsets": offsets, "tensor": name, "index": i, "value": v}
            for name, w in model.state_dict().items()
            for i, v in enumerate(w.flatten().tolist())
        ]
    )


@pytest.mark.parametrize("geometry,offsets", [("hyperbolic", None), ("euclidean", True), ("euclidean_log0", True)])
def test_a_classifier_rebuilt_from_its_rows_gives_its_margin(geometry, offsets):
    model, rows = _classifier(geometry, offsets)
    at = 0.9 * torch.rand(5, 7, 2, dtype=torch.float64) - 0.45  # [5, 7, 2] inside the ball
    logits = model(at)
    torch.testing.assert_close(
        table2_boundaries._margin(rows.sample(frac=1, random_state=0), at),  # any row order
        logits[..., 1] - logits[..., 0],
    )


def test_the_grid_keeps_every_value_the_zero_contour_reads():
    _, rows = _classifier("hyperbolic", None)
    axis = torch.linspace(-1, 1, table2_boundaries.SIZE, dtype=torch.float64)
    gx, gy = torch.meshgrid(axis, axis, indexing="xy")
    inside = gx**2 + gy**2 < 0.999
    full = table2_boundaries._margin(rows, torch.stack([gx, gy], -1) * inside[..., None]).masked_fill(~inside, np.nan)
    grid = table2_boundaries.grid(rows).pivot(index="y", columns="x", values="animal.n.01 hyperbolic").to_numpy()
    assert np.isin(grid[np.isfinite(grid)], [-1.0, 1.0]).mean() > 0.9  # mostly signs alone
    lines = [
        contourpy.contour_generator(
            gx.numpy(), gy.numpy(), np.ma.masked_invalid(z), name="mpl2014", corner_mask=True
        ).lines(0.0)
        for z in (full.numpy(), grid)
    ]
    assert len(lines[0]) > 0 and len(lines[0]) == len(lines[1])
    assert all(np.array_equal(a, b) for a, b in zip(*lines))
