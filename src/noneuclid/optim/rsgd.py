"""Riemannian SGD on the Poincare ball (Ganea et al. 2018, after Bonnabel 2013)."""

from __future__ import annotations

import torch

from noneuclid.geometry import poincare as pb
from noneuclid.nn.hyperbolic import PoincareParameter


class RiemannianSGD(torch.optim.Optimizer):
    """x <- exp_x(-lr * (1 - c ||x||^2)^2 / 4 * g) for a PoincareParameter (the Riemannian gradient is
    the Euclidean one rescaled by 1/lambda_x^2), then projected into the ball; x <- x - lr g for an
    ordinary parameter. Rows whose step is zero (the words of an embedding not in the batch) stay
    exactly as they are, as under the original code's sparse update (exp_x(0), evaluated, would move
    some of them by a rounding error). Use it beside Adam (the paper: Adam for Euclidean weights, RSGD for the
    ball-valued ones) by giving each optimizer its own parameters.

    compensated: the step exp_x(u) - x is computed without cancellation (`pb.expmap_step`) and what
    x + step rounds away is kept in the state ("residual", Kahan's compensated summation) and added to
    the next step, so that steps below the spacing of the dtype's numbers at x (float32 near the
    boundary, where lambda_x^-2 shrinks them) accumulate as they do in float64 instead of being lost;
    the residual of a point that `project` moved is dropped.
    """

    def __init__(self, params, lr: float = 1e-2, compensated: bool = False):
        if not lr > 0:
            raise ValueError(f"learning rate must be positive, got {lr}")
        super().__init__(params, dict(lr=lr, compensated=compensated))

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
                elif group["compensated"]:
                    self._compensated_step(p, _tangent_step(p, group["lr"]))
                else:
                    u = _tangent_step(p, group["lr"])
                    moved = pb.project(pb.expmap(p, u, p.c), p.c)
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
