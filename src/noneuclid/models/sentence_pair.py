"""The sentence-pair classifier of Ganea et al. (2018), section 4, in the six variants of Table 1.

    two encoders (RNN or GRU), one per sentence, sharing the word embeddings
    s1, s2 = last hidden state of each sentence at its true length
    combination ("FFNN"): o = W1 s1 + W2 s2 + b + d(s1, s2)^2 b_d, then relu (Euclidean) or identity
        hyperbolic: o = (W1 (x) s1) (+) (W2 (x) s2) (+) b (+) (d_c(s1, s2)^2 (x) b_d)
    2-class MLR: Euclidean <x - p_k, a_k> or the hyperbolic MLR

geometry = "euclidean": everything Euclidean ("fully Euclidean RNN/GRU");
           "hyperbolic_eucl_mlr": hyperbolic embeddings, encoders and FFNN, Euclidean MLR on log_0(o);
           "hyperbolic": fully hyperbolic.
Input: token ids [batch, time] (0 = padding) and lengths [batch] for each sentence; output logits [batch, 2].
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from noneuclid.geometry import poincare as pb
from noneuclid.nn.hyperbolic import HyperbolicMLR, HypRecurrent, PoincareParameter

GEOMETRIES = ("euclidean", "hyperbolic_eucl_mlr", "hyperbolic")


def _embedding_init(vocab: int, dim: int) -> Tensor:
    """U(-m, m) with m = (3 * 0.001^2 / (2 * dim))^(1/3), as the original code."""
    m = (3 * 0.001 ** 2 / (2 * dim)) ** (1 / 3)
    return torch.empty(vocab, dim).uniform_(-m, m)


class EuclideanMLR(nn.Module):
    """logit_k = <x - p_k, a_k> (the paper's Euclidean MLR)."""

    def __init__(self, dim: int, classes: int):
        super().__init__()
        bound = math.sqrt(6.0 / (dim + classes))
        self.p = nn.Parameter(torch.zeros(classes, dim))
        self.a = nn.Parameter(torch.empty(classes, dim).uniform_(-bound, bound))

    def forward(self, x: Tensor) -> Tensor:
        return ((x.unsqueeze(-2) - self.p) * self.a).sum(-1)


class SentencePairModel(nn.Module):
    def __init__(self, vocab_size: int, cell: str = "gru", geometry: str = "hyperbolic", dim: int = 5,
                 c: float = 1.0, classes: int = 2, compile: bool = False):
        super().__init__()
        if geometry not in GEOMETRIES:
            raise ValueError(f"model.geometry must be one of {GEOMETRIES}, got {geometry!r}")
        if cell not in ("rnn", "gru"):
            raise ValueError(f"model.cell must be 'rnn' or 'gru', got {cell!r}")
        self.geometry, self.c, self.hyperbolic = geometry, c, geometry != "euclidean"
        emb = _embedding_init(vocab_size, dim)
        self.embedding = PoincareParameter(emb, c) if self.hyperbolic else nn.Parameter(emb)
        if self.hyperbolic:
            self.encoders = HypRecurrent(cell, dim, dim, c, copies=2, compile=compile)
            self.W = nn.Parameter(torch.stack([_glorot(dim) for _ in range(2)]))
            self.b = PoincareParameter(torch.zeros(dim), c)
            self.b_d = PoincareParameter(torch.zeros(dim), c)
        else:
            rnn = {"rnn": lambda: nn.RNN(dim, dim, nonlinearity="tanh", batch_first=True),
                   "gru": lambda: nn.GRU(dim, dim, batch_first=True)}[cell]
            self.encoders = nn.ModuleList([rnn() for _ in range(2)])
            self.W = nn.Parameter(torch.stack([_glorot(dim) for _ in range(2)]))
            self.b = nn.Parameter(torch.zeros(dim))
            self.b_d = nn.Parameter(torch.zeros(dim))
        self.mlr = HyperbolicMLR(dim, classes, c) if geometry == "hyperbolic" else EuclideanMLR(dim, classes)

    def encode(self, tokens1: Tensor, lengths1: Tensor, tokens2: Tensor, lengths2: Tensor) -> tuple[Tensor, Tensor]:
        """The hidden state of each sentence at its true length, ([batch, dim], [batch, dim])."""
        if self.hyperbolic:  # both encoders in one batched recurrence over the longer padding
            steps = max(tokens1.shape[1], tokens2.shape[1])
            tokens = torch.stack([F.pad(t, (0, steps - t.shape[1])) for t in (tokens1, tokens2)])
            return self.encoders(self.embedding[tokens], torch.stack([lengths1, lengths2])).unbind(0)
        rows = torch.arange(len(tokens1), device=tokens1.device)
        return tuple(enc(self.embedding[t])[0][rows, n - 1]
                     for enc, t, n in zip(self.encoders, (tokens1, tokens2), (lengths1, lengths2)))

    def forward(self, tokens1: Tensor, lengths1: Tensor, tokens2: Tensor, lengths2: Tensor) -> Tensor:
        s1, s2 = self.encode(tokens1, lengths1, tokens2, lengths2)
        if self.hyperbolic:
            c = self.c
            d2 = pb.dist(s1, s2, c).pow(2).unsqueeze(-1)
            o = pb.mobius_add(pb.mobius_matvec(self.W[0], s1, c), pb.mobius_matvec(self.W[1], s2, c), c)
            o = pb.mobius_add(pb.mobius_add(o, self.b, c), pb.mobius_scalar_mul(d2, self.b_d.expand_as(o), c), c)
            o = pb.project(o, c)
            return self.mlr(o) if self.geometry == "hyperbolic" else self.mlr(pb.logmap0(o, c))
        d2 = (s1 - s2).pow(2).sum(-1, keepdim=True)
        o = torch.relu(s1 @ self.W[0].T + s2 @ self.W[1].T + self.b + d2 * self.b_d)
        return self.mlr(o)


def _glorot(dim: int) -> Tensor:
    bound = math.sqrt(6.0 / (2 * dim))
    return torch.empty(dim, dim).uniform_(-bound, bound)
