"""Hyperbolic layers of Ganea, Becigneul, Hofmann (2018) in hyperbolic space of curvature -c.

Inputs are points of the ball, [..., dim]. Weight matrices are Euclidean (they act through the
Mobius matrix-vector product); biases and MLR offsets are points of the ball (PoincareParameter),
trained with RiemannianSGD. The RNN and GRU cells are in `noneuclid.nn.recurrent`.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from noneuclid.geometry import poincare as pb, spaces
from noneuclid.nn.parameters import PoincareParameter, with_copy_dims


def glorot(*shape: int) -> Tensor:
    """Glorot-uniform weights of shape [..., out, in] (each trailing matrix its own draw)."""
    bound = math.sqrt(6.0 / (shape[-1] + shape[-2]))
    return torch.empty(*shape).uniform_(-bound, bound)


class MobiusLinear(nn.Module):
    """y = (M (x)_c x) (+)_c b, the hyperbolic linear layer with a bias b on the ball (b = 0 at init)."""

    def __init__(self, in_features: int, out_features: int, c: float = 1.0, bias: bool = True):
        super().__init__()
        self.c = c
        self.weight = nn.Parameter(glorot(out_features, in_features))
        self.bias = PoincareParameter(torch.zeros(out_features), c) if bias else None

    def forward(self, x: Tensor) -> Tensor:
        y = pb.mobius_matvec(self.weight, x, self.c)
        if self.bias is not None:
            y = pb.project(pb.mobius_add(y, self.bias, self.c), self.c)
        return y


class HyperbolicMLR(nn.Module):
    """Hyperbolic multinomial logistic regression (the paper's eq. 25 for p(y = k | x)):
        logit_k(x) = lambda_{p_k} ||a_k|| / sqrt(c) * asinh(2 sqrt(c) <-p_k (+) x, a_k> /
                                                         ((1 - c ||-p_k (+) x||^2) ||a_k||))
    with p_k on the ball and a_k = (1 - c ||p_k||^2) a'_k, a'_k stored at the origin (transport0),
    computed in `chart` (spaces.PoincareBall.hyperplane_logits or spaces.Lorentz.hyperplane_logits);
    p_k is a point of the ball in either chart, and the input x a point of the chart.
    With `copies`, p and a' are [*copies, classes, dim] (independent classifiers, e.g. stacked runs)
    and the input is [*copies, batch, dim]; otherwise input [..., dim]. Output logits [..., classes].
    per_class: each class's p_k and a'_k is a tensor of its own (clipped on its own, as the original
    code's P_mlr<k>, A_mlr<k>); else all classes' p (and a') form one tensor.
    project_results: -p_k (+) x is projected into the ball (its gap 1 - c||.||^2 then at least the
    margin's), as the original code's tf_mob_add (see spaces.PoincareBall).
    """

    def __init__(
        self,
        dim: int,
        classes: int,
        c: float = 1.0,
        copies: tuple[int, ...] = (),
        per_class: bool = True,
        project_results: bool = False,
        chart: str = "poincare",
    ):
        super().__init__()
        self.space = spaces.space(True, c, project_results, chart=chart)
        self.p = with_copy_dims(PoincareParameter(torch.zeros(*copies, classes, dim), c), len(copies) + per_class)
        self.a0 = with_copy_dims(nn.Parameter(glorot(*copies, classes, dim)), len(copies) + per_class)

    def forward(self, x: Tensor) -> Tensor:
        # p [*copies, 1, classes, dim] against x [*copies, batch, 1, dim]
        return self.space.hyperplane_logits(x.unsqueeze(-2), self.p.unsqueeze(-3), self.a0.unsqueeze(-3))
