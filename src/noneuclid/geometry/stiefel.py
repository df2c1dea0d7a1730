"""The Stiefel manifold St(N, n) = {Y in R^{N x n} : Y^T Y = I} as a homogeneous space of O(N).

Everything follows Brantner, "Generalizing Adam to manifolds" (section 3 and appendices A, C) and is
batched over any leading dimensions: ``Y`` has shape [..., N, n].

The global tangent space g^hor (eq. 12) holds the matrices [[A, -B^T], [B, 0]] with A skew (n x n)
and B ((N - n) x n); we store only the pair (A, B). A section lambda(Y) = [Y, Q] in O(N) maps it to
the tangent space at Y, and the retraction maps it back to the manifold (eq. 13, 19-21).
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


def _phi1(X: Tensor) -> Tensor:
    """phi_1(X) = sum_{k>=1} X^{k-1} / k! (the quantity frak-A of Algorithm 4), exactly.

    It is the upper-right block of exp([[X, I], [0, 0]]), so one batched matrix_exp computes it
    to machine precision (scaling and squaring) instead of a truncated Taylor series.
    """
    m = X.shape[-1]
    aug = X.new_zeros(*X.shape[:-2], 2 * m, 2 * m)
    aug[..., :m, :m] = X
    aug[..., :m, m:] = torch.eye(m, dtype=X.dtype, device=X.device)
    return torch.linalg.matrix_exp(aug)[..., :m, m:]


def _cayley_factor(X: Tensor) -> Tensor:
    """(I - X/2)^{-1}: the Cayley map's counterpart of phi_1 in the low-rank formula."""
    m = X.shape[-1]
    eye = torch.eye(m, dtype=X.dtype, device=X.device)
    return torch.linalg.inv(eye - X / 2)


_FACTORS = {"geodesic": _phi1, "cayley": _cayley_factor}


def retract(Y: Tensor, Q: Tensor, A: Tensor, B: Tensor, kind: str = "geodesic") -> Tensor:
    """Y_new = lambda(Y) R(W) E for W = [[A, -B^T], [B, 0]] in g^hor and E = [I; 0] (eq. 13).

    Write W = B' B''^T with B' = [[A/2, I], [B, 0]] and B''^T = [[I, 0], [A/2, -B^T]] (eq. 18), so
    X = B''^T B' = [[A/2, I], [A^2/4 - B^T B, A/2]] is only 2n x 2n and
        geodesic: exp(W) E = E + B' phi_1(X) B''^T E                 (eq. 19-21)
        cayley:   (I - W/2)^{-1} (I + W/2) E = E + B' (I - X/2)^{-1} B''^T E   (Woodbury)
    With C = f(X) [I; A/2] = [C1; C2] (2n x n):  R(W) E = [I + A C1 / 2 + C2 ; B C1], hence
        Y_new = Y (I + A C1 / 2 + C2) + (Q B) C1.
    Shapes: Y [..., N, n], Q [..., N, N - n], A [..., n, n], B [..., N - n, n].
    """
    if kind not in _FACTORS:
        raise ValueError(f"unknown retraction {kind!r}: use one of {sorted(_FACTORS)}")
    n = Y.shape[-1]
    eye = torch.eye(n, dtype=Y.dtype, device=Y.device).expand_as(A)
    half_A = A / 2
    X = torch.cat(
        [torch.cat([half_A, eye], -1), torch.cat([half_A @ half_A - B.mT @ B, half_A], -1)], -2
    )  # [..., 2n, 2n]
    C = _FACTORS[kind](X) @ torch.cat([eye, half_A], -2)  # [..., 2n, n]
    C1, C2 = C[..., :n, :], C[..., n:, :]
    return Y @ (eye + half_A @ C1 + C2) + (Q @ B) @ C1


def orthonormality_error(Y: Tensor) -> Tensor:
    """max |Y^T Y - I| over all matrices of the batch."""
    eye = torch.eye(Y.shape[-1], dtype=Y.dtype, device=Y.device)
    return (Y.mT @ Y - eye).abs().amax()
