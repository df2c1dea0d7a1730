"""The Poincare ball D^n_c = {x : c ||x||^2 < 1} of curvature -c (Ganea, Becigneul, Hofmann 2018).

Every function takes the curvature c > 0 (a float or a tensor broadcastable to the points) and is
batched over the other dimensions: points and tangent vectors are [..., n] with their coordinates
along `dim` (the last by default, as in geoopt; `noneuclid.nn.recurrent` keeps the batch last,
[..., n, batch] with dim=-2, so that compiled kernels vectorize over the batch instead of over n = 5).
As c -> 0 each operation tends to its Euclidean counterpart (x + y, r x, M x, x + v, ...).

Numerics follow the original code: norms are clamped away from 0 (MIN_NORM), tanh arguments are
clipped to +-15, artanh arguments stay below 1, and `project` pulls points back inside the ball of
radius (1 - BALL_EPS)/sqrt(c), with BALL_EPS = 1e-5 in every dtype (the original code's PROJ_EPS), so
that float32 and float64 compute the same model. geoopt widens the float32 margin to 4e-3; that caps
the tangent norm of a projected point at artanh(1 - 4e-3) = 3.1 instead of artanh(1 - 1e-5) = 6.1,
a different model, with which the hyperbolic RNN of Ganea et al. stays at chance level on PREFIX-10
in float64 as in float32. float32 keeps about 2 significant digits of 1 - c||x||^2
at the margin (its spacing near 1 is 6e-8); the formulas avoid every other cancellation near the
boundary (mobius_add, mobius_add_gap, dist and logmap are written with the gaps 1 - c||x||^2 and
||x +- y||).
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

MIN_NORM = 1e-15
BALL_EPS = 1e-5
PROJECT_SNAP = 1e-6  # see project
MARGIN_GAP = 1 - (1 - BALL_EPS) ** 2  # 1 - c r^2 at the projection's radius r = (1 - BALL_EPS)/sqrt(c): 2e-5
GAP_SNAP = 1e-5  # see project_with_gap


def check_curvature(c) -> None:
    """ValueError unless c > 0 (a float, or every element of a tensor)."""
    if torch.is_tensor(c):
        if not bool((c > 0).all()):
            raise ValueError("the curvature parameter c must be > 0 (the ball has curvature -c)")
    elif not c > 0:
        raise ValueError(f"the curvature parameter c must be > 0 (the ball has curvature -c), got {c}")


def _norm(x: Tensor, dim: int = -1) -> Tensor:
    return x.norm(dim=dim, keepdim=True).clamp_min(MIN_NORM)


def _norm2(x: Tensor, dim: int = -1) -> Tensor:
    """||x||^2, keeping `dim`."""
    return x.pow(2).sum(dim, keepdim=True)


def gap(x: Tensor, c, dim: int = -1) -> Tensor:
    """1 - c ||x||^2 (= 2 / lambda_x^c), keeping `dim`: how far x is from the boundary, the quantity that
    float32 knows least well there (to about 1e-7 absolute)."""
    return 1 - c * _norm2(x, dim)


def _tanh(x: Tensor) -> Tensor:
    return torch.tanh(x.clamp(-15, 15))


def _artanh(x: Tensor) -> Tensor:
    """artanh(x) = (log1p(x) - log1p(-x)) / 2, x clamped inside (-1, 1): to full relative precision also
    under torch.compile, whose CPU atanh is 11 % off at x = 1e-15 (9e-5 at 1e-12), as r (x) 0 evaluates it."""
    x = x.clamp(-1 + 1e-15, 1 - 1e-15) if x.dtype == torch.float64 else x.clamp(-1 + 1e-7, 1 - 1e-7)
    return 0.5 * (torch.log1p(x) - torch.log1p(-x))


def conformal_factor(x: Tensor, c, dim: int = -1) -> Tensor:
    """lambda_x^c = 2 / (1 - c ||x||^2), shape [..., 1]."""
    check_curvature(c)
    return 2 / gap(x, c, dim).clamp_min(MIN_NORM)


def project(x: Tensor, c, dim: int = -1, snap: float = 0.0) -> Tensor:
    """Points at norm >= (1 - eps)/sqrt(c) are moved radially to that norm; others are unchanged.

    snap: points within a relative `snap` inside that norm are put on it too. The projection's
    Jacobian drops the radial direction, so its gradient jumps at the radius; a point projected before
    and then moved by a rounding error alone (x (+) 0) would fall on either side of it by chance, and
    float32 and float64 would differ there by the whole radial gradient. With snap = PROJECT_SNAP
    (16 float32 spacings) such points are projected again, in every dtype."""
    check_curvature(c)
    max_norm = (1 - BALL_EPS) / c**0.5
    norm = _norm(x, dim)
    return torch.where(norm > max_norm * (1 - snap), x / norm * max_norm, x)


def project_with_gap(x: Tensor, gap_x: Tensor, c, dim: int = -1) -> tuple[Tensor, Tensor]:
    """project(x) and its gap, deciding from x's gap `gap_x` carried to full precision (rather than
    recomputed from x's coordinates): points with gap_x below the margin's, or within a relative
    GAP_SNAP above it, go onto the radius (gap MARGIN_GAP). The snap plays PROJECT_SNAP's part (a point
    on the margin moved by a rounding error alone stays on it) at a 60th of its width in the gap
    (PROJECT_SNAP = 1e-6 of the norm is 5 % of the margin's gap: log_0 there jumps by 0.025)."""
    on = gap_x < MARGIN_GAP * (1 + GAP_SNAP)
    max_norm = (1 - BALL_EPS) / c**0.5
    return torch.where(on, x / _norm(x, dim) * max_norm, x), torch.where(on, torch.full_like(gap_x, MARGIN_GAP), gap_x)


def mobius_add(
    x: Tensor, y: Tensor, c, dim: int = -1, gap_x: Tensor | None = None, gap_y: Tensor | None = None
) -> Tensor:
    """x (+)_c y = ((1 + 2c<x,y> + c||y||^2) x + (1 - c||x||^2) y) / (1 + 2c<x,y> + c^2 ||x||^2 ||y||^2)

    evaluated as (g_x (x + y) + c||x + y||^2 x) / (c||x + y||^2 + g_x g_y) with g = 1 - c||.||^2: the
    same rational function as a ratio of sums of non-negative terms. The textbook form cancels O(1)
    terms when y is near -x (e.g. -h (+) h~ in the GRU): its numerator loses ||x|| / ||x + y|| digits,
    and at the boundary its denominator, about g_x g_y ~ 4e-10, is below float32's rounding of 1 and
    comes out as noise, 0 or negative. Here x + y is exact for such pairs, and nothing cancels.
    gap_x, gap_y: the gaps when known more precisely than from the coordinates (see
    mobius_matvec_result_and_gap).
    """
    check_curvature(c)
    s = x + y
    s2 = _norm2(s, dim)
    gap_x, gap_y = _gaps(x, y, c, dim, gap_x, gap_y)
    return (gap_x * s + c * s2 * x) / (c * s2 + gap_x * gap_y).clamp_min(MIN_NORM)


def _gaps(x: Tensor, y: Tensor, c, dim: int, gap_x: Tensor | None, gap_y: Tensor | None) -> tuple[Tensor, Tensor]:
    """The gaps of x and y: those given, else from the coordinates."""
    return (gap(x, c, dim) if gap_x is None else gap_x), (gap(y, c, dim) if gap_y is None else gap_y)


def mobius_add_gap(
    x: Tensor, y: Tensor, c, dim: int = -1, gap_x: Tensor | None = None, gap_y: Tensor | None = None
) -> Tensor:
    """1 - c||x (+)_c y||^2 = g_x g_y / (c||x + y||^2 + g_x g_y), g = 1 - c||.||^2 ([..., 1]): the
    denominator is mobius_add's. Subtracting c||x (+)_c y||^2 from 1 cancels near the boundary: for
    x and y both there and apart, the gap is about g_x g_y (1e-10 at the margin), below float32's
    spacing of 1, so that float32 gives 0 or less; this form keeps its relative precision, and that of
    gap_x and gap_y when given (else from the coordinates)."""
    check_curvature(c)
    gap_x, gap_y = _gaps(x, y, c, dim, gap_x, gap_y)
    return gap_x * gap_y / (c * _norm2(x + y, dim) + gap_x * gap_y).clamp_min(MIN_NORM)


def mobius_scalar_mul(r, x: Tensor, c, dim: int = -1) -> Tensor:
    """r (x)_c x = tanh(r artanh(sqrt(c) ||x||)) x / (sqrt(c) ||x||)."""
    check_curvature(c)
    sc, norm = c**0.5, _norm(x, dim)
    return _tanh(r * _artanh(sc * norm)) * x / (sc * norm)


def mobius_matvec(M: Tensor, x: Tensor, c) -> Tensor:
    """M (x)_c x = tanh(||Mx||/||x|| artanh(sqrt(c)||x||)) Mx / (sqrt(c)||Mx||), and 0 where Mx = 0.

    M is [out, in] and acts on the last dimension of x [..., in]; the result is [..., out].
    """
    return mobius_matvec_result(x @ M.mT, x, c)


def mobius_matvec_result(mx: Tensor, x: Tensor, c, dim: int = -1) -> Tensor:
    """M (x)_c x from the Euclidean product mx = M x, for maps applied otherwise than as one matrix
    (e.g. diag(z) (x) u = mobius_matvec_result(z * u, u, c), or a matrix that differs per example)."""
    return mobius_matvec_result_and_gap(mx, x, c, dim, with_gap=False)[0]


def mobius_matvec_result_and_gap(
    mx: Tensor, x: Tensor, c, dim: int = -1, with_gap: bool = True
) -> tuple[Tensor, Tensor | None]:
    """(M (x)_c x, its gap 1 - c||M (x)_c x||^2) from mx = M x. M (x)_c x = tanh(a) Mx / (sqrt(c)||Mx||)
    with a = ||Mx||/||x|| artanh(sqrt(c)||x||), so its gap is 1 / cosh^2(a), to full relative
    precision; from the result's coordinates float32 knows it to 6e-8 absolute only: 0.3 % of the
    margin's gap 2e-5, where a stretching W (x) h lands. with_gap=False: the gap is None."""
    check_curvature(c)
    sc = c**0.5
    x_norm, mx_norm = _norm(x, dim), _norm(mx, dim)
    a = mx_norm / x_norm * _artanh(sc * x_norm)
    res = _tanh(a) * mx / (mx_norm * sc)
    res = torch.where((mx == 0).all(dim, keepdim=True), torch.zeros_like(res), res)
    return res, torch.cosh(a.clamp_max(15)).pow(-2) if with_gap else None


def _expmap_summand(x: Tensor, v: Tensor, c, dim: int = -1) -> Tensor:
    """y = tanh(sqrt(c) lambda_x ||v|| / 2) v / (sqrt(c) ||v||), so that exp_x(v) = x (+)_c y."""
    sc, v_norm = c**0.5, _norm(v, dim)
    return _tanh(sc * conformal_factor(x, c, dim) * v_norm / 2) * v / (sc * v_norm)


def expmap(x: Tensor, v: Tensor, c, dim: int = -1) -> Tensor:
    """exp_x(v) = x (+)_c (tanh(sqrt(c) lambda_x ||v|| / 2) v / (sqrt(c) ||v||))."""
    check_curvature(c)
    return mobius_add(x, _expmap_summand(x, v, c, dim), c, dim)


def expmap_step(x: Tensor, v: Tensor, c, dim: int = -1) -> Tensor:
    """exp_x(v) - x without forming exp_x(v): with y = tanh(sqrt(c) lambda_x ||v|| / 2) v / (sqrt(c) ||v||)
    and g = 1 - c||.||^2, x (+)_c y - x = g_x (y + c||y||^2 x) / (c||x + y||^2 + g_x g_y).

    A step far below x's size is computed to full relative precision (x (+)_c y - x cancels its
    leading digits: in float32 at the boundary a Riemannian SGD step keeps none of them), so an
    optimizer can carry what the addition x + step rounds away (`optim.RiemannianSGD`, compensated).
    """
    check_curvature(c)
    y = _expmap_summand(x, v, c, dim)
    gap_x, y2 = gap(x, c, dim), _norm2(y, dim)
    return gap_x * (y + c * y2 * x) / (c * _norm2(x + y, dim) + gap_x * (1 - c * y2)).clamp_min(MIN_NORM)


def _half_dist(x: Tensor, y: Tensor, c, dim: int = -1) -> Tensor:
    """artanh(sqrt(c) ||-x (+)_c y||) = asinh(sqrt(c) ||x - y|| / sqrt((1 - c||x||^2)(1 - c||y||^2))), [..., 1].

    The right side has no cancellation: for far pairs near the boundary the artanh argument is 1 - 1e-10
    (two points at the margin), which float32 rounds to 1 (the distance saturates and its gradient is 0),
    and for close pairs ||-x (+) y|| cancels O(1) terms. ||x - y|| has gradient 0 (not NaN) at x = y.
    """
    gaps = gap(x, c, dim) * gap(y, c, dim)
    return torch.asinh(c**0.5 * (x - y).norm(dim=dim, keepdim=True) / gaps.clamp_min(MIN_NORM).sqrt())


def logmap(x: Tensor, y: Tensor, c, dim: int = -1) -> Tensor:
    """log_x(y) = 2 / (sqrt(c) lambda_x) artanh(sqrt(c) ||-x (+)_c y||) (-x (+)_c y) / ||-x (+)_c y||."""
    check_curvature(c)
    u = mobius_add(-x, y, c, dim)
    return 2 / (c**0.5 * conformal_factor(x, c, dim)) * _half_dist(x, y, c, dim) * u / _norm(u, dim)


def expmap0(v: Tensor, c, dim: int = -1) -> Tensor:
    """exp_0(v) = tanh(sqrt(c) ||v||) v / (sqrt(c) ||v||)."""
    check_curvature(c)
    sc, v_norm = c**0.5, _norm(v, dim)
    return _tanh(sc * v_norm) * v / (sc * v_norm)


def logmap0(y: Tensor, c, dim: int = -1, project: bool = False, gap_y: Tensor | None = None) -> Tensor:
    """log_0(y) = artanh(sqrt(c) ||y||) y / (sqrt(c) ||y||); with project=True, log_0(project(y)):
    sqrt(c) ||y|| capped at the margin 1 - BALL_EPS, without forming the projected point. That is exact
    in float32, where the projected point's norm, recomputed, is off by up to 6e-8, which artanh's
    slope 1/(1 - c||y||^2) = 5e4 at the margin turns into an error of 3e-3 (the GRU's saturated
    gates, the FFNN output before a Euclidean MLR).

    gap_y: y's gap 1 - c||y||^2 carried to full precision (mobius_matvec_result_and_gap, mobius_add_gap); then,
    away from the origin (gap < 1/2), artanh(n) = log1p(n) - log(gap_y) / 2 with n = sqrt(c)||y||
    (since gap = (1 - n)(1 + n)): the precision of the gap, not of 1 - n recomputed from y. A point
    just inside the margin (gap 2.2e-5) has float32 coordinates that fix 1 - n to 0.3 % only."""
    check_curvature(c)
    sc, y_norm = c**0.5, _norm(y, dim)
    scaled = (sc * y_norm).clamp_max(1 - BALL_EPS) if project else sc * y_norm
    artanh = _artanh(scaled)
    if gap_y is not None:
        gap_y = gap_y.clamp_min(MARGIN_GAP) if project else gap_y.clamp_min(MIN_NORM)
        artanh = torch.where(gap_y < 0.5, torch.log1p(scaled) - 0.5 * torch.log(gap_y), artanh)
    return artanh * y / (sc * y_norm)


def dist(x: Tensor, y: Tensor, c, dim: int = -1) -> Tensor:
    """d_c(x, y) = 2 / sqrt(c) artanh(sqrt(c) ||-x (+)_c y||), shape [...] (evaluated by _half_dist)."""
    check_curvature(c)
    return (2 / c**0.5 * _half_dist(x, y, c, dim)).squeeze(dim)


def mobius_pointwise(f: Callable[[Tensor], Tensor], x: Tensor, c, dim: int = -1) -> Tensor:
    """phi^(x)_c(x) = exp_0(phi(log_0(x))): a Euclidean non-linearity applied in the tangent space at 0."""
    return expmap0(f(logmap0(x, c, dim)), c, dim)


def transport0(x: Tensor, v: Tensor, c, dim: int = -1) -> Tensor:
    """Parallel transport of v from T_0 to T_x: P_{0->x}(v) = (lambda_0 / lambda_x) v = (1 - c||x||^2) v
    (used for the hyperbolic MLR's normals a_k = (1 - c||p_k||^2) a'_k)."""
    check_curvature(c)
    return gap(x, c, dim) * v


def boundary_share(x: Tensor, c, tol: float = 1e-3) -> Tensor:
    """The share of the points x [..., points, coordinates] with 1 - sqrt(c)||x|| < tol, [...] (a saturation health
    metric for hidden states: a recurrence whose states sit at the boundary has no radial gradient)."""
    check_curvature(c)
    return (1 - c**0.5 * x.norm(dim=-1) < tol).to(x.dtype).mean(-1)
