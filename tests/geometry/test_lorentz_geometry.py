"""Property tests for the hyperboloid of curvature -c (`noneuclid.geometry.lorentz`) and its space
(`spaces.Lorentz`): the isometry with the Poincare ball carries every operation of one model to the
other's, and distances, exp/log and transport agree with geoopt 0.5.1's `Lorentz(k = 1/c)`.

Points are drawn at hyperbolic distance up to R/sqrt(c), R = 10, from the origin (ball norms up to
tanh(R/2)/sqrt(c)); everything is float64 unless a test says otherwise. Two points of the ball are
compared by their hyperbolic distance (`_assert_same_points`), which is what the tolerance 1e-10 bounds,
plus the ball's own resolution at the result: a float64 ball point is known to about
eps lambda_x = 2.2e-16 x 2/(1 - c||x||^2) in distance (2e-12 at sqrt(c) d(0, x) = 10, 5e-8 at 20, where
the sum of two points at R lands).
"""

from __future__ import annotations

import geoopt
import pytest
import torch
from metric_checks import assert_triangle_inequality
from torch.testing import assert_close

from noneuclid.geometry import lorentz as L, poincare as P
from noneuclid.geometry.spaces import Lorentz, PoincareBall

DT = torch.float64
CS = (1.0, 0.3, 2.5)
SHAPE = (4, 3, 5)
R = 10.0


def _tangent0(c: float, shape=SHAPE, radius: float = R, dtype=DT) -> torch.Tensor:
    """Vectors of the ball's tangent space at 0 (Euclidean coordinates) of Riemannian norm up to
    radius/sqrt(c) (the ball's metric at 0 is 2 I): exp_0 of them lies up to radius/sqrt(c) from 0."""
    u = torch.randn(*shape, dtype=dtype)
    return u / u.norm(dim=-1, keepdim=True) * torch.rand(*shape[:-1], 1, dtype=dtype) * radius / (2 * c**0.5)


def _ball(c: float, shape=SHAPE, radius: float = R) -> torch.Tensor:
    """Points of the ball up to hyperbolic distance radius/sqrt(c) from 0."""
    return P.expmap0(_tangent0(c, shape, radius), c)


def _assert_same_points(x: torch.Tensor, y: torch.Tensor, c: float, tol: float = 1e-10) -> None:
    """x and y (points of the ball) at hyperbolic distance below tol, plus 10 float64 spacings of the
    ball's resolution at y (eps lambda_y, in distance)."""
    resolution = 10 * torch.finfo(DT).eps * P.conformal_factor(y, c).squeeze(-1)
    assert bool((P.dist(x, y, c) < tol + resolution).all()), float((P.dist(x, y, c) - resolution).max())


def _on_sheet_error(x: torch.Tensor, c: float) -> float:
    """max |c <x, x>_L + 1| / (c x_0^2): the sheet's equation relative to its terms."""
    x0 = L.split(x)[0]
    return float(((c * L.inner(x, x) + 1) / (c * x0**2)).abs().max())


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


# -- the hyperboloid and its isometry with the ball ----------------------------------------------


@pytest.mark.parametrize("c", CS)
def test_points_lie_on_the_sheet(c):
    x = L.from_ball(_ball(c), c)
    assert _on_sheet_error(x, c) < 1e-15
    assert _on_sheet_error(L.project(x + 1e-3 * torch.randn_like(x), c), c) < 1e-15
    assert (L.split(x)[0] > 0).all()


