"""Poincare embeddings (Nickel & Kiela 2017): one point of the ball per node of a hierarchy."""

from __future__ import annotations

import math

import numba
import numpy as np
import torch
from torch import Tensor, nn

from noneuclid.geometry import poincare as pb
from noneuclid.nn.parameters import PoincareParameter
from noneuclid.optim.rsgd import retract_rows


class PoincareEmbedding(nn.Module):
    """Points theta_i of the Poincare ball of curvature -c, initialised uniformly in [-init, init]^dim
    (Nickel & Kiela: init 1e-4 in the reference code); forward gives distances d(theta_u, theta_v).

    sparse: `loss_terms` gives the weight a sparse gradient that holds the batch's rows only (as the
    reference's nn.Embedding(sparse=True)), computed in one compiled pass over the batch (CPU);
    RiemannianSGD then updates those rows alone. False: the dense gradient of the whole table, by
    autograd through `forward` (the reference that the sparse update is tested against; any device)."""

    def __init__(self, num_nodes: int, dim: int, c: float = 1.0, init: float = 1e-4, sparse: bool = True):
        super().__init__()
        self.c, self.sparse = c, sparse
        self.weight = PoincareParameter(torch.empty(num_nodes, dim).uniform_(-init, init), c)

    def forward(self, u: Tensor, v: Tensor) -> Tensor:
        """u [batch] and v [batch, m] node ids -> d(theta_u, theta_v) [batch, m]."""
        return pb.dist(self.weight[u].unsqueeze(-2), self.weight[v], self.c)

    def loss_terms(self, idx: Tensor, keep: Tensor) -> Tensor:
        """Nickel & Kiela's eq. (6) for each edge (u, v): with idx [batch, 1 + k] = (u, v, drawn nodes),
        d_j = d(theta_u, theta_{idx_j}) and keep [batch, k] the candidates (v, drawn nodes) in the sum,
            L(u, v) = d_1 + log sum_{j kept} exp(-d_j),   [batch]."""
        if not self.sparse:
            d = self(idx[:, 0], idx[:, 1:])
            return torch.logsumexp((-d).masked_fill(~keep, float("-inf")), 1) + d[:, 0]
        if self.weight.device.type != "cpu":
            raise ValueError(
                "model.sparse=true runs on the CPU (a compiled loop); set model.sparse=false on "
                f"{self.weight.device.type}"
            )
        return _SparseNegativeSampling.apply(self.weight, idx, keep, self.c)

    @torch.no_grad()
    def sgd_steps(self, idx: Tensor, keep: Tensor, batch_size: int, lr: float) -> Tensor:
        """Riemannian SGD with the retraction (Nickel & Kiela's eq. 5) over consecutive batches of
        `batch_size` rows of idx [E, 1 + k] / keep [E, k], one step per batch on the mean of its loss
        terms, in one compiled loop: what `loss_terms`, backward and RiemannianSGD(retraction=True) do
        batch by batch, without a Python step per batch. Returns the loss terms [E], each as the model
        was at its batch's step. CPU, float64 or float32."""
        if self.weight.device.type != "cpu":
            raise ValueError(f"sgd_steps runs on the CPU (a compiled loop), not on {self.weight.device.type}")
        terms = torch.empty(idx.shape[0], dtype=self.weight.dtype)
        max_norm = (1 - pb.BALL_EPS) / self.c**0.5  # pb.project's
        _sgd_steps(
            self.weight.detach().numpy(), idx.numpy(), keep.numpy(), batch_size, lr, self.c, max_norm, terms.numpy()
        )
        return terms

    @torch.no_grad()
    def ranking_columns(self) -> Tensor:
        """[dim + 1, nodes]: (a_w, a_w w) per node w, a_w = 1 / (1 - c||w||^2), the node side of ranking_key."""
        a = 1 / pb.gap(self.weight, self.c).clamp_min(pb.MIN_NORM)  # [nodes, 1]
        return torch.cat([a, a * self.weight], 1).T

    @torch.no_grad()
    def ranking_key(self, u: Tensor, columns: Tensor | None = None) -> Tensor:
        """A key [len(u), nodes] with the order of d(theta_u, theta_w) over all nodes w for each row.
        d = arcosh(1 + 2c ||u - w||^2 / ((1 - c||u||^2)(1 - c||w||^2))) is increasing in
        ||u - w||^2 a_w with a_w = 1 / (1 - c||w||^2), which is, up to a constant,
            (||u||^2 + 1/c) a_w - 2 <u, a_w w>:
        one matrix product [rows, dim + 1] x [dim + 1, nodes] (columns: ranking_columns(), computed
        once for many calls), no [rows, nodes, dim] tensor."""
        x = self.weight[u]
        rows = torch.cat([x.pow(2).sum(-1, keepdim=True) + 1 / self.c, -2 * x], 1)  # [len(u), dim + 1]
        return rows @ (self.ranking_columns() if columns is None else columns)


