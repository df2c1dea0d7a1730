"""The hyperboloid (Lorentz model) H^n_c = {x in R^{n+1} : <x, x>_L = -1/c, x_0 > 0} of curvature -c.

<x, y>_L = -x_0 y_0 + <x_s, y_s> is the Minkowski inner product (x_s: the n space coordinates, x_0 the
time coordinate); the origin is o = (1/sqrt(c), 0). Points and tangent vectors are [..., n + 1] with
their coordinates along `dim` (the time coordinate first), as in geoopt's `Lorentz(k = 1/c)`;
every function is batched over the other dimensions. Formulas (their curvature -1 or -1/K written
with c = 1/K): Nickel & Kiela (2018, "Learning continuous hierarchies in the Lorentz model of hyperbolic
geometry", section 3: distance, Riemannian gradient, exponential map, the isometry with the ball),
Chami et al. (2019, "Hyperbolic graph convolutional networks", section 3 and appendix: exp, log,
parallel transport at curvature -1/K), Ganea et al. (2018, section 2: Mobius addition as
exp_x(P_{0->x}(log_0 y))); the float32 limits of each chart: Mishne et al. (2023, "The numerical
stability of hyperbolic representation learning").

Numerics (float32 as carefully as `poincare`):
- the time coordinate is always the function sqrt(1/c + ||x_s||^2) of the space coordinates (`time`,
  `project`): the sheet is then exact to rounding, whatever the space coordinates;
- no Minkowski product of two points is formed where it cancels: -c<x, y>_L - 1 = 2 sinh^2(sqrt(c) d/2)
  (`_half_dist_sinh`) is the norm of a difference of the points' ball coordinates x_s/(1 + sqrt(c) x_0)
  times exact factors, with no O(cosh^2 d) terms, so that arcosh near 1 (close points, or a point near
  o: arcosh(sqrt(c) x_0) = asinh(sqrt(c) ||x_s||)) keeps its digits;
- Mobius addition (the transvection that moves o to x, `translate`) is written as a sum of the
  summands' space coordinates plus a correction with no cancellation, as `poincare.mobius_add`;
- exp_x and log_x go through the origin (exp_x = T_x o exp_o o P_{x->o}, log_x = P_{o->x} o log_o o
  T_x^{-1}), never cosh(|u|) x + sinh(|u|) u/|u|, whose terms cancel for a step towards o.
Arguments of cosh and sinh are capped at MAX_ARG = 30 = 2 x 15 (the ball's tanh clip on half-distances):
points at most sqrt(c) d = 30 from o, the same cap as on the ball, within float32's range (cosh^2 30 = 3e25).
"""

from __future__ import annotations

import torch
from torch import Tensor

from noneuclid.geometry.poincare import MIN_NORM, check_curvature

MAX_ARG = 30.0


def _norm2(x: Tensor, dim: int = -1) -> Tensor:
    return x.pow(2).sum(dim, keepdim=True)


def _norm(x: Tensor, dim: int = -1) -> Tensor:
    return x.norm(dim=dim, keepdim=True).clamp_min(MIN_NORM)


def _dot(x: Tensor, y: Tensor, dim: int = -1) -> Tensor:
    return (x * y).sum(dim, keepdim=True)


def split(x: Tensor, dim: int = -1) -> tuple[Tensor, Tensor]:
    """(x_0 [..., 1], x_s [..., n]): the time and space coordinates of x [..., n + 1]."""
    return x.narrow(dim, 0, 1), x.narrow(dim, 1, x.shape[dim] - 1)


def time(xs: Tensor, c, dim: int = -1) -> Tensor:
    """x_0 = sqrt(1/c + ||x_s||^2) [..., 1]: the time coordinate of the point of the sheet with space
    coordinates x_s."""
    return (1 / c + _norm2(xs, dim)).sqrt()