@pytest.mark.parametrize("c", CS)
def test_isometry_round_trips(c):
    p = _ball(c)
    assert_close(L.to_ball(L.from_ball(p, c), c), p, rtol=1e-13, atol=1e-15)
    x = L.from_ball(p, c)
    assert_close(L.from_ball(L.to_ball(x, c), c), x, rtol=1e-12, atol=1e-12)
    assert_close(L.to_ball_space(L.split(x)[1], c), p, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("c", CS)
def test_isometry_carries_dist(c):
    p, q = _ball(c), _ball(c)
    x, y = L.from_ball(p, c), L.from_ball(q, c)
    assert_close(L.dist(x, y, c), P.dist(p, q, c), rtol=1e-12, atol=1e-12)
    assert_close(L.dist0(x, c).squeeze(-1), P.dist(p, torch.zeros_like(p), c), rtol=1e-12, atol=1e-12)
    assert_close(L.dist_space(L.split(x)[1], L.split(y)[1], c).squeeze(-1), L.dist(x, y, c), rtol=1e-14, atol=0)


@pytest.mark.parametrize("c", CS)
def test_translate_is_mobius_addition_and_ganeas_identity(c):
    """x (+) y = T_x(y) = exp_x(P_{0->x}(log_0 y)), also for y near -x (the GRU's -h (+) h~). The pairs near
    -x are drawn on the hyperboloid and carried to the ball (to_ball keeps every digit): from the ball,
    2p/(1 - c||p||^2) knows the gap of p at radius 10 to 1e-12 only, which y_s + x_s, cancelling, exposes."""
    xs = L.split(L.from_ball(_ball(c), c))[1]
    ys = torch.cat([L.split(L.from_ball(_ball(c), c))[1], -xs * (1 - 1e-9), -xs], 0)
    x, y = L.lift(torch.cat([xs, xs, xs], 0), c), L.lift(ys, c)
    p, q = L.to_ball(x, c), L.to_ball(y, c)
    _assert_same_points(L.to_ball(L.translate(x, y, c), c), P.mobius_add(p, q, c), c)
    via_exp = L.expmap(x, L.transport0(x, L.logmap0(y, c), c), c)
    _assert_same_points(L.to_ball(via_exp, c), P.mobius_add(p, q, c), c, tol=1e-9)


@pytest.mark.parametrize("c", CS)
def test_exp_log_and_transport_are_the_balls_through_the_isometry(c):
    """log_x y, exp_x u and P_{0->x} v equal the ball's, tangent vectors carried by the isometry's differential."""
    p, q, v = _ball(c), _ball(c), _tangent0(c)
    x, y = L.from_ball(p, c), L.from_ball(q, c)
    log = L.logmap(x, y, c)
    assert_close(log, L.tangent_from_ball(p, P.logmap(p, q, c), c), rtol=1e-11, atol=1e-11)
    _assert_same_points(L.to_ball(L.expmap(x, log, c), c), q, c, tol=1e-8)
    v_o = L.tangent_from_ball(torch.zeros_like(p), v, c)
    assert_close(L.transport0(x, v_o, c), L.tangent_from_ball(p, P.transport0(p, v, c), c), rtol=1e-11, atol=1e-11)
    assert_close(L.transport0_back(x, L.transport0(x, v_o, c), c), v_o, rtol=1e-10, atol=1e-10)
    assert_close(L.to_ball(L.expmap0(v_o, c), c), P.expmap0(v, c), rtol=1e-13, atol=1e-13)
    assert_close(L.logmap0(L.from_ball(P.expmap0(v, c), c), c), v_o, rtol=1e-11, atol=1e-11)


@pytest.mark.parametrize("c", CS)
def test_log_has_the_norm_of_the_distance_and_transport_is_an_isometry(c):
    x, y = L.from_ball(_ball(c), c), L.from_ball(_ball(c), c)
    log = L.logmap(x, y, c)
    assert_close(L.tangent_norm(x, log, c).squeeze(-1), L.dist(x, y, c), rtol=1e-11, atol=1e-12)
    u = L.project_tangent(x, torch.randn(*SHAPE[:-1], SHAPE[-1] + 1, dtype=DT), c)
    moved = L.transport(x, y, u, c)
    assert_close(L.tangent_norm(y, moved, c), L.tangent_norm(x, u, c), rtol=1e-9, atol=1e-12)
    scale = y.norm(dim=-1, keepdim=True) * moved.norm(dim=-1, keepdim=True)
    assert float((L.inner(y, moved) / scale).abs().max()) < 1e-12  # tangent at y


@pytest.mark.parametrize("c", CS)
def test_close_points_keep_their_distance_in_float32(c):
    """arcosh near 1 is stable: d = 1e-3 between points at distance 0 and 5 from o, float32 against float64."""
    p = _ball(c, radius=5.0)
    q = P.expmap(p, 1e-3 / P.conformal_factor(p, c) * torch.nn.functional.normalize(torch.randn_like(p), dim=-1), c)
    for p_, q_ in ((p, q), (torch.zeros_like(p), P.expmap0(torch.full_like(p, 1e-3 / 2 / 5**0.5), c))):
        x, y = L.from_ball(p_, c), L.from_ball(q_, c)
        exact = L.dist(x, y, c)
        assert_close(L.dist(x.float(), y.float(), c).double(), exact, rtol=1e-3, atol=0)


@pytest.mark.parametrize("c", CS)
def test_riemannian_sgd_stays_on_the_sheet_and_reaches_its_target(c):
    """x <- exp_x(-lr grad d(x, t)^2 / 2), the Riemannian gradient from the Euclidean one (egrad2rgrad)."""
    target = L.from_ball(_ball(c, radius=6.0), c)
    x = L.from_ball(_ball(c, radius=6.0), c)
    for _ in range(60):
        x = x.detach().requires_grad_()
        (L.dist(x, target, c).pow(2) / 2).sum().backward()
        x = L.expmap(x.detach(), -0.3 * L.egrad2rgrad(x.detach(), x.grad, c), c)
        assert _on_sheet_error(x, c) < 1e-15
    assert float(L.dist(x, target, c).max()) < 1e-6


# -- the metric: triangle inequality, translations are isometries ----------------------------------


def _seeded_sheet(g: torch.Generator, c: float, count: int, max_frac: float = 0.9, radius: float | None = None):
    """count points of the sheet [count, n + 1] drawn from the generator g: the images of ball points with
    sqrt(c) ||p|| uniform in [0, max_frac) (up to 2 artanh(0.9) = 2.94 from o, times 1/sqrt(c)), or, given
    `radius`, at hyperbolic distance uniform in [0, radius/sqrt(c)) from o."""
    u = torch.randn(count, SHAPE[-1], dtype=DT, generator=g)
    u = u / u.norm(dim=-1, keepdim=True)
    r = torch.rand(count, 1, dtype=DT, generator=g)
    p = u * (max_frac * r / c**0.5) if radius is None else P.expmap0(u * (r * radius / (2 * c**0.5)), c)
    return L.from_ball(p, c)


def _on_geodesic(g: torch.Generator, x: torch.Tensor, z: torch.Tensor, c: float) -> torch.Tensor:
    """exp_x(t log_x(z)) for t uniform in [0, 1): a point of the geodesic segment from x to z."""
    t = torch.rand(*x.shape[:-1], 1, dtype=DT, generator=g)
    return L.expmap(x, t * L.logmap(x, z, c), c)


@pytest.mark.parametrize("c", CS)
def test_dist_triangle_inequality(c):
    """d(x, z) <= d(x, y) + d(y, z) (up to 1e-12 (1 + d(x, z))) for 3000 random triples (ball images with
    sqrt(c)||p|| < 0.9), and for 1000 nearly degenerate ones: y at distance 1e-4/sqrt(c) from the geodesic
    segment from x to z, where the inequality holds by as little as 1e-9."""
    g = torch.Generator().manual_seed(52)
    x, y, z = (_seeded_sheet(g, c, 3000) for _ in range(3))
    xn, zn = _seeded_sheet(g, c, 1000), _seeded_sheet(g, c, 1000)
    on = _on_geodesic(g, xn, zn, c)
    off = L.project_tangent(on, torch.randn(on.shape, dtype=DT, generator=g), c)
    yn = L.expmap(on, off * (1e-4 / c**0.5) / L.tangent_norm(on, off, c), c)
    triples = (torch.cat(pair) for pair in ((x, xn), (y, yn), (z, zn)))
    assert_triangle_inequality(lambda a, b: L.dist(a, b, c), *triples, degenerate=1000)


@pytest.mark.parametrize("c", CS)
def test_dist_is_additive_along_geodesics(c):
    """d(x, y) + d(y, z) = d(x, z) to 1e-12 relative for y = exp_x(t log_x(z)), t in [0, 1) (measured: 8e-16),
    ball images with sqrt(c)||p|| < 0.9. Not at R = 10: there exp_x(t log_x z) lands up to 1.5e-5 off the
    geodesic (relative excess up to 3e-9 for d ~ 18), as the ambient coordinates of a tangent vector at x
    fix its direction to about eps cosh(sqrt(c) d(o, x)) only, which exp amplifies by sinh(sqrt(c) d)."""
    g = torch.Generator().manual_seed(53)
    x, z = _seeded_sheet(g, c, 2000), _seeded_sheet(g, c, 2000)
    y = _on_geodesic(g, x, z, c)
    assert_close(L.dist(x, y, c) + L.dist(y, z, c), L.dist(x, z, c), rtol=1e-12, atol=0)


@pytest.mark.parametrize("c", CS)
def test_dist_is_symmetric(c):
    """d(x, y) = d(y, x) (to 1e-14; every step of its evaluation is symmetric), and d(x, x) = 0, for points
    up to R/sqrt(c) from o."""
    g = torch.Generator().manual_seed(54)
    x, y = _seeded_sheet(g, c, 1000, radius=R), _seeded_sheet(g, c, 1000, radius=R)
    assert_close(L.dist(x, y, c), L.dist(y, x, c), rtol=1e-14, atol=0)
    assert_close(L.dist(x, x, c), torch.zeros(1000, dtype=DT), rtol=0, atol=1e-12)


@pytest.mark.parametrize("c", CS)
def test_translate_is_an_isometry(c):
    """d(T_x y, T_x z) = d(y, z) to 1e-12 relative (measured: 4e-15), ball images with sqrt(c)||p|| < 0.9:
    the transvection T_x (Mobius addition x (+) ., `translate`) is an isometry of the hyperboloid."""
    g = torch.Generator().manual_seed(55)
    x, y, z = (_seeded_sheet(g, c, 1000) for _ in range(3))
    assert_close(L.dist(L.translate(x, y, c), L.translate(x, z, c), c), L.dist(y, z, c), rtol=1e-12, atol=0)


# -- the tangent projection and the Riemannian gradient ---------------------------------------------


def _sizes(*ts: torch.Tensor) -> torch.Tensor:
    """The product of the Euclidean norms of the ambient vectors ts, [..., 1]: the size of the terms that a
    Minkowski product of them sums."""
    out = torch.ones_like(ts[0][..., :1])
    for t in ts:
        out = out * t.norm(dim=-1, keepdim=True)
    return out


@pytest.mark.parametrize("c", CS)
def test_project_tangent_is_an_idempotent_projection_onto_the_tangent_space(c):
    """P(u) = u + c <x, u>_L x is tangent, <x, P(u)>_L = 0, and idempotent, P(P(u)) = P(u) (which differs from
    P(u) by c <x, P(u)>_L x), for points up to R/sqrt(c) from o: both to 8 eps times the size of the terms
    (|<x, P(u)>_L| <= 8 eps |x| |P(u)|, |P(P(u)) - P(u)| <= 8 eps c |x|^2 |P(u)|; measured: 1.5 eps)."""
    g = torch.Generator().manual_seed(56)
    eps = torch.finfo(DT).eps
    x = _seeded_sheet(g, c, 2000, radius=R)
    pu = L.project_tangent(x, torch.randn(x.shape, dtype=DT, generator=g), c)
    assert bool((L.inner(x, pu).abs() <= 8 * eps * _sizes(x, pu)).all())
    again = L.project_tangent(x, pu, c)
    assert bool(((again - pu).norm(dim=-1, keepdim=True) <= 8 * eps * c * _sizes(x, x, pu)).all())
    assert float(x.norm(dim=-1).max()) > 1e3  # points far out, where the terms are large


@pytest.mark.parametrize("c", CS)
def test_egrad2rgrad_is_the_gradient_for_the_minkowski_metric(c):
    """rgrad = egrad2rgrad(x, g) is tangent at x and represents the Euclidean derivative in the Minkowski metric:
    <rgrad, v>_L = <g, v> (Euclidean) for every tangent v, for points up to R/sqrt(c) from o, to 8 eps times the
    size of the terms (measured: 1.9 eps)."""
    g = torch.Generator().manual_seed(57)
    eps = torch.finfo(DT).eps
    x = _seeded_sheet(g, c, 2000, radius=R)
    egrad = torch.randn(x.shape, dtype=DT, generator=g)
    rgrad = L.egrad2rgrad(x, egrad, c)
    assert bool((L.inner(x, rgrad).abs() <= 8 * eps * _sizes(x, rgrad)).all())
    v = L.project_tangent(x, torch.randn(x.shape, dtype=DT, generator=g), c)
    euclidean = (egrad * v).sum(-1, keepdim=True)
    assert bool(((L.inner(rgrad, v) - euclidean).abs() <= 8 * eps * _sizes(rgrad, v)).all())


# -- geoopt 0.5.1's Lorentz(k = 1/c) --------------------------------------------------------------


def _rel(a: torch.Tensor, b: torch.Tensor) -> float:
    return float(((a - b).norm(dim=-1) / b.norm(dim=-1).clamp_min(1e-300)).max())


@pytest.mark.parametrize("c", CS)
def test_geoopt_agreement_dist_inner_projections(c):
    M = geoopt.Lorentz(k=torch.tensor(1 / c, dtype=DT))
    x, y = L.from_ball(_ball(c), c), L.from_ball(_ball(c), c)
    assert_close(L.dist(x, y, c), M.dist(x, y), rtol=1e-11, atol=1e-11)
    assert_close(L.dist0(x, c).squeeze(-1), M.dist0(x), rtol=1e-11, atol=1e-11)
    assert_close(L.inner(x, y).squeeze(-1), M.inner(x, x, y), rtol=1e-14, atol=0)
    z = torch.randn_like(x)
    assert_close(L.project(z, c), M.projx(z), rtol=1e-14, atol=0)
    assert_close(L.project_tangent(x, z, c), M.proju(x, z), rtol=1e-12, atol=1e-12)
    assert_close(L.egrad2rgrad(x, z, c), M.egrad2rgrad(x, z), rtol=1e-12, atol=1e-12)
    u = M.proju(x, z)
    assert_close(L.tangent_norm(x, u, c).squeeze(-1), M.norm(u), rtol=1e-7, atol=0)  # geoopt's cancels


@pytest.mark.parametrize("c", CS)
@pytest.mark.parametrize("radius, tol", [(3.0, 1e-11), (5.0, 1e-8)])
def test_geoopt_agreement_exp_log_transport(c, radius, tol):
    """exp, log, exp_0, log_0 and transport equal geoopt's up to radius 5. Beyond, geoopt's textbook forms
    cancel O(cosh^2 r) terms (measured at c = 0.7, float64, relative error of the result: exp_x 5e-10 at
    r = 5, 8e-6 at 8, 7.5e-3 at 10; log_x 1.4e-9 at 10), where ours stays the ball's to 1e-11 (test above)."""
    M = geoopt.Lorentz(k=torch.tensor(1 / c, dtype=DT))
    x, y = L.from_ball(_ball(c, radius=radius), c), L.from_ball(_ball(c, radius=radius), c)
    log = L.logmap(x, y, c)
    assert _rel(log, M.logmap(x, y)) < tol
    assert _rel(L.expmap(x, log, c), M.expmap(x, log)) < tol
    u = M.proju(x, torch.randn_like(x))
    assert _rel(L.transport(x, y, u, c), M.transp(x, y, u)) < tol
    v = L.tangent_from_ball(torch.zeros_like(L.to_ball(x, c)), _tangent0(c, radius=radius), c)
    assert _rel(L.expmap0(v, c), M.expmap0(v)) < tol
    assert _rel(L.logmap0(x, c), M.logmap0(x)) < tol
    o = L.origin(SHAPE[-1], c, dtype=DT).expand_as(x)
    assert _rel(L.transport0(x, v, c), M.transp(o, x, v)) < tol


# -- the Lorentz space is the PoincareBall space in another chart ---------------------------------


def _spaces(c: float, project_results: bool, dim: int = -1) -> tuple[Lorentz, PoincareBall]:
    return Lorentz(c, dim, project_results), PoincareBall(c, dim, project_results)


def _chart(space: Lorentz, x: torch.Tensor) -> torch.Tensor:
    return space.from_ball(x)


def _to_ball(space: Lorentz, x: torch.Tensor) -> torch.Tensor:
    return L.to_ball_space(x, space.c, space.dim)


@pytest.mark.parametrize("c", CS)
@pytest.mark.parametrize("project_results", [False, True])
def test_space_operations_agree_with_the_balls(c, project_results):
    """add, scalar_mul, matvec_result, expmap0, pointwise, project on the hyperboloid, carried to the ball,
    are the ball's; dist2, logmap0, affine_log0 (tangent vectors and numbers) equal the ball's."""
    lor, ball = _spaces(c, project_results)
    x, y, b = _ball(c), _ball(c), _ball(c, radius=3.0)
    X, Y, B = _chart(lor, x), _chart(lor, y), _chart(lor, b)
    r = torch.rand(*SHAPE[:-1], 1, dtype=DT) * 4 - 2
    W = torch.randn(SHAPE[-1], SHAPE[-1], dtype=DT)
    mx, mX = x @ W.mT, X @ W.mT  # M x on each chart's coordinates (x_s is parallel to the ball's x)
    v = _tangent0(c)
    pairs = {
        "add": (lor.add(X, Y), ball.add(x, y)),
        "add -x": (lor.add(-X, Y), ball.add(-x, y)),
        "scalar_mul": (lor.scalar_mul(r, X), ball.scalar_mul(r, x)),
        "matvec_result": (lor.matvec_result(mX, X), ball.matvec_result(mx, x)),
        "expmap0": (lor.expmap0(v), ball.expmap0(v)),
        "pointwise": (lor.pointwise(torch.tanh, X), ball.pointwise(torch.tanh, x)),
        "project": (lor.project(_chart(lor, P.expmap0(v * 2, c))), ball.project(P.expmap0(v * 2, c))),
    }
    for ours, theirs in pairs.values():
        _assert_same_points(_to_ball(lor, ours), theirs, c)
    assert_close(lor.dist2(X, Y), ball.dist2(x, y), rtol=1e-12, atol=1e-12)
    assert_close(lor.logmap0(X), ball.logmap0(x), rtol=1e-12, atol=1e-12)
    assert_close(lor.logmap0(X, project=True), ball.logmap0(x, project=True), rtol=1e-11, atol=1e-11)
    assert_close(lor.affine_log0(mX, X, Y, B), ball.affine_log0(mx, x, y, b), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("c", CS)
@pytest.mark.parametrize("project_results", [False, True])
def test_hyperplane_logits_agree_with_the_balls(c, project_results):
    """The MLR's logits: the hyperboloid's signed distance to {<x, P_{0->p}(2 a)>_L = 0} times 2||a|| is
    the ball's eq. 25, for points and hyperplanes up to R from the origin (and beyond, projected)."""
    lor, ball = _spaces(c, project_results)
    x, p, a0 = _ball(c), _ball(c, radius=6.0), torch.randn(*SHAPE, dtype=DT)
    assert_close(lor.hyperplane_logits(_chart(lor, x), p, a0), ball.hyperplane_logits(x, p, a0), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("c", CS)
def test_space_along_dim_minus_2_is_the_space_on_the_transpose(c):
    lor = Lorentz(c)
    x, y = _chart(lor, _ball(c)), _chart(lor, _ball(c))
    along = lor.along(-2)
    assert_close(along.add(x.mT, y.mT).mT, lor.add(x, y), rtol=1e-14, atol=0)
    assert_close(along.dist2(x.mT, y.mT).mT, lor.dist2(x, y), rtol=1e-14, atol=0)
    assert_close(along.logmap0(x.mT, project=True).mT, lor.logmap0(x, project=True), rtol=1e-14, atol=0)
    assert_close(along.from_ball(_ball(c).mT).shape, x.mT.shape)


@pytest.mark.parametrize("c", CS)
def test_boundary_share_counts_the_balls_points_in_either_chart(c):
    """The hyperboloid's boundary share of points is the ball's of the same points (the saturation metric
    of Table 1's runs reads the same in both charts), for points near the boundary and far inside."""
    lor, ball = _spaces(c, project_results=False)
    x = torch.cat([_ball(c, radius=5.0), _ball(c, radius=14.0)], dim=-2)  # [4, 6, 5]: 1 - sqrt(c)|x| to 3e-6
    share = ball.boundary_share(x)
    assert 0 < float(share.mean()) < 1  # points on both sides of the tolerance
    assert_close(lor.boundary_share(_chart(lor, x)), share, rtol=0, atol=0)
    assert_close(lor.boundary_share(_chart(lor, x), tol=1e-5), ball.boundary_share(x, tol=1e-5), rtol=0, atol=0)
