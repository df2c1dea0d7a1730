"""Property tests for the Poincare-ball operations of Ganea, Becigneul, Hofmann, "Hyperbolic Neural Networks".

Notation (the blog post ../shared/papers/ganea_hyperbolic_neural_networks_blog.txt, generalised to
curvature -c as in the paper; docs/hnn.md, "Values taken from the paper"):
    D^n_c = {x : c ||x||^2 < 1},  lambda_x = 2 / (1 - c ||x||^2),
    x (+) y  Mobius addition,  r (x) x  Mobius scalar multiplication,  M (x) x  Mobius matrix-vector product,
    exp_x / log_x  exponential and logarithmic maps,  d(x, y)  geodesic distance.

Everything is float64 unless a test says otherwise; points are batched as (4, 3, n). Tolerances of the
form "1e-10" mean rtol = atol = 1e-10 (torch.testing.assert_close: |a - b| <= atol + rtol |b|).
"""

from __future__ import annotations

import math

import pytest
import torch
from metric_checks import assert_triangle_inequality
from torch.testing import assert_close

from noneuclid.geometry import poincare as P

DT = torch.float64
CS = (1.0, 0.3, 2.5)
SHAPE = (4, 3, 5)
N = SHAPE[-1]


# -- helpers ------------------------------------------------------------------------------------


def _unit(*shape: int, dtype=DT) -> torch.Tensor:
    u = torch.randn(*shape, dtype=dtype)
    return u / u.norm(dim=-1, keepdim=True)


def _points(c: float, shape=SHAPE, max_frac: float = 0.9, dtype=DT) -> torch.Tensor:
    """Random points with sqrt(c) ||x|| uniform in [0, max_frac)."""
    radius = max_frac * torch.rand(*shape[:-1], 1, dtype=dtype) / c**0.5
    return _unit(*shape, dtype=dtype) * radius


def _boundary_points(c: float, shape=SHAPE, eps: float = 1e-5, dtype=DT) -> torch.Tensor:
    """Random points at norm (1 - eps) / sqrt(c) up to rounding (eps = 1e-5: the float64 projection radius)."""
    return _unit(*shape, dtype=dtype) * ((1 - eps) / c**0.5)


def _sqnorm(x: torch.Tensor) -> torch.Tensor:
    return x.pow(2).sum(-1, keepdim=True)


def _closed_form_dist(x: torch.Tensor, y: torch.Tensor, c: float) -> torch.Tensor:
    """The blog's d(x, y) = arccosh(1 + 2c||x-y||^2 / ((1 - c||x||^2)(1 - c||y||^2))) / sqrt(c)."""
    arg = 1 + 2 * c * (x - y).pow(2).sum(-1) / ((1 - c * x.pow(2).sum(-1)) * (1 - c * y.pow(2).sum(-1)))
    return torch.acosh(arg) / c**0.5


def _tight(a, b, tol: float = 1e-12) -> None:
    assert_close(a, b, rtol=tol, atol=tol)


# -- Mobius addition ----------------------------------------------------------------------------


@pytest.mark.parametrize("c", CS)
def test_mobius_add_neutral_element(c):
    """0 (+) x = x exactly; x (+) 0 = x up to rounding (mobius_add's cancellation-free form evaluates
    ((1 - c||x||^2) x + c||x||^2 x) / (c||x||^2 + 1 - c||x||^2), a few ulps off)."""
    x = _points(c)
    zero = torch.zeros_like(x)
    assert torch.equal(P.mobius_add(zero, x, c), x)
    _tight(P.mobius_add(x, zero, c), x, tol=4 * torch.finfo(DT).eps)


@pytest.mark.parametrize("c", CS)
def test_mobius_add_inverse(c):
    """(-x) (+) x = x (+) (-x) = 0."""
    x = _points(c)
    zero = torch.zeros_like(x)
    assert_close(P.mobius_add(-x, x, c), zero, rtol=0, atol=1e-14)
    assert_close(P.mobius_add(x, -x, c), zero, rtol=0, atol=1e-14)


@pytest.mark.parametrize("c", CS)
def test_mobius_add_left_cancellation(c):
    """(-x) (+) (x (+) y) = y."""
    x, y = _points(c), _points(c)
    _tight(P.mobius_add(-x, P.mobius_add(x, y, c), c), y)


@pytest.mark.parametrize("c", CS)
def test_mobius_add_boundary_is_infinity(c):
    """||x|| = 1/sqrt(c) implies x (+) y = x (the border of the ball is infinity)."""
    x = _unit(*SHAPE) / c**0.5
    y = _points(c)
    _tight(P.mobius_add(x, y, c), x)


@pytest.mark.parametrize("c", CS)
def test_mobius_add_gap_is_one_minus_c_norm2_of_the_sum(c):
    """mobius_add_gap(x, y) = 1 - c||x (+) y||^2 (the hyperbolic MLR's denominator)."""
    x, y = _points(c), _points(c)
    _tight(P.mobius_add_gap(x, y, c), 1 - c * _sqnorm(P.mobius_add(x, y, c)))


# -- Mobius scalar multiplication ---------------------------------------------------------------


@pytest.mark.parametrize("c", CS)
def test_scalar_mul_associativity(c):
    """r (x) (s (x) x) = (r s) (x) x."""
    x = _points(c)
    r = 4 * torch.rand(*SHAPE[:-1], 1, dtype=DT) - 2
    s = 4 * torch.rand(*SHAPE[:-1], 1, dtype=DT) - 2
    _tight(P.mobius_scalar_mul(r, P.mobius_scalar_mul(s, x, c), c), P.mobius_scalar_mul(r * s, x, c))


