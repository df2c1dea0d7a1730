"""Parameterized hypercomplex (PH) layers and the PHYDI residual gate (Mancanelli et al. 2023).

A PH layer builds its weight as a sum of n Kronecker products (the paper's eq. 1):

    W = sum_{s=1..n} A_s (x) F_s,    A_s: n x n,    F_s: (out/n) x (in/n)   [x k x k for a convolution]

so W[a*(out/n) + p, b*(in/n) + q] = sum_s A[s, a, b] F[s, p, q]: block (a, b) of W is sum_s A[s,a,b] F_s.
For the convolution (PHC) the product acts on the channel axes at every one of the k x k taps. The layer
holds n^3 + out*in*k^2/n weights instead of out*in*k^2, about 1/n of them. With kron_weights=True
(the paper's WKP baseline) each product has a learnable weight, W = sum_s w_s A_s (x) F_s, w_s = 1 at
init (the paper's initial value, section 4.1, is lost from its text; docs/phydi.md, "Values taken
from the paper").

Initialisation, as the released PHNN/PHYDI code: nn.init.xavier_uniform_ on the stacked tensors
A [n, n, n] and F [n, out/n, in/n (, k, k)]. torch takes fan_in = size(1) * r and fan_out = size(0) * r
with r the product of the sizes after the second, so the bounds sqrt(6 / (fan_in + fan_out)) are
    A:  sqrt(6 / (2 n^2)) = sqrt(3) / n
    F:  sqrt(6 / (k^2 (in/n) (out/n + n)))        (k = 1 for the linear layer)
(the stack axis s counts as the "output" axis and out/n as the "input" axis of F).

Biases are plain parameters initialised as torch's nn.Linear / nn.Conv2d do, uniform in
+-1/sqrt(fan_in) with fan_in = in (linear) or in * k^2 (convolution); the released PHMLinear does the
same, the released PHConv allocates a bias but never adds it (our PHConv2d has bias=False by default).
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn
from torch.nn import functional


def check_divisible(n: int, advice: str = "", **sizes: int) -> None:
    """A ValueError naming the first size that n does not divide (PH layers split sizes into n blocks)."""
    if n < 1:
        raise ValueError(f"n must be a positive integer, got {n}")
    for name, size in sizes.items():
        if size % n:
            hint = advice or f"use a multiple of {n}, e.g. {n * math.ceil(size / n)}"
            raise ValueError(f"{name}={size} is not divisible by n={n}: {hint}")


def kronecker_sum(A: Tensor, F: Tensor, w: Tensor | None = None) -> Tensor:
    """W = sum_s w_s A_s (x) F_s in one einsum: A [n, n, n], F [n, P, Q, *taps], w [n] or None (all 1).

    Returns W [n*P, n*Q, *taps] with W[a*P + p, b*Q + q, ...] = sum_s w_s A[s, a, b] F[s, p, q, ...].
    """
    if w is not None:
        A = w[:, None, None] * A  # n^3 products: folds the WKP weights into A before the large product
    n, P, Q = F.shape[:3]
    return torch.einsum("sab,spq...->apbq...", A, F).reshape(n * P, n * Q, *F.shape[3:])


class _PHWeight(nn.Module):
    """The parameters A, F (and w) of a PH weight of shape [out, in, *taps] and its `weight` property."""

    def __init__(self, out_features: int, in_features: int, n: int, taps: tuple[int, ...], kron_weights: bool):
        super().__init__()
        check_divisible(n, out_features=out_features, in_features=in_features)
        self.n, self.out_features, self.in_features = n, out_features, in_features
        self.A = nn.Parameter(nn.init.xavier_uniform_(torch.empty(n, n, n)))
        self.F = nn.Parameter(nn.init.xavier_uniform_(torch.empty(n, out_features // n, in_features // n, *taps)))
        self.w = nn.Parameter(torch.ones(n)) if kron_weights else None

    @property
    def weight(self) -> Tensor:
        """W = sum_s (w_s) A_s (x) F_s, [out, in, *taps], rebuilt from the parameters at every call."""
        return kronecker_sum(self.A, self.F, self.w)

    def _init_bias(self, bias: bool, fan_in: int) -> None:
        if bias:
            bound = 1 / math.sqrt(fan_in)
            self.bias = nn.Parameter(torch.empty(self.out_features).uniform_(-bound, bound))
        else:
            self.register_parameter("bias", None)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, n={self.n}, "
            f"bias={self.bias is not None}, kron_weights={self.w is not None}"
        )


class PHMLinear(_PHWeight):
    """y = x W^T + b with the PH weight W [out, in]; x [..., in] -> y [..., out]."""

    def __init__(self, in_features: int, out_features: int, n: int, bias: bool = True, kron_weights: bool = False):
        super().__init__(out_features, in_features, n, (), kron_weights)
        self._init_bias(bias, in_features)

    def forward(self, x: Tensor) -> Tensor:
        return functional.linear(x, self.weight, self.bias)


class PHConv2d(_PHWeight):
    """2-D convolution with the PH weight W [out, in, k, k]; x [batch, in, H, W] -> [batch, out, H', W']."""

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: int,
        n: int,
        stride: int = 1,
        padding: int = 0,
        bias: bool = False,
        kron_weights: bool = False,
    ):
        super().__init__(out_channels, in_channels, n, (kernel_size, kernel_size), kron_weights)
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self._init_bias(bias, in_channels * kernel_size**2)

    def forward(self, x: Tensor) -> Tensor:
        return functional.conv2d(x, self.weight, self.bias, self.stride, self.padding)

    def extra_repr(self) -> str:
        return f"{super().extra_repr()}, kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class PHMEmbedding(_PHWeight):
    """Token embedding whose table is a PH weight W [num_embeddings, dim]; ids [...] -> [..., dim].

    A PH layer vocab -> dim applied to one-hot tokens returns columns of its weight; looking rows up
    in the (transposed, equally PH-structured) table gives the same map without the one-hot product,
    as the released PHMEmbedding does.
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, n: int):
        super().__init__(num_embeddings, embedding_dim, n, (), kron_weights=False)
        self.register_parameter("bias", None)

    def forward(self, ids: Tensor) -> Tensor:
        return functional.embedding(ids, self.weight)

    def extra_repr(self) -> str:
        return f"num_embeddings={self.out_features}, embedding_dim={self.in_features}, n={self.n}"


class ResidualGate(nn.Module):
    """The PHYDI (ReZero) gate, branch -> alpha * branch with one learnable scalar alpha = 0 at init,
    so that x + gate(f(x)) is the identity map at initialisation (the paper's eq. 2)."""

    def __init__(self):
        super().__init__()
        self.alpha = nn.Parameter(torch.zeros(()))

    def forward(self, branch: Tensor) -> Tensor:
        return self.alpha * branch
