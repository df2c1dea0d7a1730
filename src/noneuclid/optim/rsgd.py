"""Riemannian SGD on the Poincare ball (Ganea et al. 2018, after Bonnabel 2013)."""

from __future__ import annotations

import torch

from noneuclid.geometry import poincare as pb
from noneuclid.nn.hyperbolic import PoincareParameter


class RiemannianSGD(torch.optim.Optimizer):
    """x <- exp_x(-lr * (1 - c ||x||^2)^2 / 4 * g) for a PoincareParameter (the Riemannian gradient is
    the Euclidean one rescaled by 1/lambda_x^2), then projected into the ball; x <- x - lr g for an
    ordinary parameter. Use it beside Adam (the paper: Adam for Euclidean weights, RSGD for the
    ball-valued ones) by giving each optimizer its own parameters."""

    def __init__(self, params, lr: float = 1e-2):
        if not lr > 0:
            raise ValueError(f"learning rate must be positive, got {lr}")
        super().__init__(params, dict(lr=lr))

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
                if isinstance(p, PoincareParameter):
                    c = p.c
                    scale = (1 - c * p.pow(2).sum(-1, keepdim=True)).pow(2) / 4
                    p.copy_(pb.project(pb.expmap(p, -group["lr"] * scale * p.grad, c), c))
                else:
                    p.add_(p.grad, alpha=-group["lr"])
        return loss
