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
    """Riemannian gradient for the canonical metric of eq. (3): D = G - Y G^T Y (eq. 4). The optimizer
    uses lift_gradient, which never forms D; this is the reference form."""
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

    def __init__(self, Y: Tensor, kind: str = "householder", generator=None):
        if kind not in ("random", "householder"):
            raise ValueError(f"unknown section kind {kind!r}: use 'random' or 'householder'")
        self.n = Y.shape[-1]
        self.householder = torch.geqrf(Y)  # H as (reflectors, tau); never formed
        self.rotation = None  # O as a [..., m, m] matrix (m = N - n); None stands for the identity
        if kind == "random":  # explicit, as two batched matmuls apply it faster than its reflectors
            m = Y.shape[-2] - self.n
            self.rotation = torch.linalg.qr(
                torch.randn(*Y.shape[:-2], m, m, dtype=Y.dtype, device=Y.device, generator=generator)
            ).Q

    def coords(self, X: Tensor) -> Tensor:
        """Q^T X = O^T (H^T X)[n:]: [..., N, k] -> [..., N - n, k]."""
        C = torch.ormqr(*self.householder, X, left=True, transpose=True)[..., self.n :, :]
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


def lift_gradient(Y: Tensor, section: Section, G: Tensor) -> tuple[Tensor, Tensor]:
    """lift(Y, section, rgrad(Y, G)) for a Euclidean gradient G [..., N, n], without forming rgrad:
    with D = G - Y G^T Y (eq. 4) and Y^T Y = I, Q^T Y = 0,
        A = (Y^T D - D^T Y) / 2 = Y^T G - G^T Y,    B = Q^T D = Q^T G.
    Algorithm 1's first two lines in one matmul and one application of the section."""
    YtG = Y.mT @ G
    return YtG - YtG.mT, section.coords(G)


_THETA = 0.5  # largest 1-norm the Taylor polynomial of _phi1_times is applied to (scaled down to it)


def _phi1_times(X: Tensor, V: Tensor) -> Tensor:
    """phi_1(X) V for a batch of square X [b, m, m] and V [b, m, k], phi_1(z) = (e^z - 1)/z = sum z^j/(j+1)!.

    A Taylor polynomial sized to the batch's largest 1-norm x = max ||X||_1, with scaling and squaring
    as for exp (Higham, "The scaling and squaring method", 2005): s halvings bring the norm to at most
    theta = 1/2, and the degree d is the smallest whose remainder bound 2 (x/2^s)^(d+1) / (d+2)! is
    below a quarter of the dtype's eps. With s = 0 (the optimizer's lr-sized steps: Adam at lr 1e-3
    gives x about 2e-2, so d = 3 in float32, 7 in float64) Horner's rule runs on the k columns of V:
        phi_1(X) V = V + X/2 (V + X/3 (V + ... (V + X/(d+1) V))).
    Otherwise phi_1(Z), Z = X/2^s, is doubled s times by phi_1(2Z) = phi_1(Z) (2I + Z phi_1(Z)) / 2,
    which follows from e^(2Z) - I = (e^Z - I)(e^Z + I) and e^Z = I + Z phi_1(Z)."""
    x = float(X.abs().sum(-2).amax()) if X.numel() else 0.0
    s = max(0, math.ceil(math.log2(x / _THETA))) if x > _THETA else 0
    x /= 2**s
    degree, remainder, tol = 0, x, torch.finfo(X.dtype).eps / 4  # the bound at d = 0: 2 x / 2! = x
    while remainder > tol:
        degree += 1
        remainder *= x / (degree + 2)
    Z = X / 2**s
    eye = torch.eye(X.shape[-1], dtype=X.dtype, device=X.device).expand_as(X)
    P = V if s == 0 else eye
    for k in range(degree + 1, 1, -1):
        P = torch.baddbmm(V if s == 0 else eye, Z, P, alpha=1.0 / k)
    for _ in range(s):
        P = P @ torch.baddbmm(eye, Z, P, beta=2.0) / 2
        Z = 2 * Z
    return P if s == 0 else P @ V


def retract(Y: Tensor, A: Tensor, H: Tensor, kind: str = "geodesic") -> Tensor:
    """Y_new = lambda(Y) f(W) E for W = [[A, -B^T], [B, 0]] in g^hor and E = [I; 0] (eq. 13), with
    f = exp (the geodesic) or the Cayley map f(W) = (I - W/2)^{-1} (I + W/2); H = Q B = embed(B).

    lambda W lambda^T = Y A Y^T + H Y^T - Y H^T has rank at most 2n, so f needs only 2n x 2n matrices
    (appendix C, eq. 19-21). Written as U C U^T with
        U = [Y, H/e] (N x 2n),  C = [[A, -e I], [e I, 0]] (skew),  e = ||H||_F (balances the blocks;
        at least sqrt(tiny), so that H = 0 is safe),
    the push-through identity f(U C U^T) = I + U g(C U^T U) C U^T, with g = phi_1 for exp and
    g(X) = (I - X/2)^{-1} for Cayley, gives, with X = C U^T U and C U^T Y = X[:, :n] (the first n
    columns of U are Y):
        geodesic: Y_new = Y + U phi_1(X) X[:, :n],        phi_1(z) = (e^z - 1)/z,
        cayley:   Y_new = Y + U (I - X/2)^{-1} X[:, :n].
    This holds for any U, and f(U C U^T) is orthogonal for any skew C: H need not be exactly
    orthogonal to Y (the result is then Y moved by the skew map Y A Y^T + H Y^T - Y H^T), and no QR is
    needed. Shapes: Y, H [..., N, n], A [..., n, n].

    It runs in the dtype of Y. The update is added to Y once (Y + U P), so the only float32 rounding at
    Y's scale is that final one; the correction U P is lr-sized and its own rounding is 1e-7 of that.
    Measured, Adam at lr 1e-3 on 84 St(49, 7) points with random gradients: max |Y^T Y - I| after 750
    float32 steps 1.3e-6, the same as with the whole retraction in float64.
    """
    if kind not in ("geodesic", "cayley"):
        raise ValueError(f"unknown retraction {kind!r}: use 'cayley' or 'geodesic'")
    shape, n = Y.shape, Y.shape[-1]
    Y, A, H = Y.reshape(-1, *shape[-2:]), A.reshape(-1, n, n), H.reshape(-1, *shape[-2:])  # [b, N, n] ...
    e = torch.linalg.vector_norm(H, dim=(-2, -1), keepdim=True).clamp_min(torch.finfo(H.dtype).tiny ** 0.5)  # [b, 1, 1]
    U = torch.cat([Y, H / e], -1)  # [b, N, 2n]
    eI = e * torch.eye(n, dtype=Y.dtype, device=Y.device)
    C = torch.cat([torch.cat([A, -eI], -1), torch.cat([eI, torch.zeros_like(A)], -1)], -2)  # [b, 2n, 2n]
    X = C @ (U.mT @ U)
    if kind == "geodesic":
        P = _phi1_times(X, X[..., :n])
    else:
        P = torch.linalg.solve(torch.eye(2 * n, dtype=X.dtype, device=X.device) - X / 2, X[..., :n])
    return (Y + U @ P).reshape(shape)  # [..., N, n]


def orthonormality_error(Y: Tensor) -> Tensor:
    """max |Y^T Y - I| over all matrices of the batch."""
    eye = torch.eye(Y.shape[-1], dtype=Y.dtype, device=Y.device)
    return (Y.mT @ Y - eye).abs().amax()
