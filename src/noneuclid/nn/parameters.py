"""Manifold-valued parameters (Stiefel matrices, points of the Poincare ball): nn.Parameter subclasses
that tell the optimizers which geometry to use."""

from __future__ import annotations

import torch
from torch import nn

from noneuclid.geometry import poincare as pb, stiefel


class StiefelParameter(nn.Parameter):
    """A weight of shape [..., N, n] whose every trailing N x n matrix lies on St(N, n).

    Leading dimensions make a product of Stiefel manifolds (e.g. all heads of an attention layer),
    which the manifold optimizers update in one batched call. The trainer logs `constraint_error`
    under the name `constraint` at every epoch (and its last and largest value in summary.json).
    """

    constraint = "orthonormality_error"

    def __new__(cls, data: torch.Tensor, requires_grad: bool = True):
        if data.dim() < 2 or data.shape[-2] < data.shape[-1]:
            raise ValueError(f"a Stiefel weight needs shape [..., N, n] with N >= n, got {tuple(data.shape)}")
        return super().__new__(cls, data, requires_grad)

    @classmethod
    def random(cls, *batch: int, N: int, n: int, dtype=None, device=None, generator=None):
        """Initialise with Algorithm 3 of Brantner (QR of a Gaussian matrix)."""
        return cls(stiefel.random_point(*batch, N=N, n=n, dtype=dtype, device=device, generator=generator))

    def constraint_error(self) -> float:
        """max |Y^T Y - I| over the matrices Y of this weight (0 on the manifold)."""
        return float(stiefel.orthonormality_error(self.detach()))

    def __repr__(self):
        return f"StiefelParameter(St({self.shape[-2]}, {self.shape[-1]}) x {tuple(self.shape[:-2])})"


class PoincareParameter(nn.Parameter):
    """A weight whose rows ([..., dim]) are points of the Poincare ball of curvature -c."""

    def __new__(cls, data: torch.Tensor, c: float = 1.0, requires_grad: bool = True):
        pb.check_curvature(c)
        self = super().__new__(cls, data, requires_grad)
        self.c = float(c)
        return self

    def __deepcopy__(self, memo):
        result = type(self)(self.data.clone(memory_format=torch.preserve_format), self.c, self.requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, proto):
        return type(self), (self.data, self.c, self.requires_grad)

    def __repr__(self):
        return f"PoincareParameter(c={self.c}, shape={tuple(self.shape)})"


def with_copy_dims(p: nn.Parameter, dims: int) -> nn.Parameter:
    """Mark the first `dims` dimensions of p as indexing independent copies of one weight (runs of a
    stacked sweep, encoders, gates): per-tensor operations such as gradient clipping then act on
    each copy p[i, j, ...] separately, exactly as on separate tensors. Returns p."""
    p.copy_dims = dims
    return p


def copy_dims(p: torch.Tensor) -> int:
    """The number of leading copy dimensions of p (0: p is one weight)."""
    return getattr(p, "copy_dims", 0)


class PointParameter(nn.Parameter):
    """A weight whose rows ([..., dim]) are points of R^n that place hyperplanes (p_k of the Euclidean
    MLR <a_k, x - p_k>): adam_rsgd gives them the step size of the hyperplane points on the ball."""
