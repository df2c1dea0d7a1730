"""The Stiefel manifold St(N, n) = {Y in R^{N x n} : Y^T Y = I} as a homogeneous space of O(N).

Everything follows Brantner, "Generalizing Adam to manifolds" (section 3 and appendices A, C) and is
batched over any leading dimensions: ``Y`` has shape [..., N, n].

The global tangent space g^hor (eq. 12) holds the matrices [[A, -B^T], [B, 0]] with A skew (n x n)
and B ((N - n) x n); we store only the pair (A, B). A section lambda(Y) = [Y, Q] in O(N) maps it to
the tangent space at Y, and the retraction maps it back to the manifold (eq. 13, appendix C).
"""

from __future__ import annotations

import torch
from torch import Tensor


def random_point(*batch: int, N: int, n: int, dtype=None, device=None, generator=None) -> Tensor:
    """Algorithm 3: the first n columns of Q in qr(randn(N, n)). Shape [*batch, N, n]."""
    A = torch.randn(*batch, N, n, dtype=dtype, device=device, generator=generator)
    return torch.linalg.qr(A).Q


def rgrad(Y: Tensor, G: Tensor) -> Tensor:
    """Riemannian gradient for the canonical metric (eq. 3): D = G - Y G^T Y."""
    return G - Y @ (G.mT @ Y)


def section_complement(Y: Tensor, kind: str = "random", generator=None) -> Tensor:
    """The Q of the section lambda(Y) = [Y, Q]: N - n orthonormal columns orthogonal to Y.

    kind="random": Algorithm 2 (the authors' choice, resampled every call): Q spans the successive
        orthogonal components of a Gaussian R (N x (N - n)) against Y, i.e. Q of qr((I - Y Y^T) R).
        We compute it as the last N - n columns of the Householder QR of [Y, R]: the same Q in exact
        arithmetic, but orthogonal to Y to machine precision however ill-conditioned R is (the
        projected R is square in the complement, so its conditioning is often poor).
    kind="householder": deterministic, the last N - n columns of the complete QR of Y.
    Shape [..., N, N - n].
    """
    N, n = Y.shape[-2:]
    if kind == "random":
        R = torch.randn(*Y.shape[:-1], N - n, dtype=Y.dtype, device=Y.device, generator=generator)
        return torch.linalg.qr(torch.cat([Y, R], -1)).Q[..., n:]
    if kind == "householder":
        return torch.linalg.qr(Y, mode="complete").Q[..., n:]
    raise ValueError(f"unknown section kind {kind!r}: use 'random' or 'householder'")


def lift(Y: Tensor, Q: Tensor, D: Tensor) -> tuple[Tensor, Tensor]:
    """Map a tangent vector D at Y to g^hor (eq. 10-12): lambda^T Omega(D) lambda = [[A, -B^T], [B, 0]].

    Returns A = (Y^T D - D^T Y) / 2 ([..., n, n]) and B = Q^T D ([..., N - n, n]). For a tangent D,
    Y^T D is already skew; computing the skew part exactly keeps A skew to the last bit, which Adam's
    elementwise division would otherwise amplify (a rounding-level diagonal divided by sqrt(delta)).
    """
    YtD = Y.mT @ D
    return (YtD - YtD.mT) / 2, Q.mT @ D


def _cayley(K: Tensor) -> Tensor:
    """(I - K/2)^{-1} (I + K/2), orthogonal for skew K."""
    eye = torch.eye(K.shape[-1], dtype=K.dtype, device=K.device)
    return torch.linalg.solve(eye - K / 2, eye + K / 2)


def _expm(K: Tensor) -> Tensor:
    """torch.linalg.matrix_exp over a batch. torch 2.13 loses accuracy (up to 1e-11 in float64) on
    its single-matrix path for 1-norms of about 3e-4 to 5e-2, while batches of two or more are
    accurate, so a lone matrix is computed beside a zero one."""
    flat = K.reshape(-1, *K.shape[-2:])
    if flat.shape[0] == 1:
        return torch.linalg.matrix_exp(torch.cat([flat, torch.zeros_like(flat)]))[:1].reshape(K.shape)
    return torch.linalg.matrix_exp(K)


_MAPS = {"geodesic": _expm, "cayley": _cayley}


def retract(Y: Tensor, Q: Tensor, A: Tensor, B: Tensor, kind: str = "geodesic") -> Tensor:
    """Y_new = lambda(Y) f(W) E for W = [[A, -B^T], [B, 0]] in g^hor and E = [I; 0] (eq. 13), with
    f = exp (the geodesic) or the Cayley map f(W) = (I - W/2)^{-1} (I + W/2).

    W has rank at most 2n, so f(W) E needs only a 2n x 2n matrix function (appendix C; the paper
    writes it with phi_1 of B''^T B', eq. 19-21; we use the equivalent skew form, which is cheaper
    and exactly orthogonal): with H = Q B = U R (thin QR, U orthogonal to Y),
        lambda W lambda^T = [Y, U] K [Y, U]^T,  K = [[A, -R^T], [R, 0]] (2n x 2n, skew), so
        Y_new = [Y, U] f(K) [I; 0] = Y M1 + U M2  with  [M1; M2] = f(K)[:, :n].
    Shapes: Y [..., N, n], Q [..., N, N - n], A [..., n, n], B [..., N - n, n].
    """
    if kind not in _MAPS:
        raise ValueError(f"unknown retraction {kind!r}: use one of {sorted(_MAPS)}")
    n = Y.shape[-1]
    U, R = torch.linalg.qr(Q @ B)  # [..., N, n], [..., n, n]
    K = torch.cat([torch.cat([A, -R.mT], -1), torch.cat([R, torch.zeros_like(R)], -1)], -2)
    M = _MAPS[kind](K)[..., :n]  # [..., 2n, n]
    return Y @ M[..., :n, :] + U @ M[..., n:, :]


def orthonormality_error(Y: Tensor) -> Tensor:
    """max |Y^T Y - I| over all matrices of the batch."""
    eye = torch.eye(Y.shape[-1], dtype=Y.dtype, device=Y.device)
    return (Y.mT @ Y - eye).abs().amax()