@pytest.mark.parametrize("c", CS)
def test_scalar_mul_distributivity(c):
    """(r + s) (x) x = (r (x) x) (+) (s (x) x)."""
    x = _points(c)
    r = 2 * torch.rand(*SHAPE[:-1], 1, dtype=DT) - 1
    s = 2 * torch.rand(*SHAPE[:-1], 1, dtype=DT) - 1
    lhs = P.mobius_scalar_mul(r + s, x, c)
    rhs = P.mobius_add(P.mobius_scalar_mul(r, x, c), P.mobius_scalar_mul(s, x, c), c)
    _tight(lhs, rhs)


@pytest.mark.parametrize("c", CS)
def test_scalar_mul_n_additions(c):
    """2 (x) x = x (+) x and 3 (x) x = x (+) x (+) x."""
    x = _points(c, max_frac=0.6)
    xx = P.mobius_add(x, x, c)
    _tight(P.mobius_scalar_mul(2.0, x, c), xx)
    _tight(P.mobius_scalar_mul(3.0, x, c), P.mobius_add(xx, x, c))


@pytest.mark.parametrize("c", CS)
def test_scalar_mul_scaling_property(c):
    """(r (x) x) / ||r (x) x|| = sign(r) x / ||x|| (the direction is preserved)."""
    x = _points(c)
    r = 6 * torch.rand(*SHAPE[:-1], 1, dtype=DT) - 3
    rx = P.mobius_scalar_mul(r, x, c)
    _tight(rx / rx.norm(dim=-1, keepdim=True), torch.sign(r) * x / x.norm(dim=-1, keepdim=True))


@pytest.mark.parametrize("c", CS)
def test_scalar_mul_is_exp0_r_log0(c):
    """r (x) x = exp_0(r log_0(x))."""
    x = _points(c)
    r = 4 * torch.rand(*SHAPE[:-1], 1, dtype=DT) - 2
    _tight(P.mobius_scalar_mul(r, x, c), P.expmap0(r * P.logmap0(x, c), c))


# -- Mobius matrix-vector multiplication --------------------------------------------------------


@pytest.mark.parametrize("c", CS)
def test_matvec_matrix_associativity(c):
    """(M M') (x) x = M (x) (M' (x) x)."""
    x = _points(c)
    M = torch.randn(4, 6, dtype=DT) / 6**0.5
    Mp = torch.randn(6, N, dtype=DT) / N**0.5
    _tight(P.mobius_matvec(M @ Mp, x, c), P.mobius_matvec(M, P.mobius_matvec(Mp, x, c), c), 1e-10)


@pytest.mark.parametrize("c", CS)
def test_matvec_scalar_compatibility(c):
    """M (x) (r (x) x) = (r M) (x) x = r (x) (M (x) x)."""
    x = _points(c)
    M = torch.randn(4, N, dtype=DT) / N**0.5
    r = 1.7
    a = P.mobius_matvec(M, P.mobius_scalar_mul(r, x, c), c)
    _tight(a, P.mobius_matvec(r * M, x, c), 1e-10)
    _tight(a, P.mobius_scalar_mul(r, P.mobius_matvec(M, x, c), c), 1e-10)


@pytest.mark.parametrize("c", CS)
def test_matvec_rotation_is_plain_rotation(c):
    """R (x) x = R x for orthogonal R, and ||R (x) x|| = ||x||."""
    x = _points(c)
    R, _ = torch.linalg.qr(torch.randn(N, N, dtype=DT))
    out = P.mobius_matvec(R, x, c)
    _tight(out, x @ R.mT)
    _tight(out.norm(dim=-1), x.norm(dim=-1))


@pytest.mark.parametrize("c", CS)
def test_matvec_direction_preserved(c):
    """(M (x) x) / ||M (x) x|| = M x / ||M x||, and (r I) (x) x = r (x) x with direction sign(r) x/||x||."""
    x = _points(c)
    M = torch.randn(7, N, dtype=DT)
    out, mx = P.mobius_matvec(M, x, c), x @ M.mT
    _tight(out / out.norm(dim=-1, keepdim=True), mx / mx.norm(dim=-1, keepdim=True))
    for r in (2.5, 0.4, -1.3):
        out = P.mobius_matvec(r * torch.eye(N, dtype=DT), x, c)
        _tight(out, P.mobius_scalar_mul(r, x, c))
        _tight(out / out.norm(dim=-1, keepdim=True), math.copysign(1, r) * x / x.norm(dim=-1, keepdim=True))


@pytest.mark.parametrize("c", CS)
def test_matvec_zero_image_gives_zero(c):
    """M x = 0 implies M (x) x = 0 (no NaN), with finite gradients: M = 0, x in ker M, and x = 0."""
    x = _points(c)
    M0 = torch.zeros(4, N, dtype=DT, requires_grad=True)
    out = P.mobius_matvec(M0, x, c)
    assert torch.equal(out, torch.zeros(*SHAPE[:-1], 4, dtype=DT))
    out.sum().backward()
    assert torch.isfinite(M0.grad).all()
    # x in the kernel of M: M = [[1, -1, 0, 0, 0]], x = (a, a, 0, 0, 0) gives M x = a - a = 0 exactly
    K = torch.tensor([[1.0, -1.0, 0.0, 0.0, 0.0]], dtype=DT)
    xk = torch.zeros(SHAPE, dtype=DT)
    xk[..., :2] = 0.3 * torch.rand(*SHAPE[:-1], 1, dtype=DT) / c**0.5
    xk.requires_grad_(True)
    out = P.mobius_matvec(K, xk, c)
    assert torch.equal(out, torch.zeros(*SHAPE[:-1], 1, dtype=DT))
    out.sum().backward()
    assert torch.isfinite(xk.grad).all()
    M = torch.randn(4, N, dtype=DT)
    assert torch.equal(P.mobius_matvec(M, torch.zeros(SHAPE, dtype=DT), c), torch.zeros(*SHAPE[:-1], 4, dtype=DT))


