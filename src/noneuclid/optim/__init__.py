"""Optimizers (torch.optim.Optimizer subclasses) that know the geometry of their parameters."""

import torch

from noneuclid.nn.hyperbolic import PoincareParameter
from noneuclid.optim.composite import CompositeOptimizer
from noneuclid.optim.manifold import (
    OPTIMIZERS,
    ManifoldAdam,
    ManifoldGD,
    ManifoldMomentum,
    ManifoldOptimizer,
)
from noneuclid.optim.rsgd import RiemannianSGD

__all__ = ["OPTIMIZERS", "CompositeOptimizer", "ManifoldAdam", "ManifoldGD", "ManifoldMomentum",
           "ManifoldOptimizer", "RiemannianSGD", "build"]


def adam_rsgd(named_params, lr: float, betas, embedding_lr: float, ball_lr: float,
              clip_norm: float | None = None) -> CompositeOptimizer:
    """Ganea et al.'s recipe: Adam (lr) for Euclidean weights; Riemannian SGD for the word embeddings
    (embedding_lr; plain SGD when they are Euclidean) and the other ball-valued weights (ball_lr);
    every gradient clipped to norm clip_norm."""
    embedding, ball, euclidean = [], [], []
    for name, p in named_params:
        (embedding if name == "embedding" else ball if isinstance(p, PoincareParameter) else euclidean).append(p)
    opts = [torch.optim.Adam(euclidean, lr=lr, betas=tuple(betas))]
    opts.append(RiemannianSGD([{"params": embedding, "lr": embedding_lr}] +
                              ([{"params": ball, "lr": ball_lr}] if ball else []), lr=ball_lr))
    return CompositeOptimizer(opts, clip_norm)


def build(cfg, named_params):
    """The optimizer named cfg.name with the remaining keys as arguments, over (name, parameter) pairs:
    'gd' | 'momentum' | 'adam' (Algorithm 1 of Brantner) or 'adam_rsgd' (Ganea et al.)."""
    kwargs = {k: v for k, v in dict(cfg).items() if k != "name"}
    if cfg["name"] == "adam_rsgd":
        return adam_rsgd(named_params, **kwargs)
    if cfg["name"] not in OPTIMIZERS:
        raise ValueError(f"unknown optimizer {cfg['name']!r}: choose optim= one of "
                         f"{sorted([*OPTIMIZERS, 'adam_rsgd'])}")
    return OPTIMIZERS[cfg["name"]]([p for _, p in named_params], **kwargs)
