"""Brantner's vision transformer for MNIST patches (section 4): 16 blocks of attention + x + tanh(Ax+b)."""

from __future__ import annotations

import torch
from torch import Tensor, nn

from noneuclid.nn.attention import MultiHeadAttention


class FeedForward(nn.Module):
    """x -> x + tanh(A x + b) (eq. 15), A Glorot-uniform, b = 0."""

    def __init__(self, dim: int):
        super().__init__()
        self.linear = nn.Linear(dim, dim)
        nn.init.xavier_uniform_(self.linear.weight)
        nn.init.zeros_(self.linear.bias)

    def forward(self, x: Tensor) -> Tensor:
        return x + torch.tanh(self.linear(x))


class PatchViT(nn.Module):
    """Input [batch, tokens, dim] (16 patches of 49 pixels for MNIST); output class probabilities.

    The classifier is softmax(W x_last) (eq. 16) with W Glorot-uniform and no bias, x_last the last
    token. There is no embedding, positional encoding, class token, LayerNorm or attention skip.
    """

    def __init__(self, dim: int = 49, depth: int = 16, heads: int = 7, num_classes: int = 10,
                 stiefel: bool = False, euclidean_init: str = "glorot"):
        super().__init__()
        self.blocks = nn.Sequential(*[
            nn.Sequential(MultiHeadAttention(dim, heads, stiefel, euclidean_init), FeedForward(dim))
            for _ in range(depth)
        ])
        self.classifier = nn.Linear(dim, num_classes, bias=False)
        nn.init.xavier_uniform_(self.classifier.weight)

    def forward(self, x: Tensor) -> Tensor:
        return torch.softmax(self.classifier(self.blocks(x)[:, -1]), dim=-1)
