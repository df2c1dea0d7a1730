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


def _affine(wh: Tensor, h: Tensor, u: Tensor, b: Tensor, c) -> Tensor:
    """(W (x) h) (+) (U (x) x) (+) b for stacked gates, from the Euclidean products wh = W h
    ([..., gates, hidden]) and the precomputed u = U (x) x; h [..., hidden]; b [..., gates, hidden]."""
    left = pb.mobius_matvec_result(wh, h.unsqueeze(-2), c)
    return pb.project(pb.mobius_add(pb.mobius_add(left, u, c), b, c), c)


def _activate(act, x: Tensor, c) -> Tensor:
    return x if act is None else pb.project(pb.mobius_pointwise(act, x, c), c)


class _HypCell(nn.Module):
    """Weights of a hyperbolic cell: per gate g, W_g [hidden, hidden] and U_g [hidden, input]
    (Euclidean, Glorot) and the bias b_g [hidden] on the ball (0 at init). Each is its own tensor, as
    in the original code, so that per-tensor gradient clipping acts per gate. `step` is the cell's
    recurrence as a pure function of stacked weights, so that it can be batched and compiled."""

    GATES: tuple[str, ...]

    def __init__(self, input_size: int, hidden_size: int, c: float = 1.0, nonlinearity: str = "id"):
        super().__init__()
        self.c, self.act, self.hidden_size = c, _nonlinearity(nonlinearity), hidden_size
        for g in self.GATES:
            setattr(self, f"W_{g}", nn.Parameter(_glorot(hidden_size, hidden_size)))
            setattr(self, f"U_{g}", nn.Parameter(_glorot(hidden_size, input_size)))
            setattr(self, f"b_{g}", PoincareParameter(torch.zeros(hidden_size), c))

    def stacked(self) -> tuple[Tensor, Tensor, Tensor]:
        """(W [gates, hidden, hidden], U [gates, hidden, input], b [gates, hidden])."""
        return tuple(torch.stack([getattr(self, f"{name}_{g}") for g in self.GATES]) for name in "WUb")

    def input_part(self, U: Tensor, x: Tensor) -> Tensor:
        """U_g (x) x for every gate g: U [..., gates, hidden, input], x [..., input] -> [..., gates, hidden]."""
        ux = torch.einsum("...ghi,...i->...gh", U, x)
        return pb.mobius_matvec_result(ux, x.unsqueeze(-2), self.c)

    def forward(self, x: Tensor, h: Tensor) -> Tensor:
        """One step: x (input point) [..., input], h [..., hidden] -> h' [..., hidden]."""
        W, U, b = self.stacked()
        return self.step(self.input_part(U, x), h, W, b, self.c, self.act)


class HypRNNCell(_HypCell):
    """h' = phi^(x)((W (x) h) (+) (U (x) x) (+) b); phi = identity in the paper's runs."""

    GATES = ("h",)

    @staticmethod
    def step(u: Tensor, h: Tensor, W: Tensor, b: Tensor, c, act) -> Tensor:
        """u = U (x) x [..., 1, hidden]; h [..., hidden]; W [..., 1, hidden, hidden]; b [..., 1, hidden]."""
        wh = (W @ h[..., None, :, None]).squeeze(-1)  # [..., 1, hidden]
        return _activate(act, _affine(wh, h, u, b, c)[..., 0, :], c)


