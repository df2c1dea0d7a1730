"""Checks of a distance that the charts' tests share (the Poincare ball's, the hyperboloid's)."""

from collections.abc import Callable

import torch


def assert_triangle_inequality(dist: Callable, x: torch.Tensor, y: torch.Tensor, z: torch.Tensor, degenerate: int):
    """d(x, z) <= d(x, y) + d(y, z) up to 1e-12 (1 + d(x, z)) for every row; the last `degenerate` rows are
    nearly degenerate triples, their median excess below 1e-7 (an error of that size in d would break them)."""
    dxz = dist(x, z)
    excess = dist(x, y) + dist(y, z) - dxz
    assert bool((excess >= -1e-12 * (1 + dxz)).all()), float((excess / (1 + dxz)).min())
    assert float(excess[-degenerate:].median()) < 1e-7  # the last rows really are nearly degenerate
