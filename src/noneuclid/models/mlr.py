"""Binary MLR on points of the Poincare ball, three ways (Ganea et al., Table 2)."""

from __future__ import annotations

import torch
from torch import Tensor, nn

from noneuclid.geometry import poincare as pb
from noneuclid.nn.hyperbolic import HyperbolicMLR
from noneuclid.nn.parameters import PointParameter, with_copy_dims

GEOMETRIES = ("hyperbolic", "euclidean", "euclidean_log0")


class RunsLinear(nn.Module):
    """W x + b for `runs` independent linear maps: weight [runs, classes, dim], bias [runs, classes],
    each run's drawn as nn.Linear(dim, classes) draws it (one run after the other); x [runs, batch, dim]
    -> [runs, batch, classes]."""

    def __init__(self, dim: int, classes: int, runs: int):
        super().__init__()
        layers = [nn.Linear(dim, classes) for _ in range(runs)]
        self.weight = with_copy_dims(nn.Parameter(torch.stack([m.weight.detach() for m in layers])), 1)
        self.bias = with_copy_dims(nn.Parameter(torch.stack([m.bias.detach() for m in layers])), 1)

    def forward(self, x: Tensor) -> Tensor:
        return torch.baddbmm(self.bias.unsqueeze(1), x, self.weight.transpose(1, 2))


class RunsOffsetLinear(nn.Module):
    """The Euclidean MLR in the paper's form (the c -> 0 limit of its eq. 25), logit_k(x) = <a_k, x - p_k>,
    for `runs` independent classifiers: a [runs, classes, dim] drawn as nn.Linear draws its weight, the
    points p_k [runs, classes, dim] at 0 (as the hyperbolic MLR's); x [runs, batch, dim] -> [runs, batch,
    classes]. The same model as W x + b (b_k = -<a_k, p_k>); moving p_k moves a hyperplane without
    turning it, and growing a_k sharpens it in place, where W x + b must grow b with W."""

    def __init__(self, dim: int, classes: int, runs: int):
        super().__init__()
        a = torch.stack([nn.Linear(dim, classes).weight.detach() for _ in range(runs)])
        self.a = with_copy_dims(nn.Parameter(a), 1)
        self.p = with_copy_dims(PointParameter(torch.zeros(runs, classes, dim)), 1)

    def forward(self, x: Tensor) -> Tensor:
        offset = -(self.a * self.p).sum(-1)  # [runs, classes]
        return torch.baddbmm(offset.unsqueeze(1), x, self.a.transpose(1, 2))


class PointMLR(nn.Module):
    """Logits of points of the ball:
        hyperbolic      HyperbolicMLR(x): a gyroplane {x: <-p_k (+) x, a_k> = 0} per class
        euclidean       W x + b on the raw coordinates
        euclidean_log0  W log_0(x) + b, on the points mapped to the tangent space at 0
    offsets: the Euclidean ones as <a_k, x - p_k> (RunsOffsetLinear, the paper's form) instead of W x + b
    (one model, two parametrizations that Adam trains differently); the hyperbolic MLR always has its p_k.
    `runs` independent classifiers (a stack, see train/stacking.py), every weight [runs, ...]: input
    x [runs, batch, dim] -> logits [runs, batch, classes]; one run (runs = 1) takes any x [..., dim]
    -> [..., classes]. chart: the hyperbolic MLR's, "poincare" (the ball) or "lorentz" (the points
    carried to the hyperboloid by the isometry, see spaces.Lorentz.hyperplane_logits)."""

    def __init__(
        self,
        dim: int,
        geometry: str,
        classes: int = 2,
        c: float = 1.0,
        runs: int = 1,
        offsets: bool | None = None,
        chart: str = "poincare",
    ):
        super().__init__()
        if geometry not in GEOMETRIES:
            raise ValueError(f"unknown geometry {geometry!r}: choose model.geometry= one of {GEOMETRIES}")
        if geometry == "hyperbolic" and offsets is not None:
            raise ValueError("model.offsets chooses the Euclidean MLRs' form; leave it null for the hyperbolic MLR")
        if geometry != "hyperbolic" and chart != "poincare":
            raise ValueError("model.chart chooses the hyperbolic MLR's chart: leave it poincare for the Euclidean MLRs")
        self.geometry, self.c, self.runs = geometry, c, runs
        self.mlr = (
            HyperbolicMLR(dim, classes, c, copies=(runs,), chart=chart)
            if geometry == "hyperbolic"
            else RunsOffsetLinear(dim, classes, runs)
            if offsets
            else RunsLinear(dim, classes, runs)
        )

    def forward(self, x: Tensor) -> Tensor:
        if self.runs == 1:
            return self._logits(x.reshape(1, -1, x.shape[-1]))[0].reshape(*x.shape[:-1], -1)
        return self._logits(x)

    def _logits(self, x: Tensor) -> Tensor:
        """x [runs, batch, dim] -> logits [runs, batch, classes]."""
        if self.geometry == "hyperbolic":
            return self.mlr(self.mlr.space.from_ball(x))
        return self.mlr(pb.logmap0(x, self.c) if self.geometry == "euclidean_log0" else x)

    def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs):
        """Checkpoints of single runs written before the weights had a runs dimension load as runs = 1."""
        for name, p in self.named_parameters():
            key = prefix + name
            if key in state_dict and state_dict[key].dim() == p.dim() - 1:
                state_dict[key] = state_dict[key].unsqueeze(0)
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)
