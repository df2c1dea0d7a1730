"""The update as the paper writes it (evaluate.paper_step): the same point as our retraction in exact
arithmetic (float64), Algorithm 2's complement, and the one-step table."""

from __future__ import annotations

import pytest
import torch

from noneuclid.evaluate import paper_step
from noneuclid.geometry import stiefel

N, n = 7, 3


def _point_and_step(dtype=torch.float64, lr=0.1):
    g = torch.Generator().manual_seed(0)
    Y = stiefel.random_point(4, N=N, n=n, dtype=dtype, generator=g)
    X = torch.randn(4, n, n, generator=g, dtype=dtype)
    return Y, lr * (X - X.mT), lr * torch.randn(4, N - n, n, generator=g, dtype=dtype), g


def test_algorithm2_complement_is_orthonormal_and_orthogonal_to_y():
    Y, _, _, g = _point_and_step()
    Q = paper_step.algorithm2_complement(Y, g)
    assert Q.shape == (4, N, N - n)
    assert torch.allclose(Q.mT @ Q, torch.eye(N - n, dtype=Y.dtype).expand(4, -1, -1), atol=1e-12)
    assert (Y.mT @ Q).abs().max() < 1e-12


@pytest.mark.parametrize("kind", ["geodesic", "cayley"])
def test_the_papers_update_is_our_retraction_in_float64(kind):
    Y, A, B, g = _point_and_step()
    Q = paper_step.algorithm2_complement(Y, g)
    ours, theirs = stiefel.retract(Y, A, Q @ B, kind), paper_step.paper_update(Y, Q, A, B, kind)
    assert torch.allclose(ours, theirs, atol=1e-12)
    assert paper_step.gram_change(Y, theirs).max() < 1e-12


def test_one_step_reports_every_update_and_complement():
    table = paper_step.one_step(P=3, draws=2, lr=1e-3, N=N, n=n)
    assert len(table) == 4 and set(table.samples) == {6}
    assert set(zip(table["update"], table.complement)) == {
        (u, c) for u in paper_step.UPDATES for c in paper_step.COMPLEMENTS
    }
    assert (table.median_change <= table.max_change).all() and (table.max_change < 1e-3).all()
