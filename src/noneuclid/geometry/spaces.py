"""The two spaces of Ganea et al.'s models behind one interface, so that each layer is written once.

`PoincareBall(c)` gives the Mobius operations of `poincare`; `Euclidean()` gives their c -> 0 limits
(x + y, r x, M x, ||x - y||, identity maps), so a Euclidean RNN or GRU is the same formula as the
hyperbolic one with its space swapped (Ganea et al., section 3: the hyperbolic layers "tend to" the
Euclidean ones as c -> 0). Points and vectors have their coordinates along the space's `dim` (the
last by default); every method broadcasts over the other dimensions.
"""

from __future__ import annotations

from torch import Tensor

from noneuclid.geometry import poincare as pb


class Euclidean:
    """R^n with the operations that the Mobius ones reduce to as c -> 0 (coordinates along `dim`)."""

    hyperbolic = False

    def __init__(self, dim: int = -1):
        self.dim = dim

    def along(self, dim: int) -> Euclidean:
        """The same space with the coordinates of points along `dim`."""
        return Euclidean(dim)

    def add(self, x: Tensor, y: Tensor) -> Tensor:
        return x + y

    def scalar_mul(self, r: Tensor, x: Tensor) -> Tensor:
        return r * x

    def matvec_result(self, mx: Tensor, x: Tensor) -> Tensor:
        """M x from the product mx (the Mobius version needs x too)."""
        return mx

    def dist2(self, x: Tensor, y: Tensor) -> Tensor:
        """||x - y||^2, keeping `dim`."""
        return (x - y).pow(2).sum(self.dim, keepdim=True)

    def project(self, x: Tensor) -> Tensor:
        return x

    def expmap0(self, v: Tensor) -> Tensor:
        return v

    def logmap0(self, x: Tensor, project: bool = False) -> Tensor:
        return x

    def pointwise(self, f, x: Tensor) -> Tensor:
        """f(x): the non-linearity itself."""
        return f(x)


class PoincareBall:
    """The ball of curvature -c with the Mobius operations of `noneuclid.geometry.poincare`, points'
    coordinates along `dim`."""

    hyperbolic = True

    def __init__(self, c: float = 1.0, dim: int = -1):
        pb.check_curvature(c)
        self.c, self.dim = c, dim

    def along(self, dim: int) -> PoincareBall:
        """The same ball with the coordinates of points along `dim`."""
        return PoincareBall(self.c, dim)

    def add(self, x: Tensor, y: Tensor) -> Tensor:
        return pb.mobius_add(x, y, self.c, self.dim)

    def scalar_mul(self, r: Tensor, x: Tensor) -> Tensor:
        return pb.mobius_scalar_mul(r, x, self.c, self.dim)

    def matvec_result(self, mx: Tensor, x: Tensor) -> Tensor:
        return pb.mobius_matvec_result(mx, x, self.c, self.dim)

    def dist2(self, x: Tensor, y: Tensor) -> Tensor:
        """d_c(x, y)^2, keeping `dim`."""
        return pb.dist(x, y, self.c, self.dim).pow(2).unsqueeze(self.dim)

    def project(self, x: Tensor) -> Tensor:
        return pb.project(x, self.c, self.dim)

    def expmap0(self, v: Tensor) -> Tensor:
        return pb.expmap0(v, self.c, self.dim)

    def logmap0(self, x: Tensor, project: bool = False) -> Tensor:
        """log_0(x), or log_0(project(x)) computed without the projected point (see poincare.logmap0)."""
        return pb.logmap0(x, self.c, self.dim, project)

    def pointwise(self, f, x: Tensor) -> Tensor:
        """phi^(x)(x) = exp_0(f(log_0(x))) (see poincare.mobius_pointwise)."""
        return pb.mobius_pointwise(f, x, self.c, self.dim)


def space(hyperbolic: bool, c: float = 1.0) -> Euclidean | PoincareBall:
    return PoincareBall(c) if hyperbolic else Euclidean()
