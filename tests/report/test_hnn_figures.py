"""The Table 2 boundary figure is redrawn from its committed data: a classifier rebuilt from its rows of
weights (one per number) gives the logits of the model they were written from."""

from __future__ import annotations

import pandas as pd
import pytest
import torch

from noneuclid.models.mlr import PointMLR
from noneuclid.figures import hnn as drawn


@pytest.mark.parametrize("geometry,offsets", [("hyperbolic", None), ("euclidean", True), ("euclidean_log0", True)])
def test_a_classifier_rebuilt_from_its_rows_gives_its_margin(geometry, offsets):
    torch.manual_seed(0)
    model = PointMLR(2, geometry, offsets=offsets).double()
    for p in model.parameters():
        p.data.normal_(0, 0.3)
    rows = pd.DataFrame([{"geometry": geometry, "offsets": offsets, "tensor": name, "index": i, "value": v}
                         for name, w in model.state_dict().items() for i, v in enumerate(w.flatten().tolist())])
    rows = rows.sample(frac=1, random_state=0)  # the order of the rows does not matter
    at = 0.9 * torch.rand(5, 7, 2, dtype=torch.float64) - 0.45  # [5, 7, 2] inside the ball
    logits = model(at)
    torch.testing.assert_close(drawn._margin(rows, at), logits[..., 1] - logits[..., 0])
