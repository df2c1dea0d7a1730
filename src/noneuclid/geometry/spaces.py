"""The two spaces of Ganea et al.'s models behind one interface, so that each layer is written once.

`PoincareBall(c)` gives the Mobius operations of `poincare`; `Euclidean()` gives their c -> 0 limits
(x + y, r x, M x, ||x - y||, identity maps), so a Euclidean RNN or GRU is the same formula as the
hyperbolic one with its space swapped (Ganea et al., section 3: the hyperbolic layers "tend to" the
Euclidean ones as c -> 0). Points and vectors have their coordinates along the space's `dim` (the
last by default); every method broadcasts over the other dimensions.
"""

from __future__ import annotations

import math

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

    def key(self) -> tuple:
        """What tells the space's operations apart (a cache key for compiled functions)."""
        return type(self).__name__, self.dim

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

    def in_ball(self, x: Tensor) -> Tensor:
        """An operation's result as a point of the space: x."""
        return x

    def expmap0(self, v: Tensor) -> Tensor:
        return v

    def logmap0(self, x: Tensor, project: bool = False) -> Tensor:
        return x

    def pointwise(self, f, x: Tensor) -> Tensor:
        """f(x): the non-linearity itself."""
        return f(x)

    def affine_log0(self, mx: Tensor, x: Tensor, u: Tensor, b: Tensor) -> Tensor:
        """M x + u + b (the GRU's gates before the sigmoid), from mx = M x."""
        return mx + u + b


class PoincareBall:
    """The ball of curvature -c with the Mobius operations of `noneuclid.geometry.poincare`, points'
    coordinates along `dim`.

    project_results: every Mobius operation's result (x (+) y, r (x) x, M (x) x, exp_0) is projected
    into the ball of radius (1 - BALL_EPS)/sqrt(c), and distances are those of the projected
    difference, capped at 2/sqrt(c) artanh(1 - BALL_EPS), as in Ganea et al.'s code (its tf_mob_add,
    tf_mob_mat_mul, ... end in tf_project_hyp_vecs). It changes saturated models only: there M (x) x
    of a state at the margin can lie within 1e-9 of the boundary, a point float32 cannot hold apart
    from the boundary itself, where (+) absorbs the other summand.

    carry_gaps: the GRU's gates take log_0 from gaps 1 - c||x||^2 carried through their Mobius
    operations rather than recomputed from coordinates (affine_log0): float32 then computes gates
    whose W (x) h lies on the margin as float64 does.

    Where the models' points are projected (onto the radius (1 - BALL_EPS)/sqrt(c)):
      project(x)             on request: embeddings at init (and Riemannian SGD's steps, optim.rsgd)
      every result           with project_results, snapping points within PROJECT_SNAP inside the radius
      in_ball(x)             a recurrence state or the FFNN output, unless project_results did already
      logmap0(x, project)    log_0 of the projection without forming it (the GRU's gates, a Eucl. MLR's input)
      dist2                  capped at the radius's distance with project_results
      HyperbolicMLR          -p (+) x with project_results (nn.hyperbolic)
    """

    hyperbolic = True

    def __init__(self, c: float = 1.0, dim: int = -1, project_results: bool = False, carry_gaps: bool = False):
        pb.check_curvature(c)
        self.c, self.dim, self.project_results, self.carry_gaps = c, dim, project_results, carry_gaps

    def along(self, dim: int) -> PoincareBall:
        """The same ball with the coordinates of points along `dim`."""
        return PoincareBall(self.c, dim, self.project_results, self.carry_gaps)

    def key(self) -> tuple:
        """What tells the ball's operations apart (a cache key for compiled functions)."""
        return type(self).__name__, self.c, self.dim, self.project_results, self.carry_gaps

    def _result(self, x: Tensor) -> Tensor:
        """x projected (snapping points a rounding error inside the radius: see poincare.project) when
        every result is projected, else x."""
        return pb.project(x, self.c, self.dim, snap=pb.PROJECT_SNAP) if self.project_results else x

    def add(self, x: Tensor, y: Tensor) -> Tensor:
        return self._result(pb.mobius_add(x, y, self.c, self.dim))

    def scalar_mul(self, r: Tensor, x: Tensor) -> Tensor:
        return self._result(pb.mobius_scalar_mul(r, x, self.c, self.dim))

    def matvec_result(self, mx: Tensor, x: Tensor) -> Tensor:
        return self._result(pb.mobius_matvec_result(mx, x, self.c, self.dim))

    def dist2(self, x: Tensor, y: Tensor) -> Tensor:
        """d_c(x, y)^2, keeping `dim`."""
        d = pb.dist(x, y, self.c, self.dim)
        if self.project_results:
            d = d.clamp_max(2 / self.c ** 0.5 * math.atanh(1 - pb.BALL_EPS))
        return d.pow(2).unsqueeze(self.dim)

    def project(self, x: Tensor) -> Tensor:
        return pb.project(x, self.c, self.dim)

    def in_ball(self, x: Tensor) -> Tensor:
        """An operation's result x projected into the ball, unless the operation did so already
        (project_results)."""
        return x if self.project_results else self.project(x)

    def expmap0(self, v: Tensor) -> Tensor:
        return self._result(pb.expmap0(v, self.c, self.dim))

    def logmap0(self, x: Tensor, project: bool = False) -> Tensor:
        """log_0(x), or log_0(project(x)) computed without the projected point (see poincare.logmap0)."""
        return pb.logmap0(x, self.c, self.dim, project)

    def pointwise(self, f, x: Tensor) -> Tensor:
        """phi^(x)(x) = exp_0(f(log_0(x))) (see poincare.mobius_pointwise)."""
        return self._result(pb.mobius_pointwise(f, x, self.c, self.dim))

    def affine_log0(self, mx: Tensor, x: Tensor, u: Tensor, b: Tensor) -> Tensor:
        """log_0 of the projection of (M (x) x) (+) u (+) b (the GRU's gates before the sigmoid), from
        mx = M x. With carry_gaps, each result's gap 1 - c||.||^2 is carried from M (x) x's exact one
        (poincare.mobius_matvec_result_and_gap) through (+) into log_0: a stretching M puts M (x) x near or on
        the margin, where float32 coordinates fix the gap, and log_0's artanh, to 0.3 % only."""
        if not self.carry_gaps:
            return self.logmap0(self.add(self.add(self.matvec_result(mx, x), u), b), project=True)
        c, dim = self.c, self.dim
        y, gap_y = self._result_and_gap(*pb.mobius_matvec_result_and_gap(mx, x, c, dim))
        for v in (u, b):
            gap_v = pb.gap(v, c, dim)
            y, gap_y = self._result_and_gap(pb.mobius_add(y, v, c, dim, gap_y, gap_v),
                                            pb.mobius_add_gap(y, v, c, dim, gap_y, gap_v))
        return pb.logmap0(y, c, dim, project=True, gap_y=gap_y)

    def _result_and_gap(self, y: Tensor, gap_y: Tensor) -> tuple[Tensor, Tensor]:
        """y and its carried gap, projected (deciding from the gap) when every result is."""
        if not self.project_results:
            return y, gap_y
        return pb.project_with_gap(y, gap_y, self.c, self.dim)


def space(hyperbolic: bool, c: float = 1.0, project_results: bool = False,
          carry_gaps: bool = False) -> Euclidean | PoincareBall:
    return PoincareBall(c, project_results=project_results, carry_gaps=carry_gaps) if hyperbolic else Euclidean()
