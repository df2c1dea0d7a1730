"""The spaces of Ganea et al.'s models behind one interface, so that each layer is written once.

`PoincareBall(c)` gives the Mobius operations of `poincare`; `Lorentz(c)` gives the same operations
computed on the hyperboloid (`lorentz`), the same functions in another chart; `Euclidean()` gives their c -> 0 limits
(x + y, r x, M x, ||x - y||, identity maps), so a Euclidean RNN or GRU is the same formula as the
hyperbolic one with its space swapped (Ganea et al., section 3: the hyperbolic layers "tend to" the
Euclidean ones as c -> 0). Points and vectors have their coordinates along the space's `dim` (the
last by default); every method broadcasts over the other dimensions.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from noneuclid.geometry import lorentz as lz, poincare as pb

CHARTS = ("poincare", "lorentz")


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

    def from_ball(self, p: Tensor) -> Tensor:
        """A point given in the ball's coordinates (a parameter): p itself (the Euclidean models' points)."""
        return p

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

    def from_ball(self, p: Tensor) -> Tensor:
        """A point given in the ball's coordinates (a parameter, a data point): p itself."""
        return p

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
            d = d.clamp_max(2 / self.c**0.5 * math.atanh(1 - pb.BALL_EPS))
        return d.pow(2).unsqueeze(self.dim)

    def project(self, x: Tensor) -> Tensor:
        return pb.project(x, self.c, self.dim)

    def boundary_share(self, x: Tensor, tol: float = 1e-3) -> Tensor:
        """The share of the points x [..., points, coordinates] within `tol` of the boundary,
        1 - sqrt(c)||x|| < tol, [...] (poincare.boundary_share)."""
        return pb.boundary_share(x, self.c, tol)

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
            y, gap_y = self._result_and_gap(
                pb.mobius_add(y, v, c, dim, gap_y, gap_v), pb.mobius_add_gap(y, v, c, dim, gap_y, gap_v)
            )
        return pb.logmap0(y, c, dim, project=True, gap_y=gap_y)

    def _result_and_gap(self, y: Tensor, gap_y: Tensor) -> tuple[Tensor, Tensor]:
        """y and its carried gap, projected (deciding from the gap) when every result is."""
        if not self.project_results:
            return y, gap_y
        return pb.project_with_gap(y, gap_y, self.c, self.dim)

    def hyperplane_logits(self, x: Tensor, p: Tensor, a0: Tensor) -> Tensor:
        """The MLR's logits (Ganea et al. eq. 25) for points x, hyperplane points p and normals a0 at the
        origin (coordinates along the last dimension, broadcast):
            logit = lambda_p ||a|| / sqrt(c) * asinh(2 sqrt(c) <-p (+) x, a> / ((1 - c ||-p (+) x||^2) ||a||))
        with a = (1 - c ||p||^2) a0 (transport0). With project_results, -p (+) x is projected (its gap
        then at least the margin's), as the original code's tf_mob_add."""
        c, sc = self.c, self.c**0.5
        a = pb.transport0(p, a0, c)
        diff = pb.mobius_add(-p, x, c)
        gap = pb.mobius_add_gap(-p, x, c).squeeze(-1)  # 1 - c||-p (+) x||^2, no cancellation
        if self.project_results:
            diff = pb.project(diff, c, snap=pb.PROJECT_SNAP)
            on_margin = gap <= 1 - ((1 - pb.BALL_EPS) * (1 - pb.PROJECT_SNAP)) ** 2  # the points project moved
            gap = torch.where(on_margin, 1 - (1 - pb.BALL_EPS) ** 2, gap)
        a_norm = a.norm(dim=-1).clamp_min(pb.MIN_NORM)
        lam = pb.conformal_factor(p, c).squeeze(-1)
        denom = (gap * a_norm).clamp_min(pb.MIN_NORM)
        return lam * a_norm / sc * torch.asinh(2 * sc * (diff * a).sum(-1) / denom)


