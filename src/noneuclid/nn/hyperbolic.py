"""Hyperbolic layers of Ganea, Becigneul, Hofmann (2018) on the Poincare ball of curvature -c.

Inputs and hidden states are points of the ball, [..., dim]. Weight matrices are Euclidean (they act
through the Mobius matrix-vector product); biases and MLR offsets are points of the ball
(PoincareParameter), trained with RiemannianSGD.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from noneuclid.geometry import poincare as pb


class PoincareParameter(nn.Parameter):
    """A weight whose rows ([..., dim]) are points of the Poincare ball of curvature -c."""

    def __new__(cls, data: Tensor, c: float = 1.0, requires_grad: bool = True):
        if not c > 0:
            raise ValueError(f"the curvature parameter c must be > 0, got {c}")
        self = super().__new__(cls, data, requires_grad)
        self.c = float(c)
        return self

    def __deepcopy__(self, memo):
        result = type(self)(self.data.clone(memory_format=torch.preserve_format), self.c, self.requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, proto):
        return type(self), (self.data, self.c, self.requires_grad)

    def __repr__(self):
        return f"PoincareParameter(c={self.c}, shape={tuple(self.shape)})"


NONLINEARITIES = {"id": None, "tanh": torch.tanh, "relu": torch.relu}  # phi of phi^(x); None = identity


def _nonlinearity(name: str):
    if name not in NONLINEARITIES:
        raise ValueError(f"unknown nonlinearity {name!r}: use one of {sorted(NONLINEARITIES)}")
    return NONLINEARITIES[name]


def _glorot(out_features: int, in_features: int) -> Tensor:
    bound = math.sqrt(6.0 / (in_features + out_features))
    return torch.empty(out_features, in_features).uniform_(-bound, bound)


class MobiusLinear(nn.Module):
    """y = (M (x)_c x) (+)_c b, the hyperbolic linear layer with a bias b on the ball (b = 0 at init)."""

    def __init__(self, in_features: int, out_features: int, c: float = 1.0, bias: bool = True):
        super().__init__()
        self.c = c
        self.weight = nn.Parameter(_glorot(out_features, in_features))
        self.bias = PoincareParameter(torch.zeros(out_features), c) if bias else None

    def forward(self, x: Tensor) -> Tensor:
        y = pb.mobius_matvec(self.weight, x, self.c)
        if self.bias is not None:
            y = pb.project(pb.mobius_add(y, self.bias, self.c), self.c)
        return y


class _Affine(nn.Module):
    """(W (x) h) (+) (U (x) x) (+) b for `gates` stacked gates at once: one matmul per input.

    Returns the Euclidean products W h and U x ([..., gates, hidden]) so that a gate can change W
    (the GRU's W diag(r)) before the Mobius step, and `combine` for the Mobius sum.
    """

    def __init__(self, input_size: int, hidden_size: int, gates: int, c: float):
        super().__init__()
        self.c, self.gates, self.hidden = c, gates, hidden_size
        self.W = nn.Parameter(torch.stack([_glorot(hidden_size, hidden_size) for _ in range(gates)]))
        self.U = nn.Parameter(torch.stack([_glorot(hidden_size, input_size) for _ in range(gates)]))
        self.b = PoincareParameter(torch.zeros(gates, hidden_size), c)

    def input_part(self, x: Tensor) -> Tensor:
        """U_g (x) x for every gate g: [..., input] -> [..., gates, hidden]."""
        ux = torch.einsum("ghi,...i->...gh", self.U, x)
        return pb.mobius_matvec_result(ux, x.unsqueeze(-2), self.c)

    def combine(self, wh: Tensor, h: Tensor, u: Tensor, gates: slice) -> Tensor:
        """(W h as a Mobius product with h) (+) u (+) b over the selected gates."""
        c = self.c
        left = pb.mobius_matvec_result(wh, h.unsqueeze(-2), c)
        return pb.project(pb.mobius_add(pb.mobius_add(left, u[..., gates, :], c), self.b[gates], c), c)


class HypRNNCell(nn.Module):
    """h' = phi^(x)((W (x) h) (+) (U (x) x) (+) b); phi = identity in the paper's runs."""

    def __init__(self, input_size: int, hidden_size: int, c: float = 1.0, nonlinearity: str = "id"):
        super().__init__()
        self.affine = _Affine(input_size, hidden_size, 1, c)
        self.c, self.act = c, _nonlinearity(nonlinearity)

    def forward(self, u: Tensor, h: Tensor) -> Tensor:
        """u: U (x) x precomputed for this step ([batch, 1, hidden]); h: [batch, hidden]."""
        wh = torch.einsum("ghk,bk->bgh", self.affine.W, h)
        out = self.affine.combine(wh, h, u, slice(0, 1))[:, 0]
        return out if self.act is None else pb.project(pb.mobius_pointwise(self.act, out, self.c), self.c)


class HypGRUCell(nn.Module):
    """The hyperbolic GRU of the paper:
        r = sigmoid(log_0((W_r (x) h) (+) (U_r (x) x) (+) b_r)),  z likewise with W_z, U_z, b_z
        h~ = phi^(x)(([W diag(r)] (x) h) (+) (U (x) x) (+) b)
        h' = h (+) (diag(z) (x) ((-h) (+) h~))
    """

    def __init__(self, input_size: int, hidden_size: int, c: float = 1.0, nonlinearity: str = "id"):
        super().__init__()
        self.affine = _Affine(input_size, hidden_size, 3, c)  # gates: r, z, candidate
        self.c, self.act = c, _nonlinearity(nonlinearity)

    def forward(self, u: Tensor, h: Tensor) -> Tensor:
        """u: U_g (x) x precomputed for this step ([batch, 3, hidden]); h: [batch, hidden]."""
        c, W = self.c, self.affine.W
        wh = torch.einsum("ghk,bk->bgh", W[:2], h)  # [batch, 2, hidden]
        r, z = torch.sigmoid(pb.logmap0(self.affine.combine(wh, h, u, slice(0, 2)), c)).unbind(-2)
        w_rh = torch.einsum("hk,bk->bh", W[2], r * h)[:, None]  # [W diag(r)] h
        cand = self.affine.combine(w_rh, h, u, slice(2, 3))[:, 0]
        if self.act is not None:
            cand = pb.project(pb.mobius_pointwise(self.act, cand, c), c)
        step = pb.mobius_add(-h, cand, c)
        return pb.project(pb.mobius_add(h, pb.mobius_matvec_result(z * step, step, c), c), c)


class HypRecurrent(nn.Module):
    """Runs a hyperbolic RNN or GRU cell over padded sequences [batch, time, input] (points of the
    ball) and returns the hidden state at each sequence's true length ([batch, hidden]). The input
    products U (x) x of all time steps are computed in one batched call before the recurrence."""

    def __init__(self, cell: str, input_size: int, hidden_size: int, c: float = 1.0, nonlinearity: str = "id"):
        super().__init__()
        cells = {"rnn": HypRNNCell, "gru": HypGRUCell}
        if cell not in cells:
            raise ValueError(f"unknown cell {cell!r}: use one of {sorted(cells)}")
        self.cell = cells[cell](input_size, hidden_size, c, nonlinearity)
        self.hidden_size = hidden_size

    def forward(self, x: Tensor, lengths: Tensor) -> Tensor:
        if bool((lengths < 1).any()):
            raise ValueError("every sequence needs at least one token (got a length < 1)")
        batch, steps, _ = x.shape
        u = self.cell.affine.input_part(x)  # [batch, time, gates, hidden]
        h = x.new_zeros(batch, self.hidden_size)
        states = []
        for t in range(int(lengths.max())):
            h = self.cell(u[:, t], h)
            states.append(h)
        states = torch.stack(states, 1)  # [batch, time, hidden]
        return states[torch.arange(batch, device=x.device), lengths - 1]


class HyperbolicMLR(nn.Module):
    """Hyperbolic multinomial logistic regression (the paper's eq. for p(y = k | x)):
        logit_k(x) = lambda_{p_k} ||a_k|| / sqrt(c) * asinh(2 sqrt(c) <-p_k (+) x, a_k> /
                                                         ((1 - c ||-p_k (+) x||^2) ||a_k||))
    with p_k on the ball and a_k = (1 - c ||p_k||^2) a'_k, a'_k stored at the origin (transport0).
    Input [..., dim]; output logits [..., classes].
    """

    def __init__(self, dim: int, classes: int, c: float = 1.0):
        super().__init__()
        self.c = c
        self.p = PoincareParameter(torch.zeros(classes, dim), c)
        self.a0 = nn.Parameter(_glorot(classes, dim))

    def forward(self, x: Tensor) -> Tensor:
        c, sc = self.c, self.c ** 0.5
        a = pb.transport0(self.p, self.a0, c)  # [classes, dim]
        diff = pb.mobius_add(-self.p, x.unsqueeze(-2), c)  # [..., classes, dim]
        a_norm = a.norm(dim=-1).clamp_min(pb.MIN_NORM)
        lam = pb.conformal_factor(self.p, c).squeeze(-1)
        inner = (diff * a).sum(-1)
        denom = ((1 - c * diff.pow(2).sum(-1)) * a_norm).clamp_min(pb.MIN_NORM)
        return lam * a_norm / sc * torch.asinh(2 * sc * inner / denom)
