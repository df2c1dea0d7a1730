"""Where float32 drift enters one Stiefel update: our retraction against the update as the paper writes
it, to attribute the drift of the authors' networks to an operation.

The paper (and GeometricMachineLearning.jl) splits the update of eq. (13) in two: the retraction on
g^hor at E, Z = exp(W) E with W = [[A, -B^T], [B, 0]] (eq. 19-21, at the scale of the identity), then
apply_section, Y_new = lambda(Y) Z = Y Z[:n] + Q Z[n:], with the complement Q of Algorithm 2:
    Q = qr((I - Y Y^T) R).Q,  R ~ N(0, 1)^{N x (N - n)},  in Y's dtype.
Ours (stiefel.retract) adds the lr-sized update to Y once, Y_new = Y + U P, and is orthogonal for any
complement H = Q B. For each way of forming the update and each complement (Algorithm 2's, or our
householder one, orthogonal to Y to the last bit), one float32 step from P points Y of Algorithm 3
with A = skew(lr X), B = lr X', X, X' ~ N(0, 1) (Adam's steps: entries of W about lr whatever the
gradient's scale) gives the per-step change of the Gram matrix, in float64:
    change_j = max_ab |(Y_new^T Y_new - Y^T Y)_ab|,
whose median and maximum over P x draws are the float32 error one step adds (drift_one_step.csv).
"""

from __future__ import annotations

import pandas as pd
import torch

from noneuclid.geometry import stiefel

UPDATES = ("ours: Y + U P", "paper: lambda(Y) exp(W) E")
COMPLEMENTS = ("householder (ours)", "Algorithm 2, float32 QR")


def algorithm2_complement(Y: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """Q = qr((I - Y Y^T) R).Q [..., N, N - n] for a Gaussian R, in Y's dtype (Algorithm 2)."""
    N, n = Y.shape[-2:]
    R = torch.randn(*Y.shape[:-1], N - n, generator=generator).to(Y.dtype)
    return torch.linalg.qr(R - Y @ (Y.mT @ R)).Q


def paper_update(Y: torch.Tensor, Q: torch.Tensor, A: torch.Tensor, B: torch.Tensor, kind: str) -> torch.Tensor:
    """lambda(Y) exp(W) E = Y Z[:n] + Q Z[n:] with Z = exp(W) E formed at E (module doc): [..., N, n]."""
    N, n = Y.shape[-2:]
    E = torch.eye(N, n, dtype=Y.dtype).expand_as(Y)
    Z = stiefel.retract(E, A, torch.cat([torch.zeros_like(A), B], -2), kind)  # [..., N, n]
    return Y @ Z[..., :n, :] + Q @ Z[..., n:, :]


def gram_change(Y: torch.Tensor, Y_new: torch.Tensor) -> torch.Tensor:
    """max_ab |(Y_new^T Y_new - Y^T Y)_ab| per matrix, in float64: [...]."""
    Y, Y_new = Y.double(), Y_new.double()
    return (Y_new.mT @ Y_new - Y.mT @ Y).abs().amax((-2, -1))


def one_step(P: int, draws: int, lr: float, N: int, n: int, kind: str = "geodesic", seed: int = 0) -> pd.DataFrame:
    """Per update and complement: the median, 99th percentile and maximum of change_j over P x draws."""
    g = torch.Generator().manual_seed(seed)
    Y = stiefel.random_point(draws, P, N=N, n=n, dtype=torch.float32, generator=g)  # [draws, P, N, n]
    X = lr * torch.randn(draws, P, n, n, generator=g)
    A, B = X - X.mT, lr * torch.randn(draws, P, N - n, n, generator=g)
    section = stiefel.Section(Y)
    complements = {COMPLEMENTS[0]: section.Q, COMPLEMENTS[1]: algorithm2_complement(Y, g)}
    rows = []
    for complement, Q in complements.items():
        updates = {UPDATES[0]: stiefel.retract(Y, A, Q @ B, kind), UPDATES[1]: paper_update(Y, Q, A, B, kind)}
        for update, Y_new in updates.items():
            change = gram_change(Y, Y_new).flatten()
            rows.append(
                {
                    "update": update,
                    "complement": complement,
                    "retraction": kind,
                    "lr": lr,
                    "samples": len(change),
                    "median_change": float(change.quantile(0.5)),
                    "q99_change": float(change.quantile(0.99)),
                    "max_change": float(change.max()),
                }
            )
    return pd.DataFrame(rows)
