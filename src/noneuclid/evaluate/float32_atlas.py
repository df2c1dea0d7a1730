"""The float32 safety atlas: for each operation of Ganea et al.'s networks (Mobius addition, matvec,
exp_0, log_0, distance, the MLR logit, one GRU cell step), in each implementation (ours on the
Poincare ball and on the hyperboloid, geoopt 0.5.1's PoincareBall and Lorentz, hypll 0.1.1's ball), the error of float32
against float64 at points a hyperbolic distance r from the origin, r = 0, 0.5, ..., 40 (curvature -1),
and the safe radius: the largest r > 0 of the grid up to which both errors stay below 1e-3.

Inputs are drawn in float64 from random directions u and the radius (the ball's point tanh(r/2) u, the
hyperboloid's (cosh r, sinh r u); tangent vectors at 0 of norm r), and the float32 run gets them
rounded to float32, so that the atlas counts what each chart loses in holding its points (as Mishne et
al. 2023's limits do: the ball's float32 points end at r = ln(2/eps) ~ 17, eps = 2^-24). Binary
operations take two points at r; matvec a Gaussian M / sqrt(n); the MLR a hyperplane point at r
(ours on the hyperboloid keeps it in ball coordinates, as its networks' parameters: spaces.Lorentz);
the GRU a state at r, an input at 1 and biases at 0.5 (hypll, whose MLR is HNN++'s, takes a hyperplane
through the point at r along its normal a0, the same family with p parallel to a). Errors are the largest
over SAMPLES draws:
  value_error  for a point (addition, matvec, exp_0, the GRU step) the hyperbolic distance between the
               float32 and float64 results (an absolute error, computed in float64); for a number
               (distance, logit) or a tangent vector (log_0), the relative error;
  grad_error   the relative error of the gradient, with respect to every input, of a fixed random
               linear readout of the value's coordinates.
A non-finite float32 value (or gradient) where float64's is finite counts as an error of inf; where
float64's is not finite either (the ball's float64 points end at r ~ 37) the error is undefined (empty)
and does not bound the safe radius.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import torch
from torch import Tensor

from noneuclid import tables
from noneuclid.geometry import lorentz as lz, poincare as pb
from noneuclid.geometry.spaces import Lorentz, PoincareBall
from noneuclid.nn.recurrent import gru_step, matvec

DIM, SAMPLES, THRESHOLD = 5, 32, 1e-3
RADII = [i / 2 for i in range(81)]  # 0, 0.5, ..., 40
OPS = ("mobius_add", "matvec", "expmap0", "logmap0", "dist", "mlr_logit", "gru_step")
POINT_OPS = ("mobius_add", "matvec", "expmap0", "gru_step")
CHARTS = {"poincare": "ball", "lorentz": "hyperboloid"}


class OursBall:
    """Ours on the Poincare ball: the spaces.PoincareBall the networks use (project_results off)."""

    implementation, chart = "ours", "poincare"

    def __init__(self):
        self.space = PoincareBall(1.0)

    def point(self, u: Tensor, r: float) -> Tensor:
        return math.tanh(r / 2) * u

    def tangent0(self, u: Tensor, r: float) -> Tensor:
        """A tangent vector at 0 of norm r (the ball's metric at 0 is 2 I)."""
        return r / 2 * u

    def hyperplane_point(self, u: Tensor, r: float) -> Tensor:
        return math.tanh(r / 2) * u  # the MLR's p_k: a point of the ball in either of our charts

    def point_dist(self, a: Tensor, b: Tensor) -> Tensor:
        return pb.dist(a, b, 1.0)

    def mobius_add(self, x, y):
        return self.space.add(x, y)

    def matvec(self, M, x):
        return self.space.matvec_result(x @ M.mT, x)

    def expmap0(self, v):
        return self.space.expmap0(v)

    def logmap0(self, x):
        return self.space.logmap0(x)

    def dist(self, x, y):
        return pb.dist(x, y, 1.0)

    def mlr_logit(self, x, p, a0):
        return self.space.hyperplane_logits(x, p, a0)

    def gru_step(self, h, x, W, U, b):
        """nn.recurrent.gru_step in its batch-last layout: h, x [N, n], W, U [3, n, n], b [3, N, n]."""
        sp = self.space.along(-2)
        xs = x.mT.unsqueeze(-3)  # [1, n, N]
        return gru_step(sp, None, sp.matvec_result(matvec(U, xs, -2), xs), h.mT, W, b.mT).mT


class OursLorentz(OursBall):
    """Ours on the hyperboloid: spaces.Lorentz, points by their space coordinates."""

    chart = "lorentz"

    def __init__(self):
        self.space = Lorentz(1.0)

    def point(self, u: Tensor, r: float) -> Tensor:
        return math.sinh(r) * u

    def point_dist(self, a: Tensor, b: Tensor) -> Tensor:
        return self.dist(a, b)

    def dist(self, x, y):
        return lz.dist_space(x, y, 1.0).squeeze(-1)


class GeooptBall:
    """geoopt's PoincareBall(c = 1), its operations' own projections included; the GRU composed of them."""

    implementation, chart = "geoopt", "poincare"
    point, tangent0, hyperplane_point, point_dist = (
        OursBall.point,
        OursBall.tangent0,
        OursBall.point,
        OursBall.point_dist,
    )

    def __init__(self, geoopt):
        self.m = geoopt.PoincareBall(c=1.0)

    def mobius_add(self, x, y):
        return self.m.mobius_add(x, y)

    def matvec(self, M, x):
        return self.m.mobius_matvec(M, x)

    def expmap0(self, v):
        return self.m.expmap0(v)

    def logmap0(self, x):
        return self.m.logmap0(x)

    def gate_log0(self, x):
        return self.m.logmap0(x)

    def dist(self, x, y):
        return self.m.dist(x, y)

    def fn_apply(self, f, x):
        return self.m.mobius_fn_apply(f, x)

    def neg(self, x):
        return -x

    def mlr_logit(self, x, p, a0):
        """Ganea et al.'s logit 2||a0|| d(x, H_{p, a}) with a = (1 - ||p||^2) a0, from geoopt's dist2plane."""
        a = (1 - p.pow(2).sum(-1, keepdim=True)) * a0
        return 2 * a0.norm(dim=-1) * self.m.dist2plane(x, p, a, signed=True)

    def gru_step(self, h, x, W, U, b):
        return composed_gru(self, h, x, W, U, b)


class GeooptLorentz(GeooptBall):
    """geoopt's Lorentz(k = 1): points (x_0, x_s) as a user holds them; Mobius addition and matvec composed
    of its expmap, transp0 and log/exp at the origin, the logit from its Minkowski product."""

    chart = "lorentz"

    def __init__(self, geoopt):
        self.m = geoopt.Lorentz(k=1.0)

    def point(self, u: Tensor, r: float) -> Tensor:
        return torch.cat([torch.full_like(u[..., :1], math.cosh(r)), math.sinh(r) * u], -1)

    def tangent0(self, u: Tensor, r: float) -> Tensor:
        return torch.cat([torch.zeros_like(u[..., :1]), r * u], -1)

    def hyperplane_point(self, u: Tensor, r: float) -> Tensor:
        return self.point(u, r)

    def point_dist(self, a: Tensor, b: Tensor) -> Tensor:
        """The distance of the points with the results' space coordinates (their x_0 recomputed)."""
        return lz.dist(lz.project(a, 1.0), lz.project(b, 1.0), 1.0)

    def mobius_add(self, x, y):
        return self.m.expmap(x, self.m.transp0(x, self.m.logmap0(y)))

    def matvec(self, M, x):
        return self.fn_apply(lambda v: v @ M.mT, x)

    def fn_apply(self, f, x):
        v = self.m.logmap0(x)
        return self.m.expmap0(torch.cat([v[..., :1], f(v[..., 1:])], -1))

    def gate_log0(self, x):
        """log_0 in the ball's tangent coordinates (half the hyperboloid's): the gates of the ball's GRU."""
        return self.m.logmap0(x)[..., 1:] / 2

    def neg(self, x):
        return torch.cat([x[..., :1], -x[..., 1:]], -1)

    def mlr_logit(self, x, p, a0):
        """2||a0|| asinh(<x, w>_L / (2||a0||)), w = P_{o->p}((0, 2 a0)) (spaces.Lorentz.hyperplane_logits)."""
        w = self.m.transp0(p, torch.cat([torch.zeros_like(a0[..., :1]), 2 * a0], -1))
        norm = 2 * a0.norm(dim=-1)
        return norm * torch.asinh(self.m.inner(x, x, w) / norm)


class HypllBall(GeooptBall):
    """hypll's Poincare ball (its math functions, curvature 1, its projections included): Mobius addition,
    exp_0, log_0 and distance its own; matvec and the GRU composed of them; the logit from its HNN++
    hyperplane distance (Shimizu et al. 2021, eq. 6 as hypll writes it: a hyperplane of normal z through
    exp_0(r [z]), a point at distance 2r), here with z = a0 and the point at r."""

    implementation = "hypll"

    def __init__(self, hypll_math):
        self.m, self.c = hypll_math, torch.tensor(1.0, dtype=torch.float64)

    def mobius_add(self, x, y):
        return self.m.diffgeom.mobius_add(x, y, self.c)

    def matvec(self, M, x):
        return self.fn_apply(lambda v: v @ M.mT, x)

    def expmap0(self, v):
        return self.m.diffgeom.expmap0(v, self.c)

    def logmap0(self, x):
        return self.m.diffgeom.logmap0(x, self.c)

    gate_log0 = logmap0

    def dist(self, x, y):
        return self.m.diffgeom.dist(x, y, self.c)

    def fn_apply(self, f, x):
        return self.expmap0(f(self.logmap0(x)))

    def mlr_logit(self, x, p, a0):
        """x [N, n], a0 [N, n]: sample i's logit for its own hyperplane (the diagonal of hypll's [N, N]);
        the hyperplane's point at the distance of p from the origin (2 r_hypll = d(0, p))."""
        offset = self.dist(torch.zeros_like(p), p) / 2
        return torch.diagonal(self.m.linalg.poincare_hyperplane_dists(x, a0.mT, offset, self.c))


def composed_gru(impl, h: Tensor, x: Tensor, W: Tensor, U: Tensor, b: Tensor) -> Tensor:
    """Ganea et al.'s GRU step (eq. 30, nn.recurrent) from an implementation's Mobius operations:
    h, x [N, ...], W, U [3, n, n], b [3, N, ...]."""

    def affine(g: int, wh: Tensor) -> Tensor:  # (W_g (x) h) (+) (U_g (x) x) (+) b_g
        return impl.mobius_add(impl.mobius_add(wh, impl.matvec(U[g], x)), b[g])

    r = torch.sigmoid(impl.gate_log0(affine(0, impl.matvec(W[0], h))))
    z = torch.sigmoid(impl.gate_log0(affine(1, impl.matvec(W[1], h))))
    cand = affine(2, impl.fn_apply(lambda v: (r * v) @ W[2].mT, h))
    return impl.mobius_add(h, impl.fn_apply(lambda v: z * v, impl.mobius_add(impl.neg(h), cand)))


def _directions(g: torch.Generator, *shape: int) -> Tensor:
    u = torch.randn(*shape, DIM, generator=g, dtype=torch.float64)
    return u / u.norm(dim=-1, keepdim=True)


def inputs(impl, op: str, r: float, seed: int) -> dict[str, Tensor]:
    """The float64 inputs of `op` at radius r, the same draws for every implementation."""
    g = torch.Generator().manual_seed(seed)
    u1, u2, u3 = _directions(g, SAMPLES), _directions(g, SAMPLES), _directions(g, 3, SAMPLES)
    weights = torch.randn(3, DIM, DIM, generator=g, dtype=torch.float64) / DIM**0.5
    return {
        "mobius_add": lambda: {"x": impl.point(u1, r), "y": impl.point(u2, r)},
        "matvec": lambda: {"M": weights[0], "x": impl.point(u1, r)},
        "expmap0": lambda: {"v": impl.tangent0(u1, r)},
        "logmap0": lambda: {"x": impl.point(u1, r)},
        "dist": lambda: {"x": impl.point(u1, r), "y": impl.point(u2, r)},
        "mlr_logit": lambda: {
            "x": impl.point(u1, r),
            "p": impl.hyperplane_point(u2, r),
            "a0": torch.randn(SAMPLES, DIM, generator=g, dtype=torch.float64),
        },
        "gru_step": lambda: {
            "h": impl.point(u1, r),
            "x": impl.point(u2, 1.0),
            "W": weights,
            "U": torch.randn(3, DIM, DIM, generator=g, dtype=torch.float64) / DIM**0.5,
            "b": impl.point(u3, 0.5),
        },
    }[op]()


def _evaluate(impl, op: str, args: dict[str, Tensor], dtype, readout: Tensor | None) -> tuple[Tensor, list[Tensor]]:
    """op's value (in float64) and the gradients of `readout` . value with respect to the inputs, in dtype
    (readout None: a fixed random one, drawn for the value's shape)."""
    args = {k: v.to(dtype).requires_grad_() for k, v in args.items()}
    value = getattr(impl, op)(**args)
    if readout is None:
        readout = torch.randn(value.shape, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    grads = torch.autograd.grad((value * readout.to(dtype)).sum(), list(args.values()), allow_unused=True)
    grads = [torch.zeros_like(a) if gr is None else gr for a, gr in zip(args.values(), grads)]
    return value.detach().double(), [gr.double() for gr in grads], readout


def _relative(a: Tensor, b: Tensor, dims: tuple) -> Tensor:
    """|a - b| / |b| over `dims` (0 where both are 0), inf where a is not finite and b is, nan where b is not."""
    diff = (a - b).pow(2).sum(dims).sqrt() if dims else (a - b).abs()
    ref = b.pow(2).sum(dims).sqrt() if dims else b.abs()
    err = torch.where(diff == 0, torch.zeros_like(diff), diff / ref)
    finite_a, finite_b = (t.isfinite().all(-1) if dims else t.isfinite() for t in (a, b))
    return torch.where(~finite_b, torch.nan, torch.where(~finite_a, torch.inf, err))


def errors(impl, op: str, r: float, seed: int) -> tuple[float, float]:
    """(value_error, grad_error) of `op` at radius r: the largest over the draws (see the module's doc)."""
    args = inputs(impl, op, r, seed)
    value64, grads64, readout = _evaluate(impl, op, args, torch.float64, None)
    value32, grads32, _ = _evaluate(impl, op, args, torch.float32, readout)
    if op in POINT_OPS:
        value = impl.point_dist(value32, value64)
        value = torch.where(value64.isfinite().all(-1), torch.where(value.isfinite(), value, torch.inf), torch.nan)
    else:
        value = _relative(value32, value64, (-1,) if value64.dim() > 1 else ())
    grad = torch.stack([_relative(a.flatten(), b.flatten(), (0,)) for a, b in zip(grads32, grads64)])
    return _worst(value), _worst(grad)


def _worst(errors: Tensor) -> float:
    """The largest error, nan only when every one is (float64 itself undefined)."""
    defined = errors[~errors.isnan()]
    return float(defined.max()) if len(defined) else math.nan


def implementations() -> list:
    """Ours in both charts, geoopt's PoincareBall and Lorentz and hypll's ball where they are installed (the
    test extra)."""
    impls = [OursBall(), OursLorentz()]
    try:
        import geoopt
        import hypll.manifolds.poincare_ball.math as hypll_math
    except ImportError:
        return impls
    return [*impls, GeooptBall(geoopt), GeooptLorentz(geoopt), HypllBall(hypll_math)]


def atlas(radii=RADII) -> pd.DataFrame:
    """The tidy table: op, implementation, chart, r, value_error, grad_error."""
    rows = []
    for i, op in enumerate(OPS):
        for impl in implementations():
            for j, r in enumerate(radii):
                value, grad = errors(impl, op, r, seed=1000 * i + j)
                rows.append(
                    {
                        "op": op,
                        "implementation": impl.implementation,
                        "chart": impl.chart,
                        "r": r,
                        "value_error": value,
                        "grad_error": grad,
                    }
                )
    return pd.DataFrame(rows)


def safe_radius(table: pd.DataFrame) -> pd.DataFrame:
    """Per (op, implementation, chart): the largest r > 0 up to which value and gradient errors stay below
    THRESHOLD (undefined errors skipped; nan when the first r > 0 fails). r = 0 is left out: there every
    point is the origin, where the gradient of a norm is a convention (geoopt's log_0 has gradient 0 at
    the origin in float32 and the identity in float64)."""

    def radius(rows: pd.DataFrame) -> float:
        rows = rows[rows.r > 0].sort_values("r")
        bad = (rows.value_error >= THRESHOLD) | (rows.grad_error >= THRESHOLD)
        safe = rows.r[~bad.cumsum().astype(bool)]
        return float(safe.max()) if len(safe) else math.nan

    keys = ["op", "implementation", "chart"]
    return table.groupby(keys, sort=False).apply(radius, include_groups=False).rename("safe_radius").reset_index()


def shown(safe: pd.DataFrame) -> pd.DataFrame:
    """The safe radii as one row per op and a column per implementation and chart ("-": fails at r = 0.5)."""
    wide = safe.assign(column=safe.implementation + ", " + safe.chart.map(CHARTS))
    wide = wide.pivot(index="op", columns="column", values="safe_radius").reindex(index=list(OPS))
    wide = wide.reindex(columns=[f"{i.implementation}, {CHARTS[i.chart]}" for i in implementations()])
    return tables.shown(wide.reset_index(), dict.fromkeys(wide.columns, "{:g}"))


def make(out: Path, radii=RADII) -> list[Path]:
    """Write float32_atlas.csv under out, then what `drawn` makes of it."""
    out.mkdir(parents=True, exist_ok=True)
    atlas(radii).to_csv(out / "float32_atlas.csv", index=False, float_format="%.3g")
    return [out / "float32_atlas.csv", *drawn(out)]


def drawn(out: Path) -> list[Path]:
    """From out/float32_atlas.csv as written (3 digits), so that the committed CSV brings back the same bytes:
    float32_safe_radius.csv (with its wide .md and .tex) and the figure float32_atlas.png/.pdf under out."""
    from noneuclid.figures.evaluations import float32_atlas as figure

    table = pd.read_csv(out / "float32_atlas.csv")
    safe = safe_radius(table)
    paths = tables.write(
        out,
        "float32_safe_radius",
        safe,
        shown(safe),
        "float32 safe radii",
        f"The largest r (hyperbolic distance from the origin, curvature -1) up to which an operation's "
        f"float32 value and gradient stay within {THRESHOLD:g} of float64's.",
    )
    figure(table, out / "float32_atlas", THRESHOLD)
    return [*paths, out / "float32_atlas.png", out / "float32_atlas.pdf"]