class _SparseNegativeSampling(torch.autograd.Function):
    """The loss terms of `PoincareEmbedding.loss_terms` [B] from the rows idx [B, 1 + k] of the weight,
    and their gradient as a sparse tensor with one entry per occurrence of a row (`_terms_and_grads`)."""

    @staticmethod
    def forward(ctx, weight: Tensor, idx: Tensor, keep: Tensor, c: float) -> Tensor:
        terms = torch.empty(idx.shape[0], dtype=weight.dtype)
        grads = torch.empty(*idx.shape, weight.shape[1], dtype=weight.dtype)  # d terms_b / d rows, [B, 1 + k, dim]
        _terms_and_grads(weight.detach().numpy(), idx.numpy(), keep.numpy(), c, terms.numpy(), grads.numpy())
        ctx.save_for_backward(idx, grads)
        ctx.shape = weight.shape
        return terms

    @staticmethod
    def backward(ctx, grad: Tensor):
        idx, grads = ctx.saved_tensors
        values = grads.mul_(grad[:, None, None]).view(-1, grads.shape[-1])  # grads is not used again
        return torch.sparse_coo_tensor(idx.flatten()[None], values, ctx.shape, check_invariants=False), None, None, None


@numba.njit(cache=True, fastmath=True)
def _terms_and_grads(weight, idx, keep, c, terms, grads):  # pragma: no cover (compiled)
    """For each edge b, with x = weight[idx[b, 0]], y_j = weight[idx[b, j]] (j >= 1), g = 1 - c||.||^2,
    z_j = c ||x - y_j||^2 / (g_x g_y_j) and d_j = 2 / sqrt(c) asinh(sqrt(z_j)) (Nickel & Kiela's eq. 1):
    terms[b] = d_1 + log sum_{j kept} exp(-d_j), and grads[b] its gradient w.r.t. each row, in closed form
        dd/dx = 2 sqrt(c) / (g_x g_y sqrt(z (1 + z))) [(x - y) + c ||x - y||^2 x / g_x]   (y symmetric),
    dterms/dd_j = [j = 1] - softmax_j(-d) over the kept j. exp(-d_j) = (sqrt(z_j) + sqrt(1 + z_j))^(-2 / sqrt(c))
    needs no asinh or exp (float64 holds it down to d ~ 700, far beyond the ball's max_norm);
    one pass, no [B, k, dim] temporaries."""
    sc = math.sqrt(c)
    n_edges, k = idx.shape
    dim = weight.shape[1]
    s, gy, rz, rz1, e = np.empty(k), np.empty(k), np.empty(k), np.empty(k), np.empty(k)  # per candidate j
    for b in range(n_edges):
        u = idx[b, 0]
        gx = 1.0 - c * _dot(weight, u, u)
        total = 0.0
        for j in range(1, k):
            r = idx[b, j]
            s[j] = _sqdist(weight, u, r)
            gy[j] = 1.0 - c * _dot(weight, r, r)
            z = c * s[j] / (gx * gy[j])
            rz[j], rz1[j] = math.sqrt(z), math.sqrt(1.0 + z)
            q = 1.0 / (rz[j] + rz1[j])
            e[j] = (q * q if c == 1.0 else q ** (2.0 / sc)) if keep[b, j - 1] else 0.0
            total += e[j]
        terms[b] = 2.0 / sc * math.asinh(rz[1]) + math.log(total)
        grads[b, 0, :] = 0.0
        for j in range(1, k):
            r = idx[b, j]
            coef = ((1.0 if j == 1 else 0.0) - e[j] / total) * 2.0 * sc / (gx * gy[j] * max(rz[j] * rz1[j], 1e-15))
            ay, ax = coef * c * s[j] / gy[j], coef * c * s[j] / gx
            for i in range(dim):
                diff = weight[u, i] - weight[r, i]
                grads[b, j, i] = ay * weight[r, i] - coef * diff
                grads[b, 0, i] += coef * diff + ax * weight[u, i]


@numba.njit(cache=True, nogil=True)
def _sgd_steps(weight, idx, keep, batch_size, lr, c, max_norm, terms):  # pragma: no cover (compiled)
    """For each batch b of rows [start, stop) of idx: terms and gradients of its edges at the current
    weight (`_terms_and_grads`), then weight[r] <- project(weight[r] - lr lambda_r^-2 * mean gradient),
    the rows of the batch only (`retract_rows`)."""
    dim = weight.shape[1]
    grads = np.empty((batch_size, idx.shape[1], dim), dtype=weight.dtype)
    for start in range(0, idx.shape[0], batch_size):
        stop = min(start + batch_size, idx.shape[0])
        g = grads[: stop - start]
        _terms_and_grads(weight, idx[start:stop], keep[start:stop], c, terms[start:stop], g)
        # the step on the batch mean: 1 / batch folded into lr, no copy of the gradients
        retract_rows(weight, idx[start:stop].ravel(), g.reshape(-1, dim), lr / (stop - start), c, max_norm)


@numba.njit(inline="always")
def _dot(weight, a, b):  # pragma: no cover (compiled)
    """<weight[a], weight[b]>"""
    total = 0.0
    for i in range(weight.shape[1]):
        total += weight[a, i] * weight[b, i]
    return total


@numba.njit(inline="always")
def _sqdist(weight, a, b):  # pragma: no cover (compiled)
    """||weight[a] - weight[b]||^2, without the cancellation of ||a||^2 - 2<a, b> + ||b||^2"""
    total = 0.0
    for i in range(weight.shape[1]):
        total += (weight[a, i] - weight[b, i]) ** 2
    return total