def lift(xs: Tensor, c, dim: int = -1) -> Tensor:
    """The point (time(x_s), x_s) of the sheet [..., n + 1] with space coordinates x_s [..., n]."""
    return torch.cat([time(xs, c, dim), xs], dim)


def origin(n: int, c, dtype=None, device=None) -> Tensor:
    """o = (1/sqrt(c), 0, ..., 0) [n + 1]."""
    o = torch.zeros(n + 1, dtype=dtype, device=device)
    o[0] = 1 / c**0.5
    return o


def inner(x: Tensor, y: Tensor, dim: int = -1) -> Tensor:
    """<x, y>_L = -x_0 y_0 + <x_s, y_s> [..., 1] (Nickel & Kiela 2018, section 3)."""
    (x0, xs), (y0, ys) = split(x, dim), split(y, dim)
    return _dot(xs, ys, dim) - x0 * y0


def project(x: Tensor, c, dim: int = -1) -> Tensor:
    """The point of the sheet with x's space coordinates: (sqrt(1/c + ||x_s||^2), x_s) (geoopt's projx)."""
    check_curvature(c)
    return lift(split(x, dim)[1], c, dim)


def project_tangent(x: Tensor, u: Tensor, c, dim: int = -1) -> Tensor:
    """The orthogonal projection of u in R^{n+1} onto T_x: u + c <x, u>_L x (Nickel & Kiela 2018, section 3)."""
    check_curvature(c)
    return u + c * inner(x, u, dim) * x


def egrad2rgrad(x: Tensor, g: Tensor, c, dim: int = -1) -> Tensor:
    """The Riemannian gradient of a function with Euclidean gradient g at x: project_tangent(x, J g),
    J = diag(-1, 1, ..., 1) (the inverse of the Minkowski metric; Nickel & Kiela 2018, section 3)."""
    g0, gs = split(g, dim)
    return project_tangent(x, torch.cat([-g0, gs], dim), c, dim)


def tangent_norm(x: Tensor, u: Tensor, c, dim: int = -1) -> Tensor:
    """||u||_L = sqrt(<u, u>_L) [..., 1] of u in T_x, from the space coordinates alone: with
    u_0 = <x_s, u_s>/x_0, <u, u>_L = (||u_s||^2/c + ||x_s||^2 ||u_perp||^2)/x_0^2, u_perp the part of
    u_s orthogonal to x_s. The textbook ||u_s||^2 - u_0^2 cancels two O(cosh^2 d(o, x)) terms."""
    x0, xs = split(x, dim)
    us = split(u, dim)[1]
    xs2 = _norm2(xs, dim)
    u_perp = us - _dot(xs, us, dim) / xs2.clamp_min(MIN_NORM) * xs
    return ((_norm2(us, dim) / c + xs2 * _norm2(u_perp, dim)) / x0.pow(2)).sqrt()


def _alpha(x0: Tensor, c) -> Tensor:
    """1 + sqrt(c) x_0 (= lambda_p^c, the conformal factor of the ball point p that x is)."""
    return 1 + c**0.5 * x0


def _half_dist_sinh(x0: Tensor, xs: Tensor, y0: Tensor, ys: Tensor, c, dim: int = -1) -> Tensor:
    """sinh(sqrt(c) d(x, y) / 2) = sqrt(c)/2 ||x_s/a_x - y_s/a_y|| sqrt(a_x a_y), a = 1 + sqrt(c) x_0,
    [..., 1], from the time and space coordinates of x and y: the ball's sqrt(c)||p - q|| / sqrt(g_p g_q)
    (poincare._half_dist) with p = x_s / a_x (to_ball, every digit kept) and g_p = 2 / a_x exact. p - q
    loses only what the points' coordinates do not know (close points far out); the hyperboloid's
    a_y x_s - a_x y_s would cancel O(e^((r_x + r_y - d)/2)) of its digits for points at r_x, r_y from o."""
    ax, ay = _alpha(x0, c), _alpha(y0, c)
    return c**0.5 / 2 * (xs / ax - ys / ay).norm(dim=dim, keepdim=True) * (ax * ay).sqrt()


