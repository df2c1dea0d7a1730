"""Several optimizers stepped as one (e.g. Adam for Euclidean weights beside Riemannian SGD for
ball-valued ones), with optional gradient clipping (per tensor or by total norm) before the step."""

from __future__ import annotations

import torch
from torch import Tensor

from noneuclid.nn.parameters import copy_dims


class CompositeOptimizer:
    """zero_grad / step / state_dict / load_state_dict over a list of torch optimizers.

    clip_norm: every gradient tensor is scaled to norm <= clip_norm before the step (Ganea et al.
    clip each gradient to norm 1); a parameter with copy dimensions (`nn.parameters.copy_dims`:
    stacked runs, encoders, gates) is clipped copy by copy.
    clip_total_norm: all gradients together are scaled to total norm <= clip_total_norm
    (torch.nn.utils.clip_grad_norm_; PHYDI's transformers: 0.5).
    """

    def __init__(
        self,
        optimizers: list[torch.optim.Optimizer],
        clip_norm: float | None = None,
        clip_total_norm: float | None = None,
    ):
        self.optimizers, self.clip_norm, self.clip_total_norm = optimizers, clip_norm, clip_total_norm

    @property
    def param_groups(self) -> list[dict]:
        return [g for opt in self.optimizers for g in opt.param_groups]

    def zero_grad(self, set_to_none: bool = True) -> None:
        for opt in self.optimizers:
            opt.zero_grad(set_to_none=set_to_none)

    @torch.no_grad()
    def step(self) -> None:
        if self.clip_norm is not None:
            for p in (p for g in self.param_groups for p in g["params"] if p.grad is not None):
                clip_copies_(p.grad, copy_dims(p), self.clip_norm)
        if self.clip_total_norm is not None:
            torch.nn.utils.clip_grad_norm_([p for g in self.param_groups for p in g["params"]], self.clip_total_norm)
        for opt in self.optimizers:
            opt.step()

    def state_dict(self) -> dict:
        return {"optimizers": [opt.state_dict() for opt in self.optimizers]}

    def load_state_dict(self, state: dict) -> None:
        for opt, s in zip(self.optimizers, state["optimizers"], strict=True):
            opt.load_state_dict(s)


def clip_copies_(grad: Tensor, dims: int, max_norm: float) -> None:
    """Scale each copy grad[i, j, ...] (the first `dims` indices) to norm <= max_norm, in place."""
    norms = grad.flatten(dims).norm(dim=-1) if grad.dim() > dims else grad.abs()  # [*copies]
    scale = torch.clamp(max_norm / (norms + 1e-12), max=1.0)
    grad.mul_(scale.view(*scale.shape, *[1] * (grad.dim() - dims)))
