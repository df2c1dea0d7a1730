"""Optimizers (torch.optim.Optimizer subclasses) that know the geometry of their parameters."""

import torch

from noneuclid.nn.parameters import PoincareParameter, PointParameter
from noneuclid.optim.composite import CompositeOptimizer
from noneuclid.optim.manifold import (
    OPTIMIZERS,
    ManifoldAdam,
    ManifoldGD,
    ManifoldMomentum,
    ManifoldOptimizer,
)
from noneuclid.optim.rsgd import RiemannianSGD

__all__ = [
    "OPTIMIZERS",
    "CompositeOptimizer",
    "ManifoldAdam",
    "ManifoldGD",
    "ManifoldMomentum",
    "ManifoldOptimizer",
    "RiemannianSGD",
    "build",
    "end_epoch",
]


def adam_rsgd(
    named_params,
    lr: float,
    betas,
    embedding_lr: float,
    ball_lr: float,
    clip_norm: float | None = None,
    compensated: bool = False,
) -> CompositeOptimizer:
    """Ganea et al.'s recipe: Adam (lr) for every Euclidean weight, the word embeddings of the
    Euclidean models included (the original code's `eucl_vars`); Riemannian SGD for ball-valued
    weights: the word embeddings (embedding_lr) and the others (ball_lr), compensated or not (see
    RiemannianSGD); every gradient clipped to norm clip_norm. Points of R^n that place hyperplanes
    (PointParameter) take Adam at ball_lr, the step size of their counterparts on the ball."""
    embedding, ball, euclidean, points = [], [], [], []
    for name, p in named_params:
        if isinstance(p, PointParameter):
            points.append(p)
        elif not isinstance(p, PoincareParameter):
            euclidean.append(p)
        else:
            (embedding if name.split(".")[-1] == "embedding" else ball).append(p)  # also under a wrapper
    adam = [{"params": euclidean}] + ([{"params": points, "lr": ball_lr}] if points else [])
    opts = [torch.optim.Adam(adam, lr=lr, betas=tuple(betas))]
    groups = [{"params": ps, "lr": group_lr} for ps, group_lr in ((embedding, embedding_lr), (ball, ball_lr)) if ps]
    if groups:
        opts.append(RiemannianSGD(groups, lr=ball_lr, compensated=compensated))
    return CompositeOptimizer(opts, clip_norm)


def rsgd(
    named_params, lr: float, burnin_epochs: int = 0, burnin_factor: float = 0.1, retraction: bool = False
) -> RiemannianSGD:
    """Riemannian SGD for every parameter (Nickel & Kiela's Poincare embeddings), at lr * burnin_factor
    for the first burnin_epochs epochs (their burn-in phase), then at lr (switched by end_epoch; the
    countdown is kept in the optimizer's state_dict, so a resumed run continues it); retraction: their
    update x - lr grad_R instead of the exponential map (see RiemannianSGD)."""
    optimizer = RiemannianSGD(
        [p for _, p in named_params], lr=lr * (burnin_factor if burnin_epochs else 1.0), retraction=retraction
    )
    for group in optimizer.param_groups:
        group.update(burnin_epochs_left=burnin_epochs, full_lr=lr)
    return optimizer


TORCH_OPTIMIZERS = {"sgd": torch.optim.SGD, "adagrad": torch.optim.Adagrad}  # PHYDI's recipes
TRAINER_KEYS = ("epoch_lr_factor",)  # read by the trainer, not passed to the optimizer


def build(cfg, named_params):
    """The optimizer named cfg.name with the remaining keys as arguments, over (name, parameter) pairs:
    'gd' | 'momentum' | 'adam' (Algorithm 1 of Brantner), 'adam_rsgd' or 'rsgd' (Ganea et al.) or 'sgd' |
    'adagrad' (torch's, for PHYDI). `clip_total_norm` clips the norm of all gradients together."""
    kwargs = {k: v for k, v in dict(cfg).items() if k not in ("name", "clip_total_norm", *TRAINER_KEYS)}
    name, params = cfg["name"], [p for _, p in named_params]
    if name == "adam_rsgd":
        return adam_rsgd(named_params, **kwargs)
    if name == "rsgd":
        return rsgd(named_params, **kwargs)
    if name not in OPTIMIZERS and name not in TORCH_OPTIMIZERS:
        raise ValueError(
            f"unknown optimizer {name!r}: choose optim= one of "
            f"{sorted([*OPTIMIZERS, *TORCH_OPTIMIZERS, 'adam_rsgd', 'rsgd'])}"
        )
    optimizer = {**OPTIMIZERS, **TORCH_OPTIMIZERS}[name](params, **kwargs)
    if cfg.get("clip_total_norm") is not None:
        return CompositeOptimizer([optimizer], clip_total_norm=cfg["clip_total_norm"])
    return optimizer


def end_epoch(optimizer, cfg) -> None:
    """The end of rsgd's burn-in, and per-epoch learning-rate decay: lr x cfg.epoch_lr_factor (PHYDI's
    transformers: 0.9), if set.
    The decayed lr lives in the optimizer's state_dict, so a resumed run continues the schedule."""
    for group in optimizer.param_groups:  # the end of rsgd's burn-in
        if group.get("burnin_epochs_left"):
            group["burnin_epochs_left"] -= 1
            if group["burnin_epochs_left"] == 0:
                group["lr"] = group["full_lr"]
    factor = cfg.get("epoch_lr_factor")
    if factor is not None:
        for group in optimizer.param_groups:
            group["lr"] *= factor
