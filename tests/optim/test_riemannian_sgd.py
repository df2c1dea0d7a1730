"""Riemannian SGD on the Poincare ball (`noneuclid.optim.RiemannianSGD`) against geoopt 0.5.1's, and its
retraction against the exponential map.

With retraction=True (Nickel & Kiela's update, configs/optim/rsgd.yaml, the Poincare embeddings) our step is
    x <- project(x - lr (1 - c||x||^2)^2 / 4 g),   project: radius (1 - 1e-5)/sqrt(c),
and geoopt.optim.RiemannianSGD on a ManifoldParameter of PoincareBall(c) (no momentum, no weight decay) is
    x <- projx(retr(x, -lr egrad2rgrad(x, g))) = project_geoopt(x - lr g / lambda_x^2),  lambda_x = 2/(1 - c||x||^2),
with geoopt's float64 margin eps = 1e-5, the same rule. Where they differ (not compared here):
  * geoopt's RiemannianSGD always retracts (x + u); ours by default (retraction=False: Ganea et al.'s hyperbolic
    networks) takes the exponential map exp_x(u), which agrees with the retraction to first order only (the
    last test here);
  * in float32 geoopt projects to radius (1 - 4e-3)/sqrt(c), ours to (1 - 1e-5)/sqrt(c) in every dtype
    (see poincare.py), so only float64 is compared;
  * geoopt's projection radius is (1 - eps)/sqrt(|k| + 1e-15) (utils.sabs), 5e-16/c relative inside ours;
  * geoopt's RiemannianSGD refuses sparse gradients; ours takes them (the embeddings' rows, added by a compiled
    loop, `rsgd.retract_rows`), compared here against geoopt's step of the equivalent dense gradient;
  * ours leaves rows with a zero gradient bit for bit; geoopt re-projects them (a no-op inside the ball).

float64 throughout; every test draws from its own seeded torch.Generator.
"""

from __future__ import annotations

import pytest
import torch
from torch.testing import assert_close

from noneuclid.geometry import poincare as P
from noneuclid.nn.parameters import PoincareParameter
from noneuclid.optim import RiemannianSGD

DT = torch.float64
CS = (1.0, 0.3, 2.5)
ROWS, DIM, STEPS, LR = 64, 5, 20, 0.5


def _points(g: torch.Generator, c: float, count: int, lo: float = 0.0, hi: float = 0.9) -> torch.Tensor:
    """count points [count, DIM] with sqrt(c) ||x|| uniform in [lo, hi)."""
    u = torch.randn(count, DIM, dtype=DT, generator=g)
    return u / u.norm(dim=-1, keepdim=True) * ((lo + (hi - lo) * torch.rand(count, 1, dtype=DT, generator=g)) / c**0.5)


def _geoopt_pair(c: float, x0: torch.Tensor):
    """Our PoincareParameter and geoopt's ManifoldParameter at x0, under RiemannianSGD(lr=LR) each (ours with the
    retraction), and the curvature both use: geoopt's PoincareBall built from a float64 tensor and c = float(ball.c)
    for ours (its softplus round trip moves c by an ulp; see tests/geometry/test_poincare_geometry._geoopt_ball)."""
    geoopt = pytest.importorskip("geoopt")
    ball = geoopt.PoincareBall(c=torch.tensor(c, dtype=DT))
    c = float(ball.c)
    ours, theirs = PoincareParameter(x0.clone(), c), geoopt.ManifoldParameter(x0.clone(), manifold=ball)
    ref = geoopt.optim.RiemannianSGD([theirs], lr=LR)
    return c, (ours, RiemannianSGD([ours], lr=LR, retraction=True)), (theirs, ref)