class Lorentz:
    """The hyperboloid of curvature -c (`noneuclid.geometry.lorentz`) with the operations of the
    PoincareBall, each native on the hyperboloid and equal to the ball's through the isometry, so that a
    network is the same function in either chart and any difference is numerics:
        x (+) y = T_x(y) = exp_x(P_{0->x}(log_0 y))    (Ganea et al.'s identity; lorentz.translate)
        M (x) x = exp_0(M log_0 x),  r (x) x = exp_0(r log_0 x),  phi^(x)(x) = exp_0(phi(log_0 x))
        d(x, y), and the MLR's distance to the hyperplane {<x, P_{0->p}(a)>_L = 0} (hyperplane_logits).

    A point is held by its n space coordinates x_s ([..., n] along `dim`, as the ball's points): its time
    coordinate sqrt(1/c + ||x_s||^2) is computed at every use (lorentz.time), so every point lies on the
    sheet and the layers keep their shapes. Since log_0 x is parallel to x_s (as to the ball point),
    a layer's Euclidean product M x_s is M log_0 x up to a scalar, as on the ball (matvec_result).

    What stays in the ball's coordinates (the network's interface): parameters that are points (word
    embeddings, biases, the MLR's p_k) are PoincareParameters trained by the same Riemannian SGD on the
    ball and carried into this chart at use (from_ball); so are data points (Table 2's embeddings).
    Tangent vectors at the origin (expmap0, logmap0: the GRU's gates, the input of a Euclidean MLR)
    are the ball's at 0, half the hyperboloid's (the isometry's differential at 0 is 2 I).

    project_results: every result is moved onto the ball's radius (1 - BALL_EPS)/sqrt(c) in this chart,
    the sphere of radius R = 2/sqrt(c) artanh(1 - BALL_EPS) about o (||x_s|| = sinh(sqrt(c) R)/sqrt(c)),
    with the ball's snap; distances are capped at R. The ball's carried gaps are not needed here:
    log_0 x = asinh(sqrt(c)||x_s||)/sqrt(c) x_s/||x_s|| has no cancellation anywhere.
    """

    hyperbolic = True

    def __init__(self, c: float = 1.0, dim: int = -1, project_results: bool = False):
        pb.check_curvature(c)
        self.c, self.dim, self.project_results = c, dim, project_results

    def along(self, dim: int) -> Lorentz:
        """The same hyperboloid with the coordinates of points along `dim`."""
        return Lorentz(self.c, dim, self.project_results)

    def key(self) -> tuple:
        """What tells the hyperboloid's operations apart (a cache key for compiled functions)."""
        return type(self).__name__, self.c, self.dim, self.project_results

    def from_ball(self, p: Tensor) -> Tensor:
        """The point of the ball p (a parameter, a data point) in this chart: 2p / (1 - c||p||^2)."""
        return lz.from_ball_space(p, self.c, self.dim)

    def _radius(self, ball_norm: float) -> float:
        """||x_s|| of the points at the ball's norm ball_norm/sqrt(c):
        sinh(2 artanh t)/sqrt(c) = 2t/(sqrt(c)(1 - t^2))."""
        return 2 * ball_norm / (self.c**0.5 * (1 - ball_norm**2))

    def project(self, x: Tensor, snap: float = 0.0) -> Tensor:
        """Points beyond the ball's projection radius, or within its relative `snap` inside (poincare.project),
        moved radially onto it."""
        max_norm = self._radius(1 - pb.BALL_EPS)
        norm = x.norm(dim=self.dim, keepdim=True).clamp_min(pb.MIN_NORM)
        return torch.where(norm > self._radius((1 - pb.BALL_EPS) * (1 - snap)), x / norm * max_norm, x)

    def _result(self, x: Tensor) -> Tensor:
        return self.project(x, snap=pb.PROJECT_SNAP) if self.project_results else x

    def boundary_share(self, x: Tensor, tol: float = 1e-3) -> Tensor:
        """The ball's boundary share of the points x [..., points, coordinates] (its points within `tol` of
        the boundary, sqrt(c)||p|| > 1 - tol), here ||x_s|| > _radius(1 - tol): the same points, [...]."""
        return (x.norm(dim=-1) > self._radius(1 - tol)).to(x.dtype).mean(-1)

    def in_ball(self, x: Tensor) -> Tensor:
        """An operation's result x projected, unless the operation did so already (project_results)."""
        return x if self.project_results else self.project(x)

    def add(self, x: Tensor, y: Tensor) -> Tensor:
        return self._result(lz.translate_space(x, y, self.c, self.dim))

    def scalar_mul(self, r: Tensor, x: Tensor) -> Tensor:
        """r (x) x = exp_0(r log_0 x)."""
        return self._result(lz.expmap0_space(r * lz.logmap0_space(x, self.c, self.dim), self.c, self.dim))

    def matvec_result(self, mx: Tensor, x: Tensor) -> Tensor:
        """M (x) x = exp_0(M log_0 x) from mx = M x_s: M log_0 x = d(o, x)/||x_s|| mx; 0 where mx = 0."""
        sc_norm = self.c**0.5 * x.norm(dim=self.dim, keepdim=True).clamp_min(pb.MIN_NORM)
        res = lz.expmap0_space(torch.asinh(sc_norm) / sc_norm * mx, self.c, self.dim)
        return self._result(torch.where((mx == 0).all(self.dim, keepdim=True), torch.zeros_like(res), res))

    def dist2(self, x: Tensor, y: Tensor) -> Tensor:
        """d_c(x, y)^2, keeping `dim`."""
        d = lz.dist_space(x, y, self.c, self.dim)
        if self.project_results:
            d = d.clamp_max(2 / self.c**0.5 * math.atanh(1 - pb.BALL_EPS))
        return d.pow(2)

    def expmap0(self, v: Tensor) -> Tensor:
        """exp_0 of v, a tangent vector of the ball at 0 (the hyperboloid's 2v)."""
        return self._result(lz.expmap0_space(2 * v, self.c, self.dim))

    def logmap0(self, x: Tensor, project: bool = False) -> Tensor:
        """log_0(x) as a tangent vector of the ball at 0, d(o, x)/2 x_s/||x_s||; with project, of x projected
        (d(o, x) capped at the projection's radius)."""
        v = lz.logmap0_space(x, self.c, self.dim) / 2
        if not project:
            return v
        max_norm = math.atanh(1 - pb.BALL_EPS) / self.c**0.5  # the projection's radius R/2
        norm = v.norm(dim=self.dim, keepdim=True).clamp_min(pb.MIN_NORM)
        return torch.where(norm > max_norm, v / norm * max_norm, v)

    def pointwise(self, f, x: Tensor) -> Tensor:
        """phi^(x)(x) = exp_0(f(log_0(x)))."""
        return self.expmap0(f(self.logmap0(x)))

    def affine_log0(self, mx: Tensor, x: Tensor, u: Tensor, b: Tensor) -> Tensor:
        """log_0 of the projection of (M (x) x) (+) u (+) b (the GRU's gates before the sigmoid), from mx = M x_s."""
        return self.logmap0(self.add(self.add(self.matvec_result(mx, x), u), b), project=True)

    def hyperplane_logits(self, x: Tensor, p: Tensor, a0: Tensor) -> Tensor:
        """The MLR's logits (Ganea et al. eq. 25) for points x [..., n] of this chart, hyperplane points p
        [..., n] in the ball's coordinates and normals a0 [..., n] at the origin (the ball's): with
        w = P_{0->p}(2 a0) (the hyperboloid's normal at p, ||w||_L = 2||a0||) the signed distance to
        {y : <y, w>_L = 0} is asinh(sqrt(c) <x, w>_L / ||w||_L)/sqrt(c) (Cho et al. 2019, "Large-margin
        classification in hyperbolic space"), and the logit is ||w||_L times it. <x, w>_L =
        <T_p^{-1}(x), 2 a0>_L = 2 <(-p (+) x)_s, a0>: T_p^{-1} carries p to o and w to 2 a0, and -p (+) x is
        formed without cancellation (lorentz.translate), where <x, w>_L itself cancels O(cosh^2 d(o, p))."""
        diff = self._result(lz.translate_space(-self.from_ball(p), x, self.c, self.dim))
        a_norm = a0.norm(dim=-1).clamp_min(pb.MIN_NORM)
        sc = self.c**0.5
        return 2 * a_norm / sc * torch.asinh(sc * (diff * a0).sum(-1) / a_norm)


def space(
    hyperbolic: bool, c: float = 1.0, project_results: bool = False, carry_gaps: bool = False, chart: str = "poincare"
) -> Euclidean | PoincareBall | Lorentz:
    """The Euclidean space, or hyperbolic space of curvature -c in `chart`: "poincare" (the ball) or
    "lorentz" (the hyperboloid; carry_gaps is the ball's alone)."""
    if chart not in CHARTS:
        raise ValueError(f"model.chart must be one of {CHARTS}, got {chart!r}")
    if not hyperbolic:
        if chart != "poincare":
            raise ValueError(
                "model.chart chooses the chart of hyperbolic space: leave it poincare for a Euclidean model"
            )
        return Euclidean()
    if chart == "lorentz":
        return Lorentz(c, project_results=project_results)
    return PoincareBall(c, project_results=project_results, carry_gaps=carry_gaps)
