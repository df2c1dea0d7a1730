"""Optimizers (torch.optim.Optimizer subclasses) that know the geometry of their parameters."""

from noneuclid.optim.manifold import (OPTIMIZERS, ManifoldAdam, ManifoldGD, ManifoldMomentum,
                                      ManifoldOptimizer)
from noneuclid.optim.rsgd import RiemannianSGD

__all__ = ["OPTIMIZERS", "ManifoldAdam", "ManifoldGD", "ManifoldMomentum", "ManifoldOptimizer",
           "RiemannianSGD", "build"]


def build(cfg, params):
    """The optimizer named cfg.name ('gd' | 'momentum' | 'adam') with the remaining keys as arguments."""
    kwargs = {k: v for k, v in dict(cfg).items() if k != "name"}
    if cfg["name"] not in OPTIMIZERS:
        raise ValueError(f"unknown optimizer {cfg['name']!r}: choose optim= one of {sorted(OPTIMIZERS)}")
    return OPTIMIZERS[cfg["name"]](params, **kwargs)