# -- geodesics, exp / log maps, distance --------------------------------------------------------


@pytest.mark.parametrize("c", CS)
def test_geodesic_distance_is_linear_in_t(c):
    """gamma(t) = x (+) (t (x) ((-x) (+) y)) has gamma(0) = x, gamma(1) = y and d(x, gamma(t)) = t d(x, y)."""
    x, y = _points(c), _points(c)
    u = P.mobius_add(-x, y, c)

    def gamma(t: float) -> torch.Tensor:
        return P.mobius_add(x, P.mobius_scalar_mul(t, u, c), c)

    _tight(gamma(0.0), x)
    _tight(gamma(1.0), y)
    d = P.dist(x, y, c)
    for t in (0.1, 0.25, 0.5, 0.8):
        _tight(P.dist(x, gamma(t), c), t * d, 1e-10)


def _tangent(x: torch.Tensor, c: float, max_dist: float = 3.0) -> torch.Tensor:
    """Tangent vectors at x whose geodesic length lambda_x ||v|| (times sqrt(c)) is uniform in [0, max_dist)."""
    length = max_dist * torch.rand(*x.shape[:-1], 1, dtype=x.dtype) / c**0.5
    return _unit(*x.shape, dtype=x.dtype) * length / P.conformal_factor(x, c)


@pytest.mark.parametrize("c", CS)
def test_logmap_inverts_expmap(c):
    """log_x(exp_x(v)) = v."""
    x = _points(c)
    v = _tangent(x, c)
    _tight(P.logmap(x, P.expmap(x, v, c), c), v, 1e-10)


@pytest.mark.parametrize("c", CS)
def test_expmap_inverts_logmap(c):
    """exp_x(log_x(y)) = y."""
    x, y = _points(c), _points(c)
    _tight(P.expmap(x, P.logmap(x, y, c), c), y, 1e-10)


@pytest.mark.parametrize("c", CS)
def test_expmap_step_is_expmap_minus_the_point(c):
    """exp_x(v) - x, formed without the subtraction, equals it (float64, steps of any length)."""
    x = _points(c)
    v = _tangent(x, c)
    _tight(P.expmap_step(x, v, c), P.expmap(x, v, c) - x, 1e-12)


@pytest.mark.parametrize("c", CS)
def test_exp0_log0_are_exp_log_at_origin(c):
    """exp_0(v) = exp_x(v) and log_0(y) = log_x(y) at x = 0; log_0 inverts exp_0."""
    y = _points(c)
    v = torch.randn(SHAPE, dtype=DT)
    zero = torch.zeros_like(y)
    _tight(P.expmap0(v, c), P.expmap(zero, v, c))
    _tight(P.logmap0(y, c), P.logmap(zero, y, c))
    _tight(P.logmap0(P.expmap0(0.5 * v, c), c), 0.5 * v, 1e-10)


@pytest.mark.parametrize("c", CS)
def test_dist_is_riemannian_norm_of_log(c):
    """d(x, y) = ||log_x(y)||_x = lambda_x ||log_x(y)||."""
    x, y = _points(c), _points(c)
    riem = (P.conformal_factor(x, c) * P.logmap(x, y, c).norm(dim=-1, keepdim=True)).squeeze(-1)
    _tight(P.dist(x, y, c), riem)


@pytest.mark.parametrize("c", CS)
def test_dist_symmetric_and_zero_on_diagonal(c):
    """d(x, y) = d(y, x), d(x, x) = 0 and d has shape [...]."""
    x, y = _points(c), _points(c)
    d = P.dist(x, y, c)
    assert d.shape == SHAPE[:-1]
    _tight(d, P.dist(y, x, c))
    assert (d > 0).all()
    assert_close(P.dist(x, x, c), torch.zeros(SHAPE[:-1], dtype=DT), rtol=0, atol=1e-12)


@pytest.mark.parametrize("c", CS)
def test_dist_matches_closed_form(c):
    """d(x, y) = arccosh(1 + 2c||x-y||^2 / ((1 - c||x||^2)(1 - c||y||^2))) / sqrt(c)."""
    x, y = _points(c), _points(c)
    _tight(P.dist(x, y, c), _closed_form_dist(x, y, c))


def _near_boundary_pairs(c: float) -> tuple[torch.Tensor, torch.Tensor]:
    """Pairs (x, y) with x at norm (1 - 1e-5)/sqrt(c): 12 far pairs (y at the same norm), then 12 close pairs
    (y = exp_x(v) with sqrt(c) d(x, y) < 3)."""
    xb = _boundary_points(c)
    x = torch.cat([xb, xb], 0)
    y = torch.cat([_boundary_points(c), P.expmap(xb, _tangent(xb, c), c)], 0)
    return x, y


