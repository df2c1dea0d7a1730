"""The two spaces of Ganea et al.'s models behind one interface, so that each layer is written once.

`PoincareBall(c)` gives the Mobius operations of `poincare`; `Euclidean()` gives their c -> 0 limits
(x + y, r x, M x, ||x - y||, identity maps), so a Euclidean RNN or GRU is the same formula as the
hyperbolic one with its space swapped (Ganea et al., section 3: the hyperbolic layers "tend to" the
Euclidean ones as c -> 0). Points and vectors are [..., dim]; every method broadcasts over leading
dimensions.
"""

from __future__ import annotations

from torch import Tensor

from noneuclid.geometry import poincare as pb


class Euclidean:
    """R^n with the operations that the Mobius ones reduce to as c -> 0."""

    hyperbolic = False

    def add(self, x: Tensor, y: Tensor) -> Tensor:
        return x + y

    def scalar_mul(self, r: Tensor, x: Tensor) -> Tensor:
        return r * x

    def matvec_result(self, mx: Tensor, x: Tensor) -> Tensor:
        """M x from the product mx (the Mobius version needs x too)."""
        return mx

    def dist2(self, x: Tensor, y: Tensor) -> Tensor:
        """||x - y||^2, [..., 1]."""
        return (x - y).pow(2).sum(-1, keepdim=True)

    def project(self, x: Tensor) -> Tensor:
        return x

    def expmap0(self, v: Tensor) -> Tensor:
        return v

    def logmap0(self, x: Tensor) -> Tensor:
        return x


class PoincareBall:
    """The ball of curvature -c with the Mobius operations of `noneuclid.geometry.poincare`."""

    hyperbolic = True

    def __init__(self, c: float = 1.0):
        if not c > 0:
            raise ValueError(f"the curvature parameter c must be > 0, got {c}")
        self.c = c

    def add(self, x: Tensor, y: Tensor) -> Tensor:
        return pb.mobius_add(x, y, self.c)

    def scalar_mul(self, r: Tensor, x: Tensor) -> Tensor:
        return pb.mobius_scalar_mul(r, x, self.c)

    def matvec_result(self, mx: Tensor, x: Tensor) -> Tensor:
        return pb.mobius_matvec_result(mx, x, self.c)

    def dist2(self, x: Tensor, y: Tensor) -> Tensor:
        return pb.dist(x, y, self.c).pow(2).unsqueeze(-1)

    def project(self, x: Tensor) -> Tensor:
        return pb.project(x, self.c)

    def expmap0(self, v: Tensor) -> Tensor:
        return pb.expmap0(v, self.c)

    def logmap0(self, x: Tensor) -> Tensor:
        return pb.logmap0(x, self.c)


def space(hyperbolic: bool, c: float = 1.0) -> Euclidean | PoincareBall:
    return PoincareBall(c) if hyperbolic else Euclidean()
