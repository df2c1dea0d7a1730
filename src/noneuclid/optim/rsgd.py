"""Riemannian SGD on the Poincare ball (Ganea et al. 2018, after Bonnabel 2013)."""

from __future__ import annotations

import math

import numba
import numpy as np
import torch

from noneuclid.geometry import poincare as pb
from noneuclid.nn.parameters import PoincareParameter


class RiemannianSGD(torch.optim.Optimizer):
    """x <- exp_x(-lr * (1 - c ||x||^2)^2 / 4 * g) for a PoincareParameter (the Riemannian gradient is
    the Euclidean one rescaled by 1/lambda_x^2), then projected into the ball; x <- x - lr g for an
    ordinary parameter. Rows whose step is zero (the words of an embedding not in the batch) stay
    exactly as they are, as under the original code's sparse update (exp_x(0), evaluated, would move
    some of them by a rounding error). Use it beside Adam (the paper: Adam for Euclidean weights, RSGD for the
    ball-valued ones) by giving each optimizer its own parameters.

    retraction: x <- project(x - lr (1 - c ||x||^2)^2 / 4 * g), the first-order retraction of Nickel &
    Kiela (2017, eq. 5), instead of the exponential map.

    A sparse gradient (a PoincareEmbedding with sparse=True) updates only the rows it holds: its
    entries are summed per row, then each row takes the same step as under the dense gradient.

    compensated: the step exp_x(u) - x is computed without cancellation (`pb.expmap_step`) and what
    x + step rounds away is kept in the state ("residual", Kahan's compensated summation) and added to
    the next step, so that steps below the spacing of the dtype's numbers at x (float32 near the
    boundary, where lambda_x^-2 shrinks them) accumulate as they do in float64 instead of being lost;
    the residual of a point that `project` moved is dropped.
    """

    def __init__(self, params, lr: float = 1e-2, compensated: bool = False, retraction: bool = False):
        if not lr > 0:
            raise ValueError(f"learning rate must be positive, got {lr}")
        if compensated and retraction:
            raise ValueError("compensated applies to the exponential map: set retraction=False with it")
        super().__init__(params, dict(lr=lr, compensated=compensated, retraction=retraction))

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if not isinstance(p, PoincareParameter):
                    p.add_(p.grad, alpha=-group["lr"])
                elif p.grad.is_sparse:
                    _sparse_step(p, group["lr"], group["retraction"])
                elif group["compensated"]:
                    self._compensated_step(p, _tangent_step(p, group["lr"]))
                else:
                    u = _tangent_step(p, group["lr"])
                    moved = pb.project(p + u if group["retraction"] else pb.expmap(p, u, p.c), p.c)
                    p.copy_(torch.where(u.ne(0).any(-1, keepdim=True), moved, p))
        return loss

    def _compensated_step(self, p: PoincareParameter, u: torch.Tensor) -> None:
        """p <- project(p + step + residual) with step = exp_p(u) - p, residual <- what that sum
        rounded away; rows whose step is zero (and residual with it) stay as they are."""
        residual = self.state[p].setdefault("residual", torch.zeros_like(p))
        step = pb.expmap_step(p, u, p.c) + residual
        moved = p + step
        new = torch.where(step.ne(0).any(-1, keepdim=True), pb.project(moved, p.c), p)
        residual.copy_(torch.where((new != moved).any(-1, keepdim=True), 0, step - (new - p)))
        p.copy_(new)


def _tangent_step(p: PoincareParameter, lr: float) -> torch.Tensor:
    """-lr times the Riemannian gradient at p: -lr (1 - c ||p||^2)^2 / 4 * grad."""
    scale = pb.gap(p, p.c).pow(2) / 4  # lambda_p^-2
    return -lr * scale * p.grad


def _sparse_step(p: PoincareParameter, lr: float, retraction: bool) -> None:
    """The step of the rows of p's sparse gradient, the other rows untouched. The retraction adds the
    entries of a row one by one (on the CPU, in one compiled loop): the rescaling depends only on the
    row's point before the step, so that equals the step of their sum. The exponential map needs their
    sum first (coalesce)."""
    if retraction and p.device.type == "cpu":
        grad = p.grad
        retract_rows(
            p.detach().numpy(),
            grad._indices()[0].numpy(),
            grad._values().numpy(),
            lr,
            p.c,
            (1 - pb.BALL_EPS) / p.c**0.5,
        )
        return
    grad = p.grad.coalesce()
    rows, values = grad.indices()[0], grad.values()
    x = p.index_select(0, rows)
    u = -lr * pb.gap(x, p.c).pow(2) / 4 * values
    moved = pb.project(x + u if retraction else pb.expmap(x, u, p.c), p.c)
    p.index_copy_(0, rows, torch.where(u.ne(0).any(-1, keepdim=True), moved, x))


@numba.njit(cache=True)
def retract_rows(weight, rows, values, lr, c, max_norm):  # pragma: no cover (compiled)
    """weight[r] <- project(weight[r] - lr (1 - c||weight[r]||^2)^2 / 4 * sum of values[k] with rows[k] = r),
    the rescaling taken at the points before the step; project as pb.project."""
    dim = weight.shape[1]
    scale = np.empty(len(rows))
    for k in range(len(rows)):
        g = 1.0 - c * _sqnorm(weight[rows[k]])
        scale[k] = -lr * g * g / 4.0
    for k in range(len(rows)):
        w, v = weight[rows[k]], values[k]
        for i in range(dim):
            w[i] += scale[k] * v[i]
    for k in range(len(rows)):
        w = weight[rows[k]]
        norm = math.sqrt(_sqnorm(w))
        if norm > max_norm:
            for i in range(dim):
                w[i] = w[i] / norm * max_norm


@numba.njit(inline="always")
def _sqnorm(x):  # pragma: no cover (compiled)
    total = 0.0
    for i in range(x.shape[0]):
        total += x[i] * x[i]
    return total