class HypGRUCell(_HypCell):
    """The hyperbolic GRU of the paper:
        r = sigmoid(log_0((W_r (x) h) (+) (U_r (x) x) (+) b_r)),  z likewise with W_z, U_z, b_z
        h~ = phi^(x)(([W_h diag(r)] (x) h) (+) (U_h (x) x) (+) b_h)
        h' = h (+) (diag(z) (x) ((-h) (+) h~))
    """

    GATES = ("r", "z", "h")

    @staticmethod
    def step(u: Tensor, h: Tensor, W: Tensor, b: Tensor, c, act) -> Tensor:
        """u = U_g (x) x [..., 3, hidden]; h [..., hidden]; W [..., 3, hidden, hidden]; b [..., 3, hidden]."""
        wh = (W[..., :2, :, :] @ h[..., None, :, None]).squeeze(-1)  # [..., 2, hidden]
        r, z = torch.sigmoid(pb.logmap0(_affine(wh, h, u[..., :2, :], b[..., :2, :], c), c)).unbind(-2)
        w_rh = (W[..., 2, :, :] @ (r * h)[..., None]).squeeze(-1)  # [W_h diag(r)] h, [..., hidden]
        cand = _activate(act, _affine(w_rh[..., None, :], h, u[..., 2:, :], b[..., 2:, :], c)[..., 0, :], c)
        step = pb.mobius_add(-h, cand, c)
        return pb.project(pb.mobius_add(h, pb.mobius_matvec_result(z * step, step, c), c), c)


CELLS = {"rnn": HypRNNCell, "gru": HypGRUCell}


def _masked_step(cell_step):
    """The cell's step, keeping h where the sequence has already ended (mask False)."""
    def step(u, h, keep_going, W, b, c, act):
        return torch.where(keep_going, cell_step(u, h, W, b, c, act), h)
    return step


_STEPS = {name: _masked_step(cls.step) for name, cls in CELLS.items()}
_COMPILED_STEPS: dict = {}


def _compiled_step(name: str):
    """The masked step compiled once per process with torch.compile (fuses its ~100 small tensor ops)."""
    if name not in _COMPILED_STEPS:
        _COMPILED_STEPS[name] = torch.compile(_STEPS[name])
    return _COMPILED_STEPS[name]


class HypRecurrent(nn.Module):
    """`copies` independent hyperbolic RNN or GRU encoders run side by side over padded sequences.

    forward(x, lengths): x [copies, batch, time, input] (points of the ball; [batch, time, input]
    when copies = 1), lengths [copies, batch] (or [batch]); returns the hidden state at each
    sequence's true length, [copies, batch, hidden] (or [batch, hidden]). The input products
    U (x) x of all time steps are computed in one batched call; the recurrence is one call per time
    step for all copies, compiled with torch.compile when compile=True.
    """

    def __init__(self, cell: str, input_size: int, hidden_size: int, c: float = 1.0, nonlinearity: str = "id",
                 copies: int = 1, compile: bool = False):
        super().__init__()
        if cell not in CELLS:
            raise ValueError(f"unknown cell {cell!r}: use one of {sorted(CELLS)}")
        self.cells = nn.ModuleList([CELLS[cell](input_size, hidden_size, c, nonlinearity) for _ in range(copies)])
        self.kind, self.hidden_size, self.compile = cell, hidden_size, compile

    def forward(self, x: Tensor, lengths: Tensor) -> Tensor:
        single = x.dim() == 3
        if single:
            x, lengths = x.unsqueeze(0), lengths.unsqueeze(0)
        if bool((lengths < 1).any()):
            raise ValueError("every sequence needs at least one token (got a length < 1)")
        cell = self.cells[0]
        W, U, b = (torch.stack(t) for t in zip(*(cell.stacked() for cell in self.cells)))  # [copies, gates, ...]
        u = cell.input_part(U[:, None, None], x)  # [copies, batch, time, gates, hidden]
        steps = int(lengths.max())
        keep_going = torch.arange(steps, device=x.device) < lengths[..., None]  # [copies, batch, time]
        step = _compiled_step(self.kind) if self.compile else _STEPS[self.kind]
        h = x.new_zeros(*x.shape[:2], self.hidden_size)
        W, b = W[:, None], b[:, None]  # broadcast over the batch
        for t in range(steps):
            h = step(u[:, :, t], h, keep_going[:, :, t, None], W, b, cell.c, cell.act)
        return h[0] if single else h


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
