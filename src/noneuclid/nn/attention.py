"""Multi-head attention of Brantner's vision transformer, with optional Stiefel projections."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from noneuclid.nn.parameters import StiefelParameter


class MultiHeadAttention(nn.Module):
    """Brantner eq. (14), all heads at once, with no skip connection and no normalisation.

    Head h has projections P_Q, P_K, P_V of shape N x n (n = N / heads), stored together as one
    weight of shape [3, heads, N, n]; with stiefel=True that weight is a StiefelParameter, i.e.
    3 * heads points of St(N, n). With X the N x T input (tokens as columns),
        Q = P_Q^T X, K = P_K^T X, V = P_V^T X          (n x T each)
        head(X) = V softmax(Q^T K / sqrt(N))            (softmax over each column)
    and the heads are stacked into an N x T output. Column j of the output is
    sum_i v_i softmax_i(q_i . k_j / sqrt(N)), i.e. ordinary attention whose query is k_j.
    Tokens are stored row-wise here: x is [batch, T, N].
    """

    def __init__(self, dim: int, heads: int, stiefel: bool, euclidean_init: str = "glorot"):
        super().__init__()
        if dim % heads:
            raise ValueError(
                f"model.heads={heads} must divide the token dimension {dim}: "
                f"choose one of {[h for h in range(1, dim + 1) if dim % h == 0]}"
            )
        self.dim, self.heads, self.head_dim = dim, heads, dim // heads
        shape = (3, heads, dim, self.head_dim)
        if stiefel:
            self.weight = StiefelParameter.random(*shape[:2], N=dim, n=self.head_dim)
        elif euclidean_init == "glorot":
            bound = math.sqrt(6.0 / (dim + self.head_dim))
            self.weight = nn.Parameter(torch.empty(shape).uniform_(-bound, bound))
        elif euclidean_init == "stiefel":
            self.weight = nn.Parameter(StiefelParameter.random(*shape[:2], N=dim, n=self.head_dim).data)
        else:
            raise ValueError(f"model.euclidean_init must be 'glorot' or 'stiefel', got {euclidean_init!r}")

    def forward(self, x: Tensor) -> Tensor:
        b, t, _ = x.shape
        # one GEMM for all projections and heads: [b, t, N] @ [N, 3*heads*n] -> [b, t, 3*heads*n]
        qkv = x @ self.weight.permute(2, 0, 1, 3).reshape(self.dim, -1)
        q, k, v = qkv.view(b, t, 3, self.heads, self.head_dim).permute(2, 0, 3, 1, 4)  # 3 x [b, heads, t, n]
        # the softmax over each column of Q^T K makes k_j the query of output token j
        out = F.scaled_dot_product_attention(query=k, key=q, value=v, scale=1.0 / math.sqrt(self.dim))
        return out.transpose(1, 2).reshape(b, t, self.dim)  # heads stacked along the feature axis