def _start(g: torch.Generator, c: float) -> torch.Tensor:
    """Half the rows inside (sqrt(c)||x|| < 0.9), half near the boundary (0.99 to 1 - 1e-5, the margin)."""
    return torch.cat([_points(g, c, ROWS // 2), _points(g, c, ROWS // 2, lo=0.99, hi=1 - 1e-5)])


def _leaving(x: torch.Tensor, grad: torch.Tensor, c: float) -> int:
    """How many rows the unprojected step x - LR g / lambda_x^2 takes beyond the projection's radius."""
    moved = x - LR * P.gap(x, c).pow(2) / 4 * grad
    return int((moved.norm(dim=-1) > (1 - P.BALL_EPS) / c**0.5).sum())


@pytest.mark.parametrize("c", CS)
def test_retraction_rsgd_equals_geoopts_riemannian_sgd(c):
    """20 steps of RiemannianSGD(retraction=True) equal geoopt.optim.RiemannianSGD's on a
    ManifoldParameter(PoincareBall(c)) with the same dense gradients, to 1e-13 in every coordinate after every
    step (measured: 3e-15). Gradients span 1e-1 to 1e3 per row, so that many steps leave the ball and are
    projected (rows start inside and at 0.99 to 1 - 1e-5 of the radius); 8 rows get a zero gradient."""
    g = torch.Generator().manual_seed(60)
    x0 = _start(g, c)
    c, (ours, opt), (theirs, ref) = _geoopt_pair(c, x0)
    leaving = 0
    for _ in range(STEPS):
        scale = torch.logspace(-1, 3, ROWS, dtype=DT)[torch.randperm(ROWS, generator=g)]
        grad = torch.randn(ROWS, DIM, dtype=DT, generator=g) * scale[:, None]
        grad[-8:] = 0
        leaving += _leaving(ours.detach(), grad, c)
        ours.grad, theirs.grad = grad.clone(), grad.clone()
        opt.step()
        ref.step()
        assert_close(ours.detach(), theirs.detach(), rtol=0, atol=1e-13)
    assert leaving > 50  # the projection took part (measured: 230 to 260 of the 1280 row steps)
    assert float((ours.detach() - x0).abs().max()) > 0.5  # the rows moved


@pytest.mark.parametrize("c", CS)
def test_sparse_retraction_rsgd_equals_geoopts_riemannian_sgd(c):
    """The Poincare embeddings' update (a sparse gradient with repeated rows, added entry by entry by the compiled
    loop rsgd.retract_rows, the rescaling taken before the step) equals geoopt's RiemannianSGD step of the summed
    dense gradient, to 1e-12 after each of 20 steps (measured: 4e-14: the order of the additions); rows not in
    the gradient stay put in both."""
    g = torch.Generator().manual_seed(61)
    x0 = _start(g, c)
    c, (ours, opt), (theirs, ref) = _geoopt_pair(c, x0)
    leaving = 0
    for _ in range(STEPS):
        rows = torch.randint(0, ROWS - 8, (40,), generator=g)  # the last 8 rows never get a gradient
        values = torch.randn(40, DIM, dtype=DT, generator=g) * 100
        grad = torch.sparse_coo_tensor(rows[None], values, (ROWS, DIM), check_invariants=True)
        dense = grad.to_dense()
        leaving += _leaving(ours.detach(), dense, c)
        ours.grad, theirs.grad = grad, dense
        opt.step()
        ref.step()
        assert_close(ours.detach(), theirs.detach(), rtol=0, atol=1e-12)
    assert leaving > 50  # measured: 120 to 150
    assert torch.equal(ours.detach()[-8:], x0[-8:]) and torch.equal(theirs.detach()[-8:], x0[-8:])


def _rsgd_step(x: torch.Tensor, u: torch.Tensor, h: float, c: float, retraction: bool) -> torch.Tensor:
    """One RiemannianSGD step at lr h from x with the Euclidean gradient -lambda_x^2 u, i.e. the tangent step h u."""
    p = PoincareParameter(x.clone(), c)
    p.grad = -u * P.conformal_factor(x, c).pow(2)
    RiemannianSGD([p], lr=h, retraction=retraction).step()
    return p.detach()


@pytest.mark.parametrize("c", CS)
def test_retraction_agrees_with_the_exponential_map_to_first_order(c):
    """For u of Riemannian norm lambda_x ||u|| = 1, the retraction's step and the exponential map's,
    RiemannianSGD(retraction=True) and (retraction=False) from the same gradient, differ by
        (x + h u) - exp_x(h u) = -h^2/2 x''(0) + O(h^3),   x'' = -2 <grad phi, u> u + ||u||^2 grad phi,
    the geodesic's acceleration for the conformal metric lambda^2 I (phi = log lambda_x, grad phi = c lambda_x x):
    the error ratio e(1e-2)/e(1e-3) lies in [90, 110] (measured: 98.6 to 100.5; 10 for a retraction wrong at
    first order, 1000 at x = 0, where x'' = 0), and e(1e-3)/h^2 is |x''|/2 to 1e-2 (measured: 1.5e-3).
    Points at 0.1 <= sqrt(c)||x|| < 0.9 (no projection)."""
    g = torch.Generator().manual_seed(62)
    x = _points(g, c, 64, lo=0.1)
    lam = P.conformal_factor(x, c)
    u = torch.randn(64, DIM, dtype=DT, generator=g)
    u = u / u.norm(dim=-1, keepdim=True) / lam
    diff = {h: _rsgd_step(x, u, h, c, True) - _rsgd_step(x, u, h, c, False) for h in (1e-2, 1e-3)}
    assert_close(_rsgd_step(x, u, 1e-2, c, True), x + 1e-2 * u, rtol=0, atol=1e-15)  # the step is h u
    ratio = diff[1e-2].norm(dim=-1) / diff[1e-3].norm(dim=-1)
    assert bool(((ratio > 90) & (ratio < 110)).all()), (float(ratio.min()), float(ratio.max()))
    grad_phi = c * lam * x
    accel = -2 * (grad_phi * u).sum(-1, keepdim=True) * u + u.pow(2).sum(-1, keepdim=True) * grad_phi
    err = (diff[1e-3] / 1e-3**2 + accel / 2).norm(dim=-1) / (accel / 2).norm(dim=-1)
    assert float(err.max()) < 1e-2
