"""PHTransformer causal language model for WikiText2 (PHYDI paper, section 3.2 and Fig. 4).

An encoder-only stack with a causal mask. Token ids [batch, seq] -> logits [batch, seq, vocab]:

    x_0 = Drop(d_model * E[ids] + P),   E the PH embedding table, P sinusoidal positions
    x_l = layer_l(x_{l-1}),             logits = head(N(x_L)),   head a PHMLinear d_model -> vocab

Every learned map is a PH layer with the same n: the token embedding, the attention projections,
the FFN (PHM -> ReLU -> Drop -> PHM) and the output head. Layers by `norm`:
    post  (eq. 4):  x' = LN(x + Drop(Att(x))),      y = LN(x' + Drop(FFN(x')))
    pre:            x' = x + Drop(Att(LN x)),       y = x' + Drop(FFN(LN x'))
    phydi (eq. 5):  x' = x + a1 Drop(Att(x)),       y = x' + a2 Drop(FFN(x')),   a1 = a2 = 0 at init
N is a final LayerNorm for `pre` only (so the head sees normalised features as in the other two
variants; the released code has none) and the identity otherwise. A `phydi` network is therefore
the map ids -> head(x_0) at init.

Choices following the released code: the embedding is scaled by d_model (it multiplies by
sqrt(d_model) twice); the q, k, v projections are one PH layer d_model -> 3 d_model; attention
probabilities get dropout too; the biases of the attention projections and of the head start at 0.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn
from torch.nn import functional

from noneuclid.nn.hypercomplex import (
    PHMEmbedding,
    PHMLinear,
    ResidualGate,
    check_divisible,
)

NORMS = ("post", "pre", "phydi")


def sinusoids(length: int, dim: int, device=None, dtype=None) -> Tensor:
    """P[t, 2i] = sin(t / 10000^(2i/dim)), P[t, 2i+1] = cos(t / 10000^(2i/dim)); [length, dim]."""
    t = torch.arange(length, device=device, dtype=torch.float64)[:, None]
    freq = torch.exp(-math.log(10000.0) * torch.arange(0, dim, 2, device=device, dtype=torch.float64) / dim)
    return torch.stack([torch.sin(t * freq), torch.cos(t * freq)], dim=-1).reshape(length, dim).to(dtype)


class PHMSelfAttention(nn.Module):
    """Causal multi-head self-attention with PH projections, [batch, seq, d] -> [batch, seq, d]:
    [q | k | v] = PHM(x), every head at once through one scaled_dot_product_attention call (token t
    attends to tokens <= t), then the output PHM."""

    def __init__(self, d_model: int, heads: int, n: int, dropout: float):
        super().__init__()
        if d_model % heads:
            raise ValueError(f"d_model={d_model} is not divisible by heads={heads}: choose heads dividing d_model")
        self.heads, self.dropout = heads, dropout
        self.qkv = PHMLinear(d_model, 3 * d_model, n)
        self.out = PHMLinear(d_model, d_model, n)
        nn.init.zeros_(self.qkv.bias)
        nn.init.zeros_(self.out.bias)

    def forward(self, x: Tensor) -> Tensor:
        batch, seq, d = x.shape
        q, k, v = self.qkv(x).view(batch, seq, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        y = functional.scaled_dot_product_attention(  # q, k, v, y: [batch, heads, seq, d / heads]
            q, k, v, dropout_p=self.dropout if self.training else 0.0, is_causal=True
        )
        return self.out(y.transpose(1, 2).reshape(batch, seq, d))


class Residual(nn.Module):
    """x -> post(x + gate(Drop(f(pre(x))))): pre = LN for `pre`, post = LN for `post`, gate = alpha for
    `phydi` (its own ResidualGate), each the identity otherwise."""

    def __init__(self, f: nn.Module, d_model: int, norm: str, dropout: float):
        super().__init__()
        self.f, self.drop = f, nn.Dropout(dropout)
        self.pre = nn.LayerNorm(d_model) if norm == "pre" else nn.Identity()
        self.post = nn.LayerNorm(d_model) if norm == "post" else nn.Identity()
        self.gate = ResidualGate() if norm == "phydi" else nn.Identity()

    def forward(self, x: Tensor) -> Tensor:
        return self.post(x + self.gate(self.drop(self.f(self.pre(x)))))


class PHTransformerLayer(nn.Module):
    """Attention sub-layer then feed-forward sub-layer, each a Residual; [batch, seq, d] -> same."""

    def __init__(self, d_model: int, d_ff: int, heads: int, n: int, norm: str, dropout: float):
        super().__init__()
        self.attention = Residual(PHMSelfAttention(d_model, heads, n, dropout), d_model, norm, dropout)
        ffn = nn.Sequential(PHMLinear(d_model, d_ff, n), nn.ReLU(), nn.Dropout(dropout), PHMLinear(d_ff, d_model, n))
        self.feed_forward = Residual(ffn, d_model, norm, dropout)

    def forward(self, x: Tensor) -> Tensor:
        return self.feed_forward(self.attention(x))


class PHTransformer(nn.Module):
    """Causal PH language model: token ids [batch, seq] -> logits [batch, seq, vocab_size]."""

    def __init__(
        self,
        vocab_size: int,
        depth: int,
        n: int,
        norm: str,
        d_model: int = 128,
        d_ff: int = 256,
        heads: int = 8,
        dropout: float = 0.1,
    ):
        super().__init__()
        if norm not in NORMS:
            raise ValueError(f"unknown norm {norm!r}: use one of {sorted(NORMS)}")
        check_divisible(
            n, f"pad the vocabulary to a multiple of n ({n * math.ceil(vocab_size / n)} tokens)", vocab_size=vocab_size
        )
        check_divisible(n, d_model=d_model, d_ff=d_ff)
        self.d_model = d_model
        self.embedding = PHMEmbedding(vocab_size, d_model, n)
        self.drop = nn.Dropout(dropout)
        self.layers = nn.Sequential(*[PHTransformerLayer(d_model, d_ff, heads, n, norm, dropout) for _ in range(depth)])
        self.final_norm = nn.LayerNorm(d_model) if norm == "pre" else nn.Identity()
        self.head = PHMLinear(d_model, vocab_size, n)
        nn.init.zeros_(self.head.bias)

    def embed(self, ids: Tensor) -> Tensor:
        """x_0 = Drop(d_model * E[ids] + P): [batch, seq] -> [batch, seq, d_model]."""
        x = self.embedding(ids) * self.d_model
        return self.drop(x + sinusoids(ids.shape[1], self.d_model, x.device, x.dtype))

    def forward(self, ids: Tensor) -> Tensor:
        if ids.dim() != 2:
            raise ValueError(f"expected token ids of shape [batch, seq], got {tuple(ids.shape)}")
        return self.head(self.final_norm(self.layers(self.embed(ids))))
