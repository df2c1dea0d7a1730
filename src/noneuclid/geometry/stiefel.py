"""The Stiefel manifold St(N, n) = {Y in R^{N x n} : Y^T Y = I} as a homogeneous space of O(N).

Everything follows Brantner, "Generalizing Adam to manifolds" (section 3 and appendices A, C) and is
batched over any leading dimensions: ``Y`` has shape [..., N, n].

The global tangent space g^hor (eq. 12) holds the matrices [[A, -B^T], [B, 0]] with A skew (n x n)
and B ((N - n) x n); we store only the pair (A, B). A section lambda(Y) = [Y, Q] in O(N) maps it to
the tangent space at Y, and the retraction maps it back to the manifold (eq. 13, appendix C).
"""

from __future__ import annotations

import math

import torch
from torch import Tensor


def random_point(*batch: int, N: int, n: int, dtype=None, device=None, generator=None) -> Tensor:
    """Algorithm 3: the first n columns of Q in qr(randn(N, n)), computed in float64 and then
    rounded to `dtype` (default: torch's default dtype). Shape [*batch, N, n]."""
    A = torch.randn(*batch, N, n, dtype=torch.float64, device=device, generator=generator)
    return torch.linalg.qr(A).Q.to(dtype or torch.get_default_dtype())


def rgrad(Y: Tensor, G: Tensor) -> Tensor:
    """Riemannian gradient for the canonical metric (eq. 3): D = G - Y G^T Y."""
    return G - Y @ (G.mT @ Y)


class Section:
    """The section lambda(Y) = [Y, Q] in O(N) (Algorithm 2), without forming N x N matrices.

    Let H be the product of the Householder reflectors of the QR of Y, so H is orthogonal and
    H[:, :n] = Y up to column signs; Q = H[:, n:] O for an orthogonal (N - n) x (N - n) matrix O:
      kind="random" (the paper's Algorithm 2, redrawn at every call): O = qr(Z).Q, Z ~ randn((N-n)^2).
          Algorithm 2 takes Q = qr((I - Y Y^T) R).Q for a Gaussian R (N x (N - n)). Since
          (I - Y Y^T) R = H[:, n:] Z with Z = H[:, n:]^T R, again Gaussian, that is H[:, n:] qr(Z).Q:
          the same section, for a QR of size N - n instead of N, and orthogonal to Y to machine
          precision however badly conditioned Z is.
      kind="householder": O = I, deterministic.
    Batched over the leading dimensions of Y [..., N, n].
    """

    def __init__(self, Y: Tensor, kind: str = "random", generator=None):
        if kind not in ("random", "householder"):
            raise ValueError(f"unknown section kind {kind!r}: use 'random' or 'householder'")
        self.n = Y.shape[-1]
        self.householder = torch.geqrf(Y)  # H as (reflectors, tau); never formed
        self.rotation = None  # O as a [..., m, m] matrix (m = N - n); None stands for the identity
        if kind == "random":  # explicit, as two batched matmuls apply it faster than its reflectors
            m = Y.shape[-2] - self.n
            self.rotation = torch.linalg.qr(
                torch.randn(*Y.shape[:-2], m, m, dtype=Y.dtype, device=Y.device, generator=generator)).Q

    def coords(self, X: Tensor) -> Tensor:
        """Q^T X = O^T (H^T X)[n:]: [..., N, k] -> [..., N - n, k]."""
        C = torch.ormqr(*self.householder, X, left=True, transpose=True)[..., self.n:, :]
        return C if self.rotation is None else self.rotation.mT @ C

    def embed(self, B: Tensor) -> Tensor:
        """Q B = H [0; O B]: [..., N - n, k] -> [..., N, k]."""
        if self.rotation is not None:
            B = self.rotation @ B
        padded = torch.cat([B.new_zeros(*B.shape[:-2], self.n, B.shape[-1]), B], -2)
        return torch.ormqr(*self.householder, padded, left=True, transpose=False)

    @property
    def Q(self) -> Tensor:
        """The complement as an explicit [..., N, N - n] matrix (for tests and small problems)."""
        reflectors = self.householder[0]
        m = reflectors.shape[-2] - self.n
        eye = torch.eye(m, dtype=reflectors.dtype, device=reflectors.device)
        return self.embed(eye.expand(*reflectors.shape[:-2], m, m))


def lift(Y: Tensor, section: Section, D: Tensor) -> tuple[Tensor, Tensor]:
    """Map a tangent vector D at Y to g^hor (eq. 10-12): lambda^T Omega(D) lambda = [[A, -B^T], [B, 0]].

    Returns A = (Y^T D - D^T Y) / 2 ([..., n, n]) and B = Q^T D ([..., N - n, n]). For a tangent D,
    Y^T D is already skew; computing the skew part exactly keeps A skew to the last bit, which Adam's
    elementwise division would otherwise amplify (a rounding-level diagonal divided by sqrt(delta)).
    """
    YtD = Y.mT @ D
    return (YtD - YtD.mT) / 2, section.coords(D)