@pytest.mark.parametrize("c", CS)
def test_dist_matches_closed_form_near_boundary(c):
    """d(x, y) = arccosh(...)/sqrt(c) at norm (1 - 1e-5)/sqrt(c), within the conditioning of (-x) (+) y."""
    x, y = _near_boundary_pairs(c)
    d, ref = P.dist(x, y, c), _closed_form_dist(x, y, c)
    # Not 1e-10. dist = 2/sqrt(c) artanh(u), u = sqrt(c)||(-x) (+) y||, loses digits in two measured ways
    # (the closed form itself matches a 60-digit mpmath evaluation to ~4e-11 relative on these pairs):
    #  * far pairs (d ~ 24/sqrt(c)): 1 - u ~ 5e-11, so one rounding of u moves d by (2/sqrt(c)) eps/(1 - u^2):
    #    relative error up to ~2.5e-7;
    #  * close pairs at norm 1 - 1e-5: in (-x) (+) y = (-A x + B y)/D, A = 1 - 2c<x,y> + c||y||^2 and
    #    B = 1 - c||x||^2 are ~2e-5 and D = 1 - 2c<x,y> + c^2||x||^2||y||^2 ~ 4e-10, all computed as
    #    cancellations of O(1) terms, so u carries an absolute error ~eps/D ~ 3e-7 whatever d is: absolute
    #    error in d up to 7e-5/sqrt(c), relative error up to 2e-3 for the closest pairs.
    # geoopt computes the same expression and has the same errors (see test_dist_close_pairs_near_boundary_precise
    # for the precision defect). The bound is 16 eps (1 + 1/D) propagated through artanh; the largest measured
    # error/bound over 200 seeds x 3 curvatures is 0.28.
    u = torch.tanh(c**0.5 * ref / 2)
    D = 1 - 2 * c * (x * y).sum(-1) + c**2 * x.pow(2).sum(-1) * y.pow(2).sum(-1)
    bound = 1e-10 * ref + (2 / c**0.5) * 16 * torch.finfo(DT).eps * (1 + 1 / D) / (1 - u * u)
    assert ((d - ref).abs() <= bound).all(), ((d - ref).abs() / bound).max()


@pytest.mark.parametrize("c", CS)
def test_dist_close_pairs_near_boundary_precise(c):
    """d(x, y) = arccosh(...)/sqrt(c) to 1e-9 for close pairs (sqrt(c) d < 3) at norm (1 - 1e-5)/sqrt(c)."""
    x, y = _near_boundary_pairs(c)
    _tight(P.dist(x[4:], y[4:], c), _closed_form_dist(x[4:], y[4:], c), 1e-9)


# -- the metric: triangle inequality, left translations are isometries --------------------------


def _seeded_points(g: torch.Generator, c: float, count: int, max_frac: float = 0.9) -> torch.Tensor:
    """count points [count, N] with sqrt(c) ||x|| uniform in [0, max_frac), drawn from the generator g."""
    u = torch.randn(count, N, dtype=DT, generator=g)
    return u / u.norm(dim=-1, keepdim=True) * (max_frac * torch.rand(count, 1, dtype=DT, generator=g) / c**0.5)


def _on_geodesic(g: torch.Generator, x: torch.Tensor, z: torch.Tensor, c: float) -> torch.Tensor:
    """exp_x(t log_x(z)) for t uniform in [0, 1): a point of the geodesic segment from x to z."""
    t = torch.rand(*x.shape[:-1], 1, dtype=DT, generator=g)
    return P.expmap(x, t * P.logmap(x, z, c), c)


@pytest.mark.parametrize("c", CS)
def test_dist_triangle_inequality(c):
    """d(x, z) <= d(x, y) + d(y, z) (up to 1e-12 (1 + d(x, z))) for 3000 random triples with sqrt(c)||.|| < 0.9,
    and for 1000 nearly degenerate ones: y at Riemannian distance 1e-4/sqrt(c) from the geodesic segment from
    x to z, where the inequality holds by as little as 1e-9 (median 2e-8; an error of that size in d would
    break it)."""
    g = torch.Generator().manual_seed(42)
    x, y, z = (_seeded_points(g, c, 3000) for _ in range(3))
    xn, zn = _seeded_points(g, c, 1000), _seeded_points(g, c, 1000)
    on = _on_geodesic(g, xn, zn, c)
    off = torch.randn(1000, N, dtype=DT, generator=g)
    off = off / off.norm(dim=-1, keepdim=True) * (1e-4 / c**0.5) / P.conformal_factor(on, c)  # length 1e-4/sqrt(c)
    yn = P.expmap(on, off, c)
    triples = (torch.cat(pair) for pair in ((x, xn), (y, yn), (z, zn)))
    assert_triangle_inequality(lambda a, b: P.dist(a, b, c), *triples, degenerate=1000)


@pytest.mark.parametrize("c", CS)
def test_dist_is_additive_along_geodesics(c):
    """d(x, y) + d(y, z) = d(x, z) to 1e-12 relative for y = exp_x(t log_x(z)), t in [0, 1) (measured: 8e-16)."""
    g = torch.Generator().manual_seed(43)
    x, z = _seeded_points(g, c, 2000), _seeded_points(g, c, 2000)
    y = _on_geodesic(g, x, z, c)
    dxz = P.dist(x, z, c)
    assert_close(P.dist(x, y, c) + P.dist(y, z, c), dxz, rtol=1e-12, atol=0)


@pytest.mark.parametrize("c", CS)
def test_left_mobius_translation_is_an_isometry(c):
    """d(x (+) y, x (+) z) = d(y, z) to 1e-12 relative (measured: 6e-15), sqrt(c)||.|| < 0.9: the left
    translation y -> x (+) y is an isometry of the ball."""
    g = torch.Generator().manual_seed(44)
    x, y, z = (_seeded_points(g, c, 1000) for _ in range(3))
    assert_close(P.dist(P.mobius_add(x, y, c), P.mobius_add(x, z, c), c), P.dist(y, z, c), rtol=1e-12, atol=0)


# -- pointwise non-linearity, transport ---------------------------------------------------------