def _half_dist_sinh2(x0: Tensor, xs: Tensor, y0: Tensor, ys: Tensor, c, dim: int = -1) -> Tensor:
    """_half_dist_sinh squared, without its square roots: c/4 ||x_s/a_x - y_s/a_y||^2 a_x a_y."""
    ax, ay = _alpha(x0, c), _alpha(y0, c)
    return c / 4 * _norm2(xs / ax - ys / ay, dim) * (ax * ay)


def dist(x: Tensor, y: Tensor, c, dim: int = -1) -> Tensor:
    """d_c(x, y) = arcosh(-c <x, y>_L) / sqrt(c) (Chami et al. 2019, section 3), evaluated as
    2/sqrt(c) asinh(sinh(sqrt(c) d/2)) (`_half_dist_sinh`): arcosh(1 + t) at t = 2 sinh^2(sqrt(c) d/2)
    without forming 1 + t. Shape [...]."""
    check_curvature(c)
    return (2 / c**0.5 * torch.asinh(_half_dist_sinh(*split(x, dim), *split(y, dim), c, dim))).squeeze(dim)


def dist_space(xs: Tensor, ys: Tensor, c, dim: int = -1) -> Tensor:
    """dist of the points with space coordinates x_s, y_s [..., n] (time coordinates from them), [..., 1]."""
    hs = _half_dist_sinh(time(xs, c, dim), xs, time(ys, c, dim), ys, c, dim)
    return 2 / c**0.5 * torch.asinh(hs)


def dist0(x: Tensor, c, dim: int = -1) -> Tensor:
    """d_c(o, x) = arcosh(sqrt(c) x_0)/sqrt(c) = asinh(sqrt(c) ||x_s||)/sqrt(c), [..., 1] (exact near o)."""
    return dist0_space(split(x, dim)[1], c, dim)


def dist0_space(xs: Tensor, c, dim: int = -1) -> Tensor:
    """d_c(o, x) from x's space coordinates [..., n]: asinh(sqrt(c) ||x_s||)/sqrt(c), [..., 1]."""
    return torch.asinh(c**0.5 * xs.norm(dim=dim, keepdim=True)) / c**0.5


def expmap0(v: Tensor, c, dim: int = -1) -> Tensor:
    """exp_o(v) = (cosh(sqrt(c)||v_s||)/sqrt(c), sinh(sqrt(c)||v_s||) v_s/(sqrt(c)||v_s||)) for v in T_o
    (v_0 = 0; its time coordinate is ignored); Chami et al. 2019, section 3 at x = o."""
    return lift(expmap0_space(split(v, dim)[1], c, dim), c, dim)


def expmap0_space(vs: Tensor, c, dim: int = -1) -> Tensor:
    """The space coordinates of exp_o((0, v_s)): sinh(sqrt(c)||v_s||) v_s/(sqrt(c)||v_s||), [..., n]."""
    check_curvature(c)
    sc, v_norm = c**0.5, _norm(vs, dim)
    return torch.sinh((sc * v_norm).clamp_max(MAX_ARG)) * vs / (sc * v_norm)


def logmap0(x: Tensor, c, dim: int = -1) -> Tensor:
    """log_o(x) = (0, d_c(o, x) x_s/||x_s||) (Chami et al. 2019, section 3 at o), d_c(o, x) by `dist0`."""
    xs = split(x, dim)[1]
    return torch.cat([torch.zeros_like(xs.narrow(dim, 0, 1)), logmap0_space(xs, c, dim)], dim)


def logmap0_space(xs: Tensor, c, dim: int = -1) -> Tensor:
    """The space coordinates of log_o(x) from x's: asinh(sqrt(c)||x_s||) x_s/(sqrt(c)||x_s||), the norm
    clamped away from 0 (the map's gradient at o is then the identity, as poincare.logmap0's)."""
    check_curvature(c)
    sc_norm = c**0.5 * _norm(xs, dim)
    return torch.asinh(sc_norm) / sc_norm * xs