def _cayley(K: Tensor) -> Tensor:
    """(I - K/2)^{-1} (I + K/2), orthogonal for skew K."""
    eye = torch.eye(K.shape[-1], dtype=K.dtype, device=K.device)
    return torch.linalg.solve(eye - K / 2, eye + K / 2)


def _expm(K: Tensor) -> Tensor:
    """exp(K) over a batch [..., m, m], by a Taylor polynomial with scaling and squaring sized to the
    batch's largest 1-norm x = max ||K||_1 (Higham, "The scaling and squaring method", 2005):
        s = max(0, ceil(log2(x / theta))) halvings bring the norm to at most theta = 1/2, and the degree
        d is the smallest one whose remainder bound  (x/2^s)^(d+1) / (d+1)! * 2  is below eps/2 of
        the dtype, so the truncation error is below rounding (exp(K) is orthogonal for skew K, norm 1);
        exp(K) = T_d(K / 2^s)^(2^s), T_d evaluated by Horner's rule: I + K(I + K/2(I + ... (I + K/d))).
    The optimizer's K is lr-sized (1-norm about 1e-2 for Adam at lr 1e-3): s = 0 and d = 6, i.e. six
    batched matmuls, where torch.linalg.matrix_exp spends its degree-18 polynomial and per-matrix
    norm tests (about 6x slower here)."""
    x = float(K.abs().sum(-2).amax()) if K.numel() else 0.0
    s = max(0, math.ceil(math.log2(x / _THETA))) if x > _THETA else 0
    x /= 2**s
    degree, remainder, tol = 0, x, torch.finfo(K.dtype).eps / 4
    while remainder > tol:
        degree += 1
        remainder *= x / (degree + 1)
    X = K / 2**s
    eye = torch.eye(K.shape[-1], dtype=K.dtype, device=K.device)
    E = eye.expand_as(K)
    for k in range(degree, 0, -1):
        E = torch.baddbmm(eye.expand_as(K).reshape(-1, *K.shape[-2:]), X.reshape(-1, *K.shape[-2:]),
                          E.reshape(-1, *K.shape[-2:]), alpha=1.0 / k).reshape(K.shape)
    for _ in range(s):
        E = E @ E
    return E


_THETA = 0.5  # largest 1-norm the Taylor polynomial of _expm is applied to (scaled down to it)
_MAPS = {"geodesic": _expm, "cayley": _cayley}


def retract(Y: Tensor, A: Tensor, H: Tensor, kind: str = "geodesic") -> Tensor:
    """Y_new = lambda(Y) f(W) E for W = [[A, -B^T], [B, 0]] in g^hor and E = [I; 0] (eq. 13), with
    f = exp (the geodesic) or the Cayley map f(W) = (I - W/2)^{-1} (I + W/2); H = Q B = embed(B).

    W has rank at most 2n, so f(W) E needs only a 2n x 2n matrix function (appendix C; the paper
    writes it with phi_1 of B''^T B', eq. 19-21; we use the equivalent skew form, which is cheaper
    and exactly orthogonal): with the thin QR H = U R (U orthogonal to Y),
        lambda W lambda^T = [Y, U] K [Y, U]^T,  K = [[A, -R^T], [R, 0]] (2n x 2n, skew), so
        Y_new = [Y, U] f(K) [I; 0] = Y M1 + U M2  with  [M1; M2] = f(K)[:, :n].
    The result depends on the section only through H. Shapes: Y, H [..., N, n], A [..., n, n].

    It is computed in float64 whatever the dtype of Y (and rounded back): in float32 the rounding
    of each step adds up with a consistent sign, and Y^T Y drifts from I by about 1e-7 per step
    (3e-5 after 750 Adam steps), against a random walk of 1.6e-6 when only the final rounding is
    float32. H is made orthogonal to Y again in float64, as it is in exact arithmetic.
    """
    if kind not in _MAPS:
        raise ValueError(f"unknown retraction {kind!r}: use one of {sorted(_MAPS)}")
    n, dtype = Y.shape[-1], Y.dtype
    Y, A, H = (t.to(torch.promote_types(dtype, torch.float64)) for t in (Y, A, H))
    U, R = torch.linalg.qr(H - Y @ (Y.mT @ H))  # [..., N, n], [..., n, n]
    K = torch.cat([torch.cat([A, -R.mT], -1), torch.cat([R, torch.zeros_like(R)], -1)], -2)
    M = _MAPS[kind](K)[..., :n]  # [..., 2n, n]
    return (Y @ M[..., :n, :] + U @ M[..., n:, :]).to(dtype)


def orthonormality_error(Y: Tensor) -> Tensor:
    """max |Y^T Y - I| over all matrices of the batch."""
    eye = torch.eye(Y.shape[-1], dtype=Y.dtype, device=Y.device)
    return (Y.mT @ Y - eye).abs().amax()
