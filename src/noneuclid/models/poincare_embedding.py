"""Poincare embeddings (Nickel & Kiela 2017): one point of the ball per node of a hierarchy."""

from __future__ import annotations

import torch
from torch import Tensor, nn

from noneuclid.geometry import poincare as pb
from noneuclid.nn.hyperbolic import PoincareParameter


class PoincareEmbedding(nn.Module):
    """Points theta_i of the Poincare ball of curvature -c, initialised uniformly in [-init, init]^dim
    (Nickel & Kiela: init 1e-4 in the reference code); forward gives distances d(theta_u, theta_v)."""

    def __init__(self, num_nodes: int, dim: int, c: float = 1.0, init: float = 1e-4):
        super().__init__()
        self.c = c
        self.weight = PoincareParameter(torch.empty(num_nodes, dim).uniform_(-init, init), c)

    def forward(self, u: Tensor, v: Tensor) -> Tensor:
        """u [batch] and v [batch, m] node ids -> d(theta_u, theta_v) [batch, m]."""
        return pb.dist(self.weight[u].unsqueeze(-2), self.weight[v], self.c)

    @torch.no_grad()
    def ranking_key(self, u: Tensor) -> Tensor:
        """A key [len(u), nodes] with the order of d(theta_u, theta_w) over all nodes w for each row:
        d = arcosh(1 + 2 ||u - w||^2 / ((1 - c||u||^2)(1 - c||w||^2))) is increasing in
        ||u - w||^2 / (1 - c||w||^2), computed with one matrix product (no [rows, nodes, dim] tensor)."""
        w = self.weight
        x = w[u]
        sq = w.pow(2).sum(-1)  # [nodes]
        diff2 = (x.pow(2).sum(-1, keepdim=True) + sq - 2 * x @ w.T).clamp_min(0)  # [rows, nodes]
        return diff2 / (1 - self.c * sq).clamp_min(pb.MIN_NORM)