@pytest.mark.parametrize("c", CS)
def test_mobius_pointwise_is_exp0_f_log0(c):
    """phi^(x)(x) = exp_0(phi(log_0(x))), and the identity gives back x."""
    x = _points(c)
    for f in (torch.relu, torch.tanh, lambda t: 0.5 * t):
        _tight(P.mobius_pointwise(f, x, c), P.expmap0(f(P.logmap0(x, c)), c))
    _tight(P.mobius_pointwise(lambda t: t, x, c), x)


@pytest.mark.parametrize("c", CS)
def test_transport0(c):
    """P_{0->x}(v) = (lambda_0 / lambda_x) v = (1 - c||x||^2) v."""
    x = _points(c)
    v = torch.randn(SHAPE, dtype=DT)
    out = P.transport0(x, v, c)
    _tight(out, (1 - c * _sqnorm(x)) * v)
    lam0 = P.conformal_factor(torch.zeros_like(x), c)
    assert torch.equal(lam0, torch.full_like(lam0, 2.0))
    _tight(out, lam0 / P.conformal_factor(x, c) * v)


# -- project --------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("c", CS)
def test_project(c, dtype):
    """project keeps inside points bit-identical and moves outside ones radially to norm (1 - eps)/sqrt(c),
    eps = 1e-5 in every dtype (float32 computes the same model as float64)."""
    eps = P.BALL_EPS
    assert eps == 1e-5
    max_norm = (1 - eps) / c**0.5
    inside = _points(c, dtype=dtype, max_frac=1 - 2 * eps)
    outside = _unit(*SHAPE, dtype=dtype) * (max_norm * (1 + 2 * eps + 2 * torch.rand(*SHAPE[:-1], 1, dtype=dtype)))
    assert torch.equal(P.project(inside, c), inside)
    p = P.project(outside, c)
    assert p.dtype == dtype
    rtol = 4 * torch.finfo(dtype).eps
    assert_close(p.norm(dim=-1), torch.full(SHAPE[:-1], max_norm, dtype=dtype), rtol=rtol, atol=0)
    assert_close(p / p.norm(dim=-1, keepdim=True), outside / outside.norm(dim=-1, keepdim=True), rtol=rtol, atol=rtol)
    assert ((p.double().pow(2).sum(-1) * c) < 1).all()


# -- the Euclidean limit c -> 0 -------------------------------------------------------------------


def test_euclidean_limit():
    """c -> 0: x(+)y -> x+y, r(x)x -> rx, M(x)x -> Mx, exp_x(v) -> x+v, log_x(y) -> y-x, exp_0(v) -> v, d -> 2|x-y|."""
    c = 1e-9
    x, y, v = (torch.randn(SHAPE, dtype=DT) for _ in range(3))
    M = torch.randn(4, N, dtype=DT)
    r = 4 * torch.rand(*SHAPE[:-1], 1, dtype=DT) - 2

    def close(a, b):
        assert_close(a, b, rtol=1e-6, atol=1e-6 * b.abs().max().item())

    close(P.mobius_add(x, y, c), x + y)
    close(P.mobius_scalar_mul(r, x, c), r * x)
    close(P.mobius_matvec(M, x, c), x @ M.mT)
    close(P.expmap(x, v, c), x + v)
    close(P.logmap(x, y, c), y - x)
    close(P.expmap0(v, c), v)
    close(P.logmap0(y, c), y)
    # the conformal factor tends to 2, so the metric tends to 4 x Euclidean and d -> 2||x - y||
    close(P.conformal_factor(x, c), torch.full((*SHAPE[:-1], 1), 2.0, dtype=DT))
    close(P.dist(x, y, c), 2 * (x - y).norm(dim=-1))


# -- agreement with geoopt ------------------------------------------------------------------------


def _geoopt_ball(c: float):
    """geoopt's ball and the exact float64 curvature it uses.

    geoopt.PoincareBall(c=<python float>) stores its parameter in float32 (torch's default dtype) and
    recomputes c = softplus(log(expm1(c))): for c = 0.3 that is already 7e-8 off; building it from a
    float64 tensor and handing our functions float(ball.c) removes both effects.
    """
    geoopt = pytest.importorskip("geoopt")
    ball = geoopt.PoincareBall(c=torch.tensor(c, dtype=DT))
    return ball, float(ball.c)


def _geoopt_cases(ball, c):
    x = torch.cat([_points(c), _boundary_points(c)], 0)  # interior points, then points at (1 - 1e-5)/sqrt(c)
    y = torch.cat([_points(c), _boundary_points(c)], 0)
    M = torch.randn(4, N, dtype=DT)
    r = 4 * torch.rand(*x.shape[:-1], 1, dtype=DT) - 2
    v = torch.randn(x.shape, dtype=DT)
    return {
        "mobius_add": (P.mobius_add(x, y, c), ball.mobius_add(x, y, project=False)),
        "mobius_add_mixed": (P.mobius_add(y.flip(0), x, c), ball.mobius_add(y.flip(0), x, project=False)),
        "mobius_scalar_mul": (P.mobius_scalar_mul(r, x, c), ball.mobius_scalar_mul(r, x, project=False)),
        "mobius_matvec": (P.mobius_matvec(M, x, c), ball.mobius_matvec(M, x, project=False)),
        "expmap": (P.expmap(x, v, c), ball.expmap(x, v, project=False)),
        "expmap0": (P.expmap0(v, c), ball.expmap0(v, project=False)),
        "logmap0": (P.logmap0(x, c), ball.logmap0(x)),
    }


