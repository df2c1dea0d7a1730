"""Property tests for the Stiefel-manifold geometry of Brantner, "Generalizing Adam to manifolds".

Notation (paper section 3, appendices A-C):
    St(N, n) = {Y in R^{N x n}: Y^T Y = I}, canonical metric g_Y(D1, D2) = tr(D1^T (I - Y Y^T / 2) D2),
    section lambda(Y) = [Y, Q] in O(N), global tangent space g^hor = {W = [[A, -B^T], [B, 0]]: A skew},
    E = [I; 0] (N x n), so that Y = lambda E.

Everything is float64 unless a test says otherwise (the float32 checks); every test seeds torch's global RNG or
its own torch.Generator.
"""

from __future__ import annotations

import pytest
import torch

from noneuclid.geometry import stiefel

DT = torch.float64
KINDS = ("geodesic", "cayley")
SECTIONS = ("random", "householder")


# -- helpers ------------------------------------------------------------------------------------


def _skew(*shape: int) -> torch.Tensor:
    X = torch.randn(*shape, dtype=DT)
    return X - X.mT


def _eye(m: int) -> torch.Tensor:
    return torch.eye(m, dtype=DT)


def _full_W(A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
    """The N x N element [[A, -B^T], [B, 0]] of g^hor (eq. 12) from the stored pair (A, B)."""
    m = B.shape[-2]
    zero = B.new_zeros(*B.shape[:-2], m, m)
    return torch.cat([torch.cat([A, -B.mT], -1), torch.cat([B, zero], -1)], -2)


def _lam(Y: torch.Tensor, Q: torch.Tensor) -> torch.Tensor:
    return torch.cat([Y, Q], -1)


def _point_and_section(*batch: int, N: int, n: int, kind: str = "householder"):
    Y = stiefel.random_point(*batch, N=N, n=n, dtype=DT)
    return Y, stiefel.Section(Y, kind).Q


def _ghor(*batch: int, N: int, n: int, norm: float | None = None):
    """Random (A, B) of g^hor; if norm is given, each W is scaled to that Frobenius norm."""
    A, B = _skew(*batch, n, n), torch.randn(*batch, N - n, n, dtype=DT)
    if norm is not None:
        s = norm / _full_W(A, B).flatten(-2).norm(dim=-1)[..., None, None]
        A, B = A * s, B * s
    return A, B


def _canonical_sqnorm(Y: torch.Tensor, D: torch.Tensor) -> torch.Tensor:
    """g_Y(D, D) = tr(D^T (I - Y Y^T / 2) D) for the canonical metric."""
    YtD = Y.mT @ D
    return (D * D).sum((-2, -1)) - 0.5 * (YtD * YtD).sum((-2, -1))


def _maxabs(X: torch.Tensor) -> float:
    return X.abs().max().item() if X.numel() else 0.0


# -- random_point (Algorithm 3) ------------------------------------------------------------------


@pytest.mark.parametrize("batch, N, n", [((), 10, 4), ((3, 2), 10, 4), ((5,), 6, 6), ((2,), 49, 7), ((), 7, 1)])
def test_random_point_is_orthonormal_and_batched(batch, N, n):
    """Algorithm 3 (first n columns of qr(randn(N, n)).Q) lies on St(N, n): Y^T Y = I."""
    torch.manual_seed(0)
    Y = stiefel.random_point(*batch, N=N, n=n, dtype=DT)
    assert Y.shape == (*batch, N, n) and Y.dtype == DT
    assert _maxabs(Y.mT @ Y - _eye(n)) <= 1e-12
    assert stiefel.orthonormality_error(Y).item() <= 1e-12


def test_random_point_generator_is_reproducible():
    """Algorithm 3 with an explicit generator is deterministic."""
    g1, g2 = torch.Generator().manual_seed(7), torch.Generator().manual_seed(7)
    Y1 = stiefel.random_point(2, N=9, n=3, dtype=DT, generator=g1)
    Y2 = stiefel.random_point(2, N=9, n=3, dtype=DT, generator=g2)
    assert torch.equal(Y1, Y2)


# -- rgrad (eq. 3) -------------------------------------------------------------------------------


def test_rgrad_is_tangent():
    """Eq. (3): D = G - Y G^T Y lies in T_Y St: Y^T D + D^T Y = 0."""
    torch.manual_seed(1)
    Y = stiefel.random_point(3, 2, N=10, n=4, dtype=DT)
    G = torch.randn(3, 2, 10, 4, dtype=DT)
    D = stiefel.rgrad(Y, G)
    assert D.shape == G.shape
    assert _maxabs(Y.mT @ D + D.mT @ Y) <= 1e-12


def test_rgrad_is_the_canonical_metric_gradient():
    """Eq. (3): D = rgrad(Y, G) is the Riemannian gradient for the canonical metric, i.e.
    g_Y(D, V) = tr(D^T (I - Y Y^T/2) V) equals the Euclidean derivative tr(G^T V) for every tangent V."""
    torch.manual_seed(2)
    Y, Q = _point_and_section(4, N=10, n=4)
    G = torch.randn(4, 10, 4, dtype=DT)
    D = stiefel.rgrad(Y, G)
    A, B = _ghor(4, N=10, n=4)
    V = Y @ A + Q @ B  # a general tangent vector at Y
    lhs = (D * (V - 0.5 * Y @ (Y.mT @ V))).sum((-2, -1))
    rhs = (G * V).sum((-2, -1))
    assert _maxabs(lhs - rhs) <= 1e-12


# -- section lambda(Y) = [Y, Q] (Algorithm 2) ----------------------------------------------------


@pytest.mark.parametrize("kind", SECTIONS)
@pytest.mark.parametrize("batch, N, n", [((), 10, 4), ((3, 2), 10, 4), ((2,), 49, 7), ((), 5, 1)])
def test_section_completes_to_orthogonal_matrix(kind, batch, N, n):
    """Algorithm 2 / eq. (10): lambda(Y) = [Y, Q] is in O(N) and Q^T Y = 0."""
    torch.manual_seed(3)
    Y = stiefel.random_point(*batch, N=N, n=n, dtype=DT)
    Q = stiefel.Section(Y, kind).Q
    assert Q.shape == (*batch, N, N - n)
    lam = _lam(Y, Q)
    assert torch.equal(lam[..., :n], Y)  # lambda(Y) E = Y
    assert _maxabs(lam.mT @ lam - _eye(N)) <= 1e-12
    assert _maxabs(lam @ lam.mT - _eye(N)) <= 1e-12
    assert _maxabs(Q.mT @ Y) <= 1e-12


def test_random_section_is_resampled_and_householder_is_deterministic():
    """Algorithm 2 resamples Q each call; the Householder section is a fixed function of Y."""
    torch.manual_seed(4)
    Y = stiefel.random_point(2, N=10, n=4, dtype=DT)
    Q1, Q2 = stiefel.Section(Y, "random").Q, stiefel.Section(Y, "random").Q
    assert _maxabs(Q1 - Q2) > 1e-3
    H1, H2 = stiefel.Section(Y, "householder").Q, stiefel.Section(Y, "householder").Q
    assert torch.equal(H1, H2)
    # with a seeded generator the random section is reproducible
    g1, g2 = torch.Generator().manual_seed(5), torch.Generator().manual_seed(5)
    assert torch.equal(stiefel.Section(Y, "random", g1).Q, stiefel.Section(Y, "random", g2).Q)


def test_section_unknown_kind_raises():
    Y = stiefel.random_point(N=5, n=2, dtype=DT)
    with pytest.raises(ValueError):
        stiefel.Section(Y, "qr")


# -- lift to g^hor (eq. 10-12, Appendix B) -------------------------------------------------------


@pytest.mark.parametrize("kind", SECTIONS)
def test_lift_is_skew_and_reconstructs_omega(kind):
    """Eq. (10-12), Appendix B: lift(D) = (A, B) with A skew to the last bit, and the N x N matrix
    Omega(D) = lambda W lambda^T, W = [[A, -B^T], [B, 0]], satisfies Omega(D) Y = D."""
    torch.manual_seed(6)
    Y = stiefel.random_point(3, 2, N=10, n=4, dtype=DT)
    S = stiefel.Section(Y, kind)
    Q = S.Q
    D = stiefel.rgrad(Y, torch.randn(3, 2, 10, 4, dtype=DT))
    A, B = stiefel.lift(Y, S, D)
    assert A.shape == (3, 2, 4, 4) and B.shape == (3, 2, 6, 4)
    assert torch.equal(A + A.mT, torch.zeros_like(A))  # exactly skew, zero diagonal
    lam = _lam(Y, Q)
    Omega = lam @ _full_W(A, B) @ lam.mT
    assert _maxabs(Omega + Omega.mT) <= 1e-12  # Omega(D) in so(N)
    assert _maxabs(Omega @ Y - D) <= 1e-12  # Omega(D) Y = D
    assert _maxabs(Y @ A + Q @ B - D) <= 1e-12  # i.e. D = lambda W E


@pytest.mark.parametrize("kind", SECTIONS)
def test_lift_is_an_isomorphism_onto_the_tangent_space(kind):
    """Eq. (12): (A, B) -> Y A + Q B = lambda W E is a bijection g^hor -> T_Y St whose inverse is lift."""
    torch.manual_seed(7)
    Y = stiefel.random_point(5, N=10, n=4, dtype=DT)
    S = stiefel.Section(Y, kind)
    Q = S.Q
    A0, B0 = _ghor(5, N=10, n=4)
    D = Y @ A0 + Q @ B0
    assert _maxabs(Y.mT @ D + D.mT @ Y) <= 1e-12  # the image is tangent
    A, B = stiefel.lift(Y, S, D)
    assert _maxabs(A - A0) <= 1e-12 and _maxabs(B - B0) <= 1e-12
    # on a basis of g^hor (E_ij - E_ji for i < j in A, E_kl in B) the map has full rank dim St(N, n) =
    # N n - n(n+1)/2, with tangent images: injective, and onto T_Y St
    N, n = 10, 4
    basis = []
    for i in range(n):
        for j in range(i + 1, n):
            Ab = torch.zeros(n, n, dtype=DT)
            Ab[i, j], Ab[j, i] = 1.0, -1.0
            basis.append((Ab, torch.zeros(N - n, n, dtype=DT)))
    for k in range(N - n):
        for col in range(n):
            Bb = torch.zeros(N - n, n, dtype=DT)
            Bb[k, col] = 1.0
            basis.append((torch.zeros(n, n, dtype=DT), Bb))
    images = torch.stack([Y @ Ab + S.embed(Bb.expand(5, N - n, n)) for Ab, Bb in basis], -1)  # [5, N, n, dim]
    assert _maxabs(torch.einsum("bji,bjkd->bikd", Y, images) + torch.einsum("bjid,bjk->bikd", images, Y)) <= 1e-12
    rank = torch.linalg.matrix_rank(images.flatten(1, 2))  # [5]: of the N n x dim matrix per point
    assert rank.tolist() == [N * n - n * (n + 1) // 2] * 5 and len(basis) == N * n - n * (n + 1) // 2


@pytest.mark.parametrize("kind", SECTIONS)
def test_lift_gradient_is_lift_of_rgrad(kind):
    """Algorithm 1's first two lines at once: lift_gradient(G) = lift(rgrad(G)) = (Y^T G - G^T Y, Q^T G)."""
    torch.manual_seed(16)
    Y = stiefel.random_point(3, 2, N=10, n=4, dtype=DT)
    S, G = stiefel.Section(Y, kind), torch.randn(3, 2, 10, 4, dtype=DT)
    A, B = stiefel.lift_gradient(Y, S, G)
    A0, B0 = stiefel.lift(Y, S, stiefel.rgrad(Y, G))
    assert torch.equal(A + A.mT, torch.zeros_like(A))
    assert _maxabs(A - A0) <= 1e-12 and _maxabs(B - B0) <= 1e-12


@pytest.mark.parametrize("norm", [0.0, 1e-3, 0.3, 5.0, 40.0])  # s = 0 (Horner on columns) and s > 0 (doubling)
def test_phi1_times_matches_augmented_exponential(norm):
    """phi_1(X) V is the top-right block of exp([[X, V], [0, 0]]) (Higham, Functions of Matrices, 10.7)."""
    torch.manual_seed(18)
    X = torch.randn(5, 6, 6, dtype=DT)
    X *= norm / X.abs().sum(-2).amax()
    V = torch.randn(5, 6, 3, dtype=DT)
    aug = torch.cat([torch.cat([X, V], -1), torch.zeros(5, 3, 9, dtype=DT)], -2)
    ref = torch.linalg.matrix_exp(aug)[..., :6, 6:]
    assert _maxabs(stiefel._phi1_times(X, V) - ref) <= 1e-13 * max(1.0, _maxabs(ref))


@pytest.mark.parametrize("kind", KINDS)
def test_retract_needs_no_orthogonality_of_H(kind):
    """The low-rank formula holds for any U = [Y, H/e]: with H not orthogonal to Y the result is still
    Y mapped by f(Y A Y^T + H Y^T - Y H^T), an orthogonal matrix, so it stays on St(N, n)."""
    torch.manual_seed(19)
    Y = stiefel.random_point(4, N=12, n=3, dtype=DT)
    A, H = _skew(4, 3, 3) * 0.1, torch.randn(4, 12, 3, dtype=DT) * 0.1
    Yn = stiefel.retract(Y, A, H, kind)
    Omega = Y @ A @ Y.mT + H @ Y.mT - Y @ H.mT
    eye = _eye(12)
    f = torch.linalg.matrix_exp(Omega) if kind == "geodesic" else torch.linalg.solve(eye - Omega / 2, eye + Omega / 2)
    assert _maxabs(Yn - f @ Y) <= 1e-13
    assert stiefel.orthonormality_error(Yn).item() <= 1e-13


# -- retraction (eq. 13, 18-21) ------------------------------------------------------------------


@pytest.mark.parametrize("section", SECTIONS)
@pytest.mark.parametrize("batch, N, n", [((), 10, 4), ((3, 2), 10, 4), ((2,), 49, 7), ((), 6, 1)])
def test_retract_matches_full_matrix_maps(section, batch, N, n):
    """Eq. (13) and appendix C (eq. 18-21): the 2n x 2n low-rank formulas equal the full N x N maps
        geodesic: lambda exp(W) E,      cayley: lambda (I - W/2)^{-1} (I + W/2) E,
    and both outputs lie on St(N, n)."""
    torch.manual_seed(8)
    Y = stiefel.random_point(*batch, N=N, n=n, dtype=DT)
    Q = stiefel.Section(Y, section).Q
    A, B = _ghor(*batch, N=N, n=n, norm=0.5)
    W, lam, eye = _full_W(A, B), _lam(Y, Q), _eye(N)
    expected = {
        "geodesic": lam @ torch.linalg.matrix_exp(W)[..., :n],
        "cayley": lam @ torch.linalg.solve(eye - W / 2, eye + W / 2)[..., :n],
    }
    for kind in KINDS:
        Yn = stiefel.retract(Y, A, Q @ B, kind)
        assert Yn.shape == Y.shape
        assert _maxabs(Yn - expected[kind]) <= 1e-12, kind
        assert stiefel.orthonormality_error(Yn).item() <= 1e-12, kind


@pytest.mark.parametrize("kind", KINDS)
def test_retract_large_step_stays_orthonormal(kind):
    """Eq. (13): R(W) is in O(N) for every W in g^hor, so even a large step stays on St(N, n)."""
    torch.manual_seed(9)
    Y, Q = _point_and_section(4, N=12, n=3)
    A, B = _ghor(4, N=12, n=3, norm=30.0)
    Yn = stiefel.retract(Y, A, Q @ B, kind)
    assert stiefel.orthonormality_error(Yn).item() <= 1e-12
    W, lam, eye = _full_W(A, B), _lam(Y, Q), _eye(12)
    ref = (
        lam
        @ (torch.linalg.matrix_exp(W) if kind == "geodesic" else torch.linalg.solve(eye - W / 2, eye + W / 2))[..., :3]
    )
    assert _maxabs(Yn - ref) <= 1e-9


def _expm_skew(W: torch.Tensor) -> torch.Tensor:
    """exp(W) for real skew W, independent of torch.linalg.matrix_exp: iW is Hermitian, so with
    iW = V diag(mu) V^H we get exp(W) = V diag(exp(-i mu)) V^H (accurate to a few ulps)."""
    mu, V = torch.linalg.eigh(1j * W.to(torch.complex128))
    return ((V * torch.exp(-1j * mu)[..., None, :]) @ V.mH).real


_SCALES = torch.logspace(-4, 0.5, 46, dtype=DT).tolist()  # covers every degree band of matrix_exp


def _geodesic_sweep_errors(batch):
    torch.manual_seed(17)
    N, n = 10, 4
    Y, Q = _point_and_section(*batch, N=N, n=n)
    A, B = _ghor(*batch, N=N, n=n, norm=1.0)
    lam = _lam(Y, Q)
    worst_ref, worst_orth = 0.0, 0.0
    for s in _SCALES:
        Yn = stiefel.retract(Y, s * A, s * (Q @ B), "geodesic")
        ref = lam @ _expm_skew(s * _full_W(A, B))[..., :n]
        worst_ref = max(worst_ref, _maxabs(Yn - ref))
        worst_orth = max(worst_orth, stiefel.orthonormality_error(Yn).item())
    return worst_ref, worst_orth


def test_geodesic_retraction_accurate_for_all_step_sizes_batched():
    """Eq. (13), geodesic: lambda exp(W) E to ~1e-14 for step sizes from 1e-4 to 3, checked against
    an eigendecomposition-based exponential (independent of torch.linalg.matrix_exp)."""
    worst_ref, worst_orth = _geodesic_sweep_errors((3,))
    assert worst_ref <= 1e-13 and worst_orth <= 1e-14


def test_geodesic_retraction_accurate_for_all_step_sizes_single_matrix():
    """Eq. (13), geodesic, one unbatched St(10, 4) point: same accuracy as the batched case."""
    worst_ref, worst_orth = _geodesic_sweep_errors(())
    assert worst_ref <= 1e-13 and worst_orth <= 1e-14


def test_retract_unknown_kind_raises():
    Y, Q = _point_and_section(N=5, n=2)
    A, B = _ghor(N=5, n=2)
    with pytest.raises(ValueError):
        stiefel.retract(Y, A, Q @ B, "exp")


@pytest.mark.parametrize("kind", KINDS)
def test_retract_zero_is_identity(kind):
    """Eq. (13): R(0) = I, so retracting W = 0 returns Y."""
    torch.manual_seed(10)
    Y, Q = _point_and_section(3, N=10, n=4)
    Yn = stiefel.retract(Y, torch.zeros(3, 4, 4, dtype=DT), torch.zeros(3, 10, 4, dtype=DT), kind)
    assert _maxabs(Yn - Y) <= 1e-15


@pytest.mark.parametrize("kind", KINDS)
def test_retract_first_order_condition(kind):
    """Eq. (13): d/dt lambda R(t W) E at t = 0 is lambda W E = Y A + Q B (central finite difference)."""
    torch.manual_seed(11)
    Y, Q = _point_and_section(2, N=10, n=4)
    A, B = _ghor(2, N=10, n=4, norm=1.0)
    h = 1e-5
    fd = (stiefel.retract(Y, h * A, h * (Q @ B), kind) - stiefel.retract(Y, -h * A, -h * (Q @ B), kind)) / (2 * h)
    assert _maxabs(fd - (Y @ A + Q @ B)) <= 1e-6


def test_geodesic_has_constant_canonical_speed():
    """Eq. (13) with R = exp: t -> lambda exp(t W) E is a geodesic of the canonical metric, so its
    speed g_{Y(t)}(Y'(t), Y'(t)) is constant, equal to |A|^2/2 + |B|^2 = g_Y(YA + QB, YA + QB)."""
    torch.manual_seed(12)
    Y, Q = _point_and_section(2, N=10, n=4, kind="random")
    A, B = _ghor(2, N=10, n=4, norm=1.0)
    speed0 = 0.5 * (A * A).sum((-2, -1)) + (B * B).sum((-2, -1))
    assert _maxabs(_canonical_sqnorm(Y, Y @ A + Q @ B) - speed0) <= 1e-12
    h = 1e-5
    for t in torch.linspace(0.0, 3.0, 7, dtype=DT).tolist():
        Yt = stiefel.retract(Y, t * A, t * (Q @ B), "geodesic")
        dY = (
            stiefel.retract(Y, (t + h) * A, (t + h) * (Q @ B), "geodesic")
            - stiefel.retract(Y, (t - h) * A, (t - h) * (Q @ B), "geodesic")
        ) / (2 * h)
        assert _maxabs(Yt.mT @ dY + dY.mT @ Yt) <= 1e-6  # velocity tangent at Y(t)
        assert _maxabs(_canonical_sqnorm(Yt, dY) - speed0) <= 1e-6, t


def test_geodesic_one_parameter_group():
    """Eq. (13) with R = exp: exp((s+t)W) = exp(sW) exp(tW). Retracting tW from Y(s) with the
    transported section lambda(Y) exp(sW) lands on Y(s + t), to machine precision."""
    torch.manual_seed(13)
    n, N = 4, 10
    Y, Q = _point_and_section(3, N=N, n=n, kind="random")
    A, B = _ghor(3, N=N, n=n, norm=0.5)
    s, t = 0.7, 1.3
    lam_s = _lam(Y, Q) @ torch.linalg.matrix_exp(s * _full_W(A, B))
    Ys, Qs = lam_s[..., :n], lam_s[..., n:]
    assert _maxabs(Ys - stiefel.retract(Y, s * A, s * (Q @ B), "geodesic")) <= 1e-12
    lhs = stiefel.retract(Ys, t * A, t * (Qs @ B), "geodesic")
    rhs = stiefel.retract(Y, (s + t) * A, (s + t) * (Q @ B), "geodesic")
    assert _maxabs(lhs - rhs) <= 1e-12


def test_cayley_is_second_order_close_to_geodesic():
    """Eq. (13): Cay(tW) = exp(tW) + O(t^3), so the two retractions agree to third order."""
    torch.manual_seed(14)
    Y, Q = _point_and_section(2, N=10, n=4)
    A, B = _ghor(2, N=10, n=4, norm=1.0)
    errs = []
    for t in (1e-1, 5e-2):
        d = stiefel.retract(Y, t * A, t * (Q @ B), "geodesic") - stiefel.retract(Y, t * A, t * (Q @ B), "cayley")
        errs.append(_maxabs(d))
    assert errs[0] < 1e-2
    assert 6.0 < errs[0] / errs[1] < 10.0  # ratio 2^3 = 8 for an O(t^3) difference


# -- agreement with geoopt (test-only dependency) ------------------------------------------------


def test_rgrad_matches_geoopt_canonical_stiefel():
    """Eq. (3) agrees with geoopt.manifolds.CanonicalStiefel, whose proju = egrad2rgrad computes
    u - x u^T x, i.e. the canonical-metric gradient G - Y G^T Y."""
    geoopt = pytest.importorskip("geoopt")
    torch.manual_seed(15)
    M = geoopt.manifolds.CanonicalStiefel()
    Y = stiefel.random_point(3, N=10, n=4, dtype=DT)
    G = torch.randn(3, 10, 4, dtype=DT)
    D = stiefel.rgrad(Y, G)
    assert _maxabs(M.egrad2rgrad(Y, G) - D) <= 1e-12
    assert _maxabs(M.proju(Y, G) - D) <= 1e-12
    # geoopt's canonical inner product is the metric used in the constant-speed test
    assert _maxabs(M.inner(Y, D) - _canonical_sqnorm(Y, D)) <= 1e-12


@pytest.mark.parametrize("section", SECTIONS)
def test_cayley_retraction_matches_geoopt(section):
    """Cayley retraction of eq. (13) versus geoopt's CanonicalStiefel.retr.

    geoopt 0.5.1 (geoopt/manifolds/stiefel.py) computes retr(x, u) = (I - a/2)^{-1} (I + a/2) x with
    a = _amat(x, u) = u x^T - x u^T (the Wen-Yin matrix). For u = Y A + Q B this is
        a = Y A Y^T + Q B Y^T - Y A^T Y^T - Y B^T Q^T = lambda [[2A, -B^T], [B, 0]] lambda^T,
    whereas the canonical horizontal lift of the paper is Omega(u) = lambda [[A, -B^T], [B, 0]] lambda^T
    (Omega(u) = (I - YY^T/2) u Y^T - Y u^T (I - YY^T/2)). geoopt thus counts the Y Y^T u part of u
    twice, so the exact relationship is
        geoopt.retr(Y, Y A + Q B)      == retract(Y, Q, 2A, B, "cayley")
        geoopt.retr(Y, Y A / 2 + Q B)  == retract(Y, Q, A, B, "cayley")
    and the two coincide for horizontal u (A = 0). A consequence: d/dt geoopt.retr(Y, t u) at 0 is
    u + Y Y^T u, not u (geoopt's retr is designed to be fed the Euclidean gradient, as in Wen-Yin).
    retr_transp returns the same point."""
    geoopt = pytest.importorskip("geoopt")
    torch.manual_seed(16)
    M = geoopt.manifolds.CanonicalStiefel()
    Y = stiefel.random_point(3, N=10, n=4, dtype=DT)
    Q = stiefel.Section(Y, section).Q
    A, B = _ghor(3, N=10, n=4, norm=0.5)
    ours = stiefel.retract(Y, A, Q @ B, "cayley")
    assert _maxabs(M.retr(Y, Y @ A / 2 + Q @ B) - ours) <= 1e-10
    assert _maxabs(M.retr(Y, Y @ A + Q @ B) - stiefel.retract(Y, 2 * A, Q @ B, "cayley")) <= 1e-10
    assert _maxabs(M.retr(Y, Y @ A + Q @ B) - ours) > 1e-3  # the conventions really differ for A != 0
    Z = torch.zeros_like(A)
    assert _maxabs(M.retr(Y, Q @ B) - stiefel.retract(Y, Z, Q @ B, "cayley")) <= 1e-10
    new_x, _ = M.retr_transp(Y, Y @ A / 2 + Q @ B, Q @ B)
    assert _maxabs(new_x - ours) <= 1e-10


# -- float32 against float64 ---------------------------------------------------------------------

F32_EPS = torch.finfo(torch.float32).eps
F32_CASES = [((8,), 10, 4), ((8,), 49, 7), ((8,), 6, 1)]  # batch, N, n
STEP_NORMS = (1e-3, 0.3, 30.0)  # lr-sized steps (Horner, s = 0), moderate ones, and many doublings


def _f32_inputs(g: torch.Generator, batch, N: int, n: int, norm: float):
    """Y, A, H = Q B built in float64 (||W||_F = norm), then rounded to float32 and brought back to float64:
    the float64 computation then sees exactly the float32 inputs."""
    Y = stiefel.random_point(*batch, N=N, n=n, dtype=DT, generator=g)
    Q = stiefel.Section(Y).Q
    X = torch.randn(*batch, n, n, dtype=DT, generator=g)
    A, B = X - X.mT, torch.randn(*batch, N - n, n, dtype=DT, generator=g)
    s = norm / _full_W(A, B).flatten(-2).norm(dim=-1)[..., None, None]
    return tuple(t.float().double() for t in (Y, A * s, Q @ (B * s)))


@pytest.mark.parametrize("norm", STEP_NORMS)
@pytest.mark.parametrize("kind", KINDS)
def test_retract_float32_matches_float64(kind, norm):
    """retract in float32 equals retract in float64 on the same (float32) inputs to 2 float32 eps times
    max(1, ||W||_F) (measured over 60 seeds: 0.64), and its result is orthonormal to 8 eps max(1, ||W||_F)
    (measured: 3): the step is added to Y once, so float32 rounds at Y's scale only there."""
    g = torch.Generator().manual_seed(20)
    scale = max(1.0, norm)
    for batch, N, n in F32_CASES:
        Y, A, H = _f32_inputs(g, batch, N, n, norm)
        Y32 = stiefel.retract(Y.float(), A.float(), H.float(), kind)
        assert Y32.dtype == torch.float32
        assert _maxabs(Y32.double() - stiefel.retract(Y, A, H, kind)) <= 2 * F32_EPS * scale, (N, n)
        assert stiefel.orthonormality_error(Y32).item() <= 8 * F32_EPS * scale, (N, n)


@pytest.mark.parametrize("norm", STEP_NORMS)
def test_phi1_times_float32_matches_float64(norm):
    """phi_1(X) V in float32 equals float64 on the same inputs to 2 float32 eps times max |phi_1(X) V| times
    max(1, ||X||_1) (measured over 60 seeds: 0.43), for the X = C U^T U and V = X[:, :n] that retract builds
    (eigenvalues on the imaginary axis, so phi_1(X) stays bounded): the float32 Taylor degree and the
    doublings lose no more than that."""
    g = torch.Generator().manual_seed(21)
    for batch, N, n in F32_CASES:
        Y, A, H = _f32_inputs(g, batch, N, n, norm)
        e = torch.linalg.vector_norm(H, dim=(-2, -1), keepdim=True)
        U = torch.cat([Y, H / e], -1)
        eI = e * _eye(n)
        C = torch.cat([torch.cat([A, -eI], -1), torch.cat([eI, torch.zeros_like(A)], -1)], -2)
        X = (C @ (U.mT @ U)).float().double()
        V = X[..., :n]
        ref = stiefel._phi1_times(X, V)
        out = stiefel._phi1_times(X.float(), V.float())
        assert out.dtype == torch.float32
        bound = 2 * F32_EPS * _maxabs(ref) * max(1.0, X.abs().sum(-2).amax().item())
        assert _maxabs(out.double() - ref) <= bound, (N, n)


# -- geotorch's SO(N) as an independent reference -------------------------------------------------


@pytest.mark.parametrize("section", SECTIONS)
@pytest.mark.parametrize("triv, kind", [("expm", "geodesic"), ("cayley", "cayley")])
def test_retract_matches_geotorch_so(triv, kind, section):
    """Eq. (13) against geotorch 0.4.0: geotorch.SO with base lambda(Y) = [Y, Q] (set by right_inverse) maps the
    skew W = [[A, -B^T], [B, 0]] to base f(W), f = torch's matrix_exp (triv "expm") or the Cayley map
    (I - W/2)^{-1} (I + W/2) (triv "cayley"), the same f as retract's; its first n columns are therefore
    lambda f(W) E = retract(Y, A, Q B, kind), to 1e-13 (measured: 3e-15), n = N included."""
    geotorch = pytest.importorskip("geotorch")
    g = torch.Generator().manual_seed(22)
    for N, n in ((10, 4), (12, 3), (6, 1), (5, 5)):
        Y = stiefel.random_point(3, N=N, n=n, dtype=DT, generator=g)
        Q = stiefel.Section(Y, section, generator=g).Q
        so = geotorch.SO((3, N, N), triv=triv).to(DT)
        so.right_inverse(_lam(Y, Q))
        for norm in (0.5, 3.0):
            X = torch.randn(3, n, n, dtype=DT, generator=g)
            A, B = X - X.mT, torch.randn(3, N - n, n, dtype=DT, generator=g)
            s = norm / _full_W(A, B).flatten(-2).norm(dim=-1)[..., None, None]
            A, B = A * s, B * s
            ours = stiefel.retract(Y, A, Q @ B, kind)
            assert _maxabs(so(_full_W(A, B))[..., :n] - ours) <= 1e-13, (N, n, norm)