def transport0(x: Tensor, v: Tensor, c, dim: int = -1) -> Tensor:
    """P_{o->x}(v) = v + c <x, v>_L / (1 - c <o, x>_L) (o + x) for v in T_o (Chami et al. 2019, appendix),
    = (sqrt(c) <x_s, v_s>, v_s + c <x_s, v_s> x_s / (1 + sqrt(c) x_0)): no cancellation."""
    check_curvature(c)
    x0, xs = split(x, dim)
    vs = split(v, dim)[1]
    xv = _dot(xs, vs, dim)
    return torch.cat([c**0.5 * xv, vs + c * xv / _alpha(x0, c) * xs], dim)


def transport0_back(x: Tensor, u: Tensor, c, dim: int = -1) -> Tensor:
    """P_{x->o}(u) = (0, u_s - sqrt(c) u_0 x_s / (1 + sqrt(c) x_0)) for u in T_x (the inverse of transport0)."""
    check_curvature(c)
    x0, xs = split(x, dim)
    u0, us = split(u, dim)
    return torch.cat([torch.zeros_like(u0), us - c**0.5 * u0 / _alpha(x0, c) * xs], dim)


def transport(x: Tensor, y: Tensor, u: Tensor, c, dim: int = -1) -> Tensor:
    """P_{x->y}(u) = u + c <y, u>_L / (1 - c <x, y>_L) (x + y) for u in T_x (Chami et al. 2019, appendix),
    with <y, u>_L = <y - x, u>_L (u is orthogonal to x) and 1 - c<x, y>_L = 2 + 2 sinh^2(sqrt(c) d/2)."""
    check_curvature(c)
    (x0, xs), (y0, ys), (u0, us) = split(x, dim), split(y, dim), split(u, dim)
    d0 = _dot(ys - xs, ys + xs, dim) / (x0 + y0)  # y_0 - x_0
    yu = _dot(ys - xs, us, dim) - d0 * u0
    return u + c * yu / (2 + 2 * _half_dist_sinh2(x0, xs, y0, ys, c, dim)) * (x + y)


def _translate(x0: Tensor, xs: Tensor, y0: Tensor, ys: Tensor, c, dim: int = -1) -> Tensor:
    """The space coordinates of x (+)_c y (see translate) from the coordinates of x and y, [..., n]."""
    ax = _alpha(x0, c)
    t = 2 * _half_dist_sinh2(x0, -xs, y0, ys, c, dim)
    ay_ax = c**0.5 * _dot(ys - xs, ys + xs, dim) / (x0 + y0)  # a_y - a_x
    k_minus_1 = (ay_ax + t) / ax
    near = k_minus_1.abs() < 0.5
    return torch.where(near, (xs + ys) + xs * k_minus_1, ys + xs * ((ax + ay_ax + t) / ax))


def translate(x: Tensor, y: Tensor, c, dim: int = -1) -> Tensor:
    """x (+)_c y: the transvection T_x (the isometry that moves o to x along their geodesic, and T_x at o
    is P_{o->x}) applied to y, i.e. exp_x(P_{o->x}(log_o y)), Ganea et al.'s Mobius addition (their
    section 2 identity) in hyperboloid coordinates. As a Lorentz boost, for c = 1:
        (x (+) y)_s = y_s + x_s (y_0 + <x_s, y_s>/(1 + x_0)) = y_s + x_s (a_y + t) / a_x,
    a = 1 + sqrt(c) x_0, t = 2 sinh^2(sqrt(c) d(-x, y)/2) = -c<-x, y>_L - 1 (-x: x_s negated), which has
    no cancellation. Near y = -x (the GRU's -h (+) h~) the factor is near 1 and the sum cancels; then
    (x_s + y_s) + x_s (a_y - a_x + t)/a_x, whose a_y - a_x = sqrt(c) <y_s - x_s, y_s + x_s>/(x_0 + y_0)."""
    check_curvature(c)
    return lift(_translate(*split(x, dim), *split(y, dim), c, dim), c, dim)