@pytest.mark.parametrize("c", CS)
def test_geoopt_agreement(c):
    """mobius_add, scalar_mul, matvec, expmap, expmap0, logmap0 equal geoopt's (boundary points included)."""
    ball, c = _geoopt_ball(c)
    # Near the boundary geoopt's logmap0 / mobius_scalar_mul differ from ours by up to ~1.5e-10 absolute
    # (~1.4e-11 relative, at c = 0.3): geoopt's sabs(k) = |k| + 1e-15 shifts sqrt(c) inside tan_k/artan_k by
    # ~1e-15 relative, and artanh'(u) = 1/(1 - u^2) ~ 5e4 at u = 1 - 1e-5 amplifies it (ours is the one
    # that matches a 60-digit mpmath reference). rtol = 1e-10 covers it.
    for name, (ours, theirs) in _geoopt_cases(ball, c).items():
        assert_close(ours, theirs, rtol=1e-10, atol=1e-10, msg=lambda m, name=name: f"{name}: {m}")


@pytest.mark.parametrize("c", CS)
def test_geoopt_agreement_logmap_dist(c):
    """logmap and dist equal geoopt's for interior pairs and boundary-origin pairs. For close pairs at norm
    1 - 1e-5 geoopt computes ||-x (+) y|| by cancelling O(1) terms and loses ~5 digits, while ours
    (cancellation-free norm) matches the closed form: test_dist_close_pairs_near_boundary_precise."""
    ball, c = _geoopt_ball(c)
    xb = _boundary_points(c)
    x = torch.cat([_points(c), xb, xb, torch.zeros_like(xb)], 0)
    y = torch.cat([_points(c), torch.zeros_like(xb), P.expmap(xb, _tangent(xb, c), c), xb], 0)
    ok = torch.cat(
        [
            torch.ones(len(_points(c)) + len(xb), dtype=torch.bool),  # where geoopt is accurate
            torch.zeros(len(xb), dtype=torch.bool),
            torch.ones(len(xb), dtype=torch.bool),
        ]
    )
    assert_close(P.logmap(x, y, c)[ok], ball.logmap(x, y)[ok], rtol=1e-10, atol=1e-10)
    assert_close(P.dist(x, y, c)[ok], ball.dist(x, y)[ok], rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("c", CS)
def test_geoopt_dist_saturates_far_near_boundary(c):
    """Far pairs at norm 1 - 1e-5: geoopt's dist saturates at 2 artanh(1 - 1e-7)/sqrt(c), ours is the closed form."""
    # Documented disagreement, not a tolerance: geoopt's artanh clamps its argument to 1 - 1e-7 whatever
    # the dtype (math.py: x.clamp(-1 + 1e-7, 1 - 1e-7)), ours to 1 - 1e-15 in float64. Once
    # sqrt(c)||(-x) (+) y|| > 1 - 1e-7, i.e. d > 2 artanh(1 - 1e-7)/sqrt(c) ~ 16.8/sqrt(c), geoopt's dist and
    # logmap stop growing (measured: dist off by up to 14 at c = 0.3, logmap by up to 1.3e-4).
    ball, c = _geoopt_ball(c)
    e1 = torch.zeros(N, dtype=DT)
    e1[0] = 1.0
    x = (1 - 1e-5) / c**0.5 * e1
    y = -x  # opposite points: d = 4 artanh(1 - 1e-5)/sqrt(c) ~ 24.4/sqrt(c)
    cap = 2 * math.atanh(1 - 1e-7) / c**0.5
    assert_close(ball.dist(x, y), torch.tensor(cap, dtype=DT), rtol=1e-9, atol=0)
    d = P.dist(x, y, c)
    assert_close(d, torch.tensor(4 * math.atanh(1 - 1e-5) / c**0.5, dtype=DT), rtol=1e-6, atol=0)
    assert_close(d, _closed_form_dist(x, y, c), rtol=1e-6, atol=0)
    assert d > cap + 7 / c**0.5


@pytest.mark.parametrize("c", CS)
def test_mobius_add_gyroassociative_with_geoopts_gyration(c):
    """x (+) (y (+) z) = (x (+) y) (+) gyr[x, y] z to 1e-12 (measured: 1e-15), sqrt(c)||.|| < 0.9, with
    geoopt's closed-form gyration (geoopt.manifolds.stereographic.math.gyration at curvature k = -c) as
    the independent reference for gyr."""
    pytest.importorskip("geoopt")
    from geoopt.manifolds.stereographic import math as gmath

    g = torch.Generator().manual_seed(45)
    x, y, z = (_seeded_points(g, c, 1000) for _ in range(3))
    gyr = gmath.gyration(x, y, z, k=torch.tensor(-c, dtype=DT))
    lhs = P.mobius_add(x, P.mobius_add(y, z, c), c)
    _tight(lhs, P.mobius_add(P.mobius_add(x, y, c), gyr, c), 1e-12)
    assert float((lhs - P.mobius_add(P.mobius_add(x, y, c), z, c)).abs().max()) > 1e-3  # not associative


# -- float32 near the boundary --------------------------------------------------------------------


@pytest.mark.parametrize("c", CS)
def test_float32_near_boundary_is_finite_and_projects_inside(c):
    """float32 operations on points up to norm (1 - 1e-3)/sqrt(c) give no NaN/inf, and project lands strictly inside."""
    f32 = torch.float32
    shape = (8, 16, N)
    x = _unit(*shape, dtype=f32) * ((1 - 1e-3 * torch.rand(*shape[:-1], 1, dtype=f32)) / c**0.5)
    x[0] = _unit(*shape[1:], dtype=f32) * ((1 - 1e-3) / c**0.5)
    y = _unit(*shape, dtype=f32) * ((1 - 1e-3 * torch.rand(*shape[:-1], 1, dtype=f32)) / c**0.5)
    y[1] = -x[1]  # antipodal pairs: the smallest mobius_add denominators
    y[2] = x[2]
    v = 10 * torch.randn(shape, dtype=f32)
    r = 10 * torch.randn(*shape[:-1], 1, dtype=f32)
    M = torch.randn(N, N, dtype=f32)
    points = {
        "mobius_add": P.mobius_add(x, y, c),
        "mobius_add(-x, y)": P.mobius_add(-x, y, c),
        "mobius_scalar_mul": P.mobius_scalar_mul(r, x, c),
        "mobius_matvec": P.mobius_matvec(M, x, c),
        "expmap": P.expmap(x, v, c),
        "expmap0": P.expmap0(v, c),
        "mobius_pointwise": P.mobius_pointwise(torch.tanh, x, c),
        "geodesic": P.mobius_add(x, P.mobius_scalar_mul(0.5, P.mobius_add(-x, y, c), c), c),
        "expmap(logmap)": P.expmap(x, P.logmap(x, y, c), c),
    }
    others = {
        "logmap": P.logmap(x, y, c),
        "logmap0": P.logmap0(x, c),
        "dist": P.dist(x, y, c),
        "transport0": P.transport0(x, v, c),
        "conformal_factor": P.conformal_factor(x, c),
    }
    for name, t in {**points, **others}.items():
        assert t.dtype == f32, name
        assert torch.isfinite(t).all(), name
    for name, t in points.items():
        p = P.project(t, c)
        assert torch.isfinite(p).all(), name
        assert (c * p.double().pow(2).sum(-1) < 1).all(), name
        assert (c**0.5 * p.norm(dim=-1) < 1).all(), name


# -- bad curvature ----------------------------------------------------------------------------------


def _x():
    return torch.full((2, 3), 0.1, dtype=DT)


PUBLIC = {
    "project": lambda c: P.project(_x(), c),
    "mobius_add": lambda c: P.mobius_add(_x(), _x(), c),
    "mobius_scalar_mul": lambda c: P.mobius_scalar_mul(0.5, _x(), c),
    "mobius_matvec": lambda c: P.mobius_matvec(torch.eye(3, dtype=DT), _x(), c),
    "expmap": lambda c: P.expmap(_x(), _x(), c),
    "logmap": lambda c: P.logmap(_x(), _x(), c),
    "expmap0": lambda c: P.expmap0(_x(), c),
    "logmap0": lambda c: P.logmap0(_x(), c),
    "dist": lambda c: P.dist(_x(), _x(), c),
    "mobius_pointwise": lambda c: P.mobius_pointwise(torch.relu, _x(), c),
    "transport0": lambda c: P.transport0(_x(), _x(), c),
    "conformal_factor": lambda c: P.conformal_factor(_x(), c),
}
BAD_C = {
    "zero": lambda: 0.0,
    "negative": lambda: -1.0,
    "nan": lambda: float("nan"),
    "tensor_zero_entry": lambda: torch.tensor([[1.0], [0.0]], dtype=DT),
    "tensor_negative_entry": lambda: torch.tensor([[0.5], [-2.0]], dtype=DT),
}


@pytest.mark.parametrize("bad", list(BAD_C), ids=list(BAD_C))
@pytest.mark.parametrize("fn", list(PUBLIC))
def test_bad_curvature_raises(fn, bad):
    """Every public function that takes c raises ValueError for c <= 0 (scalar or any tensor entry) and NaN."""
    with pytest.raises(ValueError):
        PUBLIC[fn](BAD_C[bad]())


# -- tensor curvature broadcast over the batch ---------------------------------------------------------


TENSOR_C_OPS = {
    "project": lambda x, y, c: P.project(4 * x, c),
    "mobius_add": lambda x, y, c: P.mobius_add(x, y, c),
    "mobius_scalar_mul": lambda x, y, c: P.mobius_scalar_mul(1.7, x, c),
    "mobius_matvec": lambda x, y, c: P.mobius_matvec(torch.eye(N, dtype=DT).flip(0), x, c),
    "expmap": lambda x, y, c: P.expmap(x, y, c),
    "logmap": lambda x, y, c: P.logmap(x, y, c),
    "expmap0": lambda x, y, c: P.expmap0(y, c),
    "logmap0": lambda x, y, c: P.logmap0(x, c),
    "mobius_pointwise": lambda x, y, c: P.mobius_pointwise(torch.tanh, x, c),
    "transport0": lambda x, y, c: P.transport0(x, y, c),
    "conformal_factor": lambda x, y, c: P.conformal_factor(x, c),
    "dist": lambda x, y, c: P.dist(x, y, c),
}


@pytest.mark.parametrize("op", list(TENSOR_C_OPS))
def test_tensor_curvature_broadcasts_like_points(op):
    """A tensor c of shape [..., 1] (broadcastable to the points) gives, slice by slice, the float-c result."""
    cs = torch.tensor(CS + (0.7,), dtype=DT).view(4, 1, 1)
    x, y = _points(max(CS)), _points(max(CS))  # inside every ball here (c = 2.5 has the smallest one)
    out = TENSOR_C_OPS[op](x, y, cs)
    expected = torch.stack([TENSOR_C_OPS[op](x[i], y[i], float(cs[i])) for i in range(4)])
    assert out.shape == expected.shape
    _tight(out, expected)


# -- coordinates along another dimension -------------------------------------------------------------


@pytest.mark.parametrize("c", CS)
def test_every_operation_along_dim_minus_2_is_the_operation_on_the_transpose(c):
    """The batch-last layout of the recurrent layers: points [..., n, batch] with dim=-2 give exactly
    the results of [..., batch, n] with the default dim=-1, transposed."""
    x, y, v = _points(c), _points(c), 0.7 * torch.randn(SHAPE, dtype=DT)
    x[0, 0] = _unit(N) * (1 - 1e-7) / c**0.5  # one point beyond the projection margin
    M = torch.randn(N, N, dtype=DT)
    T = lambda t: t.mT  # noqa: E731  [..., n, batch] <-> [..., batch, n]
    ops = {
        "mobius_add": lambda d, a, b, w: P.mobius_add(a, b, c, dim=d),
        "mobius_scalar_mul": lambda d, a, b, w: P.mobius_scalar_mul(0.7, a, c, dim=d),
        "mobius_matvec_result": lambda d, a, b, w: P.mobius_matvec_result(a @ M.mT if d == -1 else M @ a, a, c, dim=d),
        "project": lambda d, a, b, w: P.project(a, c, dim=d),
        "conformal_factor": lambda d, a, b, w: P.conformal_factor(a, c, dim=d),
        "expmap": lambda d, a, b, w: P.expmap(a, w, c, dim=d),
        "logmap": lambda d, a, b, w: P.logmap(a, b, c, dim=d),
        "expmap0": lambda d, a, b, w: P.expmap0(w, c, dim=d),
        "logmap0": lambda d, a, b, w: P.logmap0(a, c, dim=d),
        "dist": lambda d, a, b, w: P.dist(a, b, c, dim=d).unsqueeze(d),
        "mobius_pointwise": lambda d, a, b, w: P.mobius_pointwise(torch.tanh, a, c, dim=d),
        "transport0": lambda d, a, b, w: P.transport0(a, w, c, dim=d),
    }
    for name, op in ops.items():
        assert_close(T(op(-2, T(x), T(y), T(v))), op(-1, x, y, v), rtol=1e-14, atol=1e-14, msg=name)


def test_artanh_keeps_full_relative_precision_eager_and_compiled():
    """artanh(x) ~ x + x^3/3 for tiny x, also under torch.compile (whose CPU atanh was 11 % off at 1e-15)."""
    x = torch.tensor([1e-15, 1e-12, 1e-9, 1e-6, 1e-3], dtype=DT)
    exact = x + x**3 / 3 + x**5 / 5
    for fn in (P._artanh, torch.compile(P._artanh, dynamic=False)):
        torch.testing.assert_close(fn(x), exact, rtol=1e-15, atol=0)


# -- gaps carried to full precision (model.carry_gaps) ------------------------------------------------


@pytest.mark.parametrize("c", (1e-3, 1.0, 10.0))
def test_carried_gaps_are_the_gaps_of_the_results(c):
    """mobius_matvec_result_and_gap's gap, mobius_add_gap from given gaps and logmap0 from a gap equal
    1 - c||.||^2 and log_0 of the results, in float64 (up to the radius, where only the carried gap
    keeps digits)."""
    g = torch.Generator().manual_seed(5)
    d = torch.randn(64, 5, dtype=torch.float64, generator=g)
    x = d / d.norm(dim=-1, keepdim=True) * torch.rand(64, 1, dtype=torch.float64, generator=g) * 0.999 / c**0.5
    mx = x @ (torch.randn(5, 5, dtype=torch.float64, generator=g) / 2).mT
    y, gap_y = P.mobius_matvec_result_and_gap(mx, x, c)
    assert torch.equal(y, P.mobius_matvec_result(mx, x, c))
    assert_close(gap_y, P.gap(y, c), rtol=1e-9, atol=1e-12)
    v = P.expmap0(torch.randn(64, 5, dtype=torch.float64, generator=g) / 2, c)
    assert_close(
        P.mobius_add_gap(y, v, c, gap_x=gap_y, gap_y=P.gap(v, c)),
        P.gap(P.mobius_add(y, v, c), c),
        rtol=1e-9,
        atol=1e-12,
    )
    assert_close(P.logmap0(y, c, gap_y=gap_y), P.logmap0(y, c), rtol=1e-9, atol=1e-12)


def test_project_with_gap_puts_points_below_the_margin_on_it():
    """Points whose carried gap is below the margin's (or within GAP_SNAP above it) go onto the radius
    with the margin's gap; others stay, with their gap."""
    c = 2.0
    d = torch.nn.functional.normalize(torch.randn(3, 5, dtype=torch.float64), dim=-1)
    gaps = torch.tensor([[1e-7], [P.MARGIN_GAP * (1 + P.GAP_SNAP / 2)], [0.3]], dtype=torch.float64)
    x = d * (1 - gaps).sqrt() / c**0.5
    y, gap_y = P.project_with_gap(x, gaps, c)
    radius = (1 - P.BALL_EPS) / c**0.5
    assert_close(y.norm(dim=-1)[:2], torch.full((2,), radius, dtype=torch.float64))
    assert torch.equal(y[2], x[2]) and float(gap_y[2]) == 0.3
    assert bool((gap_y[:2] == P.MARGIN_GAP).all())


def test_gru_with_carried_gaps_is_the_same_model_in_float64():
    """A hyperbolic GRU's states with carry_gaps equal those without in float64, away from the
    projection's snap bands (which the two place differently: see poincare.project_with_gap)."""
    from noneuclid.geometry.spaces import PoincareBall
    from noneuclid.nn.recurrent import Recurrent

    torch.manual_seed(0)
    x = P.expmap0(0.3 * torch.randn(4, 7, 5, dtype=torch.float64), 1.0)  # [batch, time, input]
    lengths = torch.tensor([7, 3, 5, 1])
    states = []
    for carry in (False, True):
        torch.manual_seed(1)
        gru = Recurrent("gru", 5, 5, PoincareBall(1.0, project_results=True, carry_gaps=carry)).double()
        states.append(gru(x, lengths))
    assert_close(states[1], states[0], rtol=1e-10, atol=1e-12)