def translate_space(xs: Tensor, ys: Tensor, c, dim: int = -1) -> Tensor:
    """translate on space coordinates [..., n] (time coordinates from them), [..., n]."""
    check_curvature(c)
    return _translate(time(xs, c, dim), xs, time(ys, c, dim), ys, c, dim)


def expmap(x: Tensor, u: Tensor, c, dim: int = -1) -> Tensor:
    """exp_x(u) = cosh(sqrt(c)||u||_L) x + sinh(sqrt(c)||u||_L) u/(sqrt(c)||u||_L) (Nickel & Kiela 2018,
    section 3; Chami et al. 2019, section 3), evaluated as T_x(exp_o(P_{x->o}(u))): the two terms of the
    textbook form cancel for a step towards o."""
    return translate(x, expmap0(transport0_back(x, u, c, dim), c, dim), c, dim)


def logmap(x: Tensor, y: Tensor, c, dim: int = -1) -> Tensor:
    """log_x(y) = d_c(x, y) (y + c<x, y>_L x)/||y + c<x, y>_L x||_L (Chami et al. 2019, section 3), evaluated
    as P_{o->x}(log_o(T_x^{-1}(y))), T_x^{-1} = T_{-x}: y + c<x, y>_L x cancels for close points."""
    neg = torch.cat([split(x, dim)[0], -split(x, dim)[1]], dim)
    return transport0(x, logmap0(translate(neg, y, c, dim), c, dim), c, dim)


def to_ball(x: Tensor, c, dim: int = -1) -> Tensor:
    """The isometry onto the Poincare ball: p = x_s / (1 + sqrt(c) x_0) (Nickel & Kiela 2018, section 3;
    Chami et al. 2019, section 3), [..., n]."""
    check_curvature(c)
    x0, xs = split(x, dim)
    return xs / _alpha(x0, c)


def from_ball(p: Tensor, c, dim: int = -1) -> Tensor:
    """The inverse isometry: x = ((1 + c||p||^2) / (sqrt(c)(1 - c||p||^2)), 2p / (1 - c||p||^2))
    (Nickel & Kiela 2018, section 3, at curvature -c), [..., n + 1]; x_0 from the space coordinates."""
    return lift(from_ball_space(p, c, dim), c, dim)


def from_ball_space(p: Tensor, c, dim: int = -1) -> Tensor:
    """The space coordinates of from_ball(p): 2p / (1 - c||p||^2), [..., n]."""
    check_curvature(c)
    return 2 * p / (1 - c * _norm2(p, dim)).clamp_min(MIN_NORM)


def to_ball_space(xs: Tensor, c, dim: int = -1) -> Tensor:
    """to_ball of the point with space coordinates x_s: x_s / (1 + sqrt(c) time(x_s)), [..., n]."""
    check_curvature(c)
    return xs / _alpha(time(xs, c, dim), c)


def tangent_from_ball(p: Tensor, v: Tensor, c, dim: int = -1) -> Tensor:
    """The differential of from_ball at p applied to v (a tangent vector of the ball at p, Euclidean
    coordinates), [..., n + 1]: the space part is 2v/g + 4c<p, v>p/g^2 (g = 1 - c||p||^2); the time
    coordinate follows from tangency, u_0 = <x_s, u_s>/x_0. At p = 0 it is (0, 2v)."""
    g = 1 - c * _norm2(p, dim)
    us = 2 * v / g + 4 * c * _dot(p, v, dim) * p / g.pow(2)
    x0, xs = split(from_ball(p, c, dim), dim)
    return torch.cat([_dot(xs, us, dim) / x0, us], dim)
