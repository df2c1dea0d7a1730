"""RNN and GRU encoders of Ganea et al. (2018, section 3.3), Euclidean or hyperbolic, written once.

Each cell is one formula over a space (`noneuclid.geometry.spaces`): on the Poincare ball it is the
paper's hyperbolic cell, in Euclidean space the same formula is the ordinary cell,

    RNN:  h' = phi^(x)((W (x) h) (+) (U (x) x) (+) b)                               (paper eq. 29)
    GRU:  r = sigmoid(log_0((W_r (x) h) (+) (U_r (x) x) (+) b_r)),  z likewise
          h~ = phi^(x)(([W_h diag(r)] (x) h) (+) (U_h (x) x) (+) b_h)
          h' = h (+) (diag(z) (x) ((-h) (+) h~))                                    (paper eq. 30)

with phi the identity in the paper's hyperbolic runs and tanh for the Euclidean baselines (there
the GRU is h' = (1 - z) h + z tanh(W_h (r * h) + U_h x + b_h), the gating of the authors' code).

Weights carry leading `copies` dimensions: W [*copies, gates, hidden, hidden], U [*copies, gates,
hidden, input], b [*copies, gates, hidden]. Independent encoders (the two sentences of a pair, the
runs of a stacked sweep) then run as one batched recurrence; gradient clipping still acts per
(copy, gate) matrix, as for separate tensors (see `noneuclid.nn.parameters.copy_dims`).
"""

from __future__ import annotations

import functools

import torch
from torch import Tensor, nn

from noneuclid.geometry.spaces import Euclidean, PoincareBall
from noneuclid.nn.hyperbolic import PoincareParameter, glorot
from noneuclid.nn.parameters import with_copy_dims

GATES = {"rnn": 1, "gru": 3}
ACTIVATIONS = {"id": None, "tanh": torch.tanh, "relu": torch.relu}  # phi of phi^(x); None = identity


def matvec(W: Tensor, x: Tensor) -> Tensor:
    """W x for W [..., out, in] and x [..., in] (broadcast), as a product and a sum that
    torch.compile fuses with the surrounding element-wise work (no batched-matmul call)."""
    return (W * x.unsqueeze(-2)).sum(-1)


def _affine(space, wh: Tensor, h: Tensor, u: Tensor, b: Tensor) -> Tensor:
    """(W (x) h) (+) (U (x) x) (+) b per gate, from wh = W h [..., gates, hidden], h [..., hidden],
    u = U (x) x [..., gates, hidden] and b [..., gates, hidden]."""
    return space.project(space.add(space.add(space.matvec_result(wh, h.unsqueeze(-2)), u), b))


def _activate(space, act, x: Tensor) -> Tensor:
    """phi^(x)(x) = exp_0(phi(log_0(x))) (phi(x) in Euclidean space)."""
    return x if act is None else space.project(space.expmap0(act(space.logmap0(x))))


def rnn_step(space, act, u: Tensor, h: Tensor, W: Tensor, b: Tensor) -> Tensor:
    """u [..., 1, hidden], h [..., hidden], W [..., 1, hidden, hidden], b [..., 1, hidden]."""
    return _activate(space, act, _affine(space, matvec(W, h.unsqueeze(-2)), h, u, b)[..., 0, :])


def gru_step(space, act, u: Tensor, h: Tensor, W: Tensor, b: Tensor) -> Tensor:
    """u [..., 3, hidden] (gates r, z, h~), h [..., hidden], W [..., 3, hidden, hidden], b [..., 3, hidden]."""
    wh = matvec(W[..., :2, :, :], h.unsqueeze(-2))  # [..., 2, hidden]
    r, z = torch.sigmoid(space.logmap0(_affine(space, wh, h, u[..., :2, :], b[..., :2, :]))).unbind(-2)
    w_rh = matvec(W[..., 2:, :, :], (r * h).unsqueeze(-2))  # [W_h diag(r)] h, [..., 1, hidden]
    cand = _activate(space, act, _affine(space, w_rh, h, u[..., 2:, :], b[..., 2:, :])[..., 0, :])
    step = space.add(-h, cand)
    return space.project(space.add(h, space.matvec_result(z * step, step)))


def input_products(space, U: Tensor, x: Tensor) -> Tensor:
    """U_g (x) x for every gate and time step at once: U [*copies, gates, hidden, input], x [*copies,
    batch, time, input] -> [*copies, batch, time, gates, hidden]."""
    ux = torch.einsum("...ghi,...bti->...btgh", U, x)
    return space.matvec_result(ux, x.unsqueeze(-2))


STEPS = {"rnn": rnn_step, "gru": gru_step}
_COMPILED: dict = {}
# Every cell shares the code object of `step` below, and each needs about 5 graphs (train batch and
# last batch, the first step's h without gradient, evaluation): raise torch's limit of 8 per code
# object so that a process training several models never falls back to eager.
torch._dynamo.config.recompile_limit = max(torch._dynamo.config.recompile_limit, 64)


def compiled(key: tuple, fn):
    """fn compiled with torch.compile (static shapes), once per process and key: it fuses fn's small
    element-wise operations, forward and backward, into a few loops."""
    if key not in _COMPILED:
        _COMPILED[key] = torch.compile(fn, dynamic=False)
    return _COMPILED[key]


def masked_step(cell: str, space, act, compile: bool):
    """The cell's step keeping h where a sequence has ended (keep_going False), as a function of
    (u, h, keep_going, W, b); compiled once per process and cell when asked (the step's ~100 small
    operations)."""
    def step(u, h, keep_going, W, b):
        return torch.where(keep_going, STEPS[cell](space, act, u, h, W, b), h)
    return compiled(("step", cell, type(space).__name__, getattr(space, "c", None), act), step) if compile else step


class Recurrent(nn.Module):
    """RNN or GRU encoders over padded sequences, with `copies` leading weight dimensions.

    forward(x, lengths): x [*copies, batch, time, input] (points of the space), lengths [*copies,
    batch] -> the hidden state at each sequence's true length, [*copies, batch, hidden]. Steps after
    a sequence's end keep its state, so padding never changes the result. The input products
    U (x) x of all time steps are one (compiled) call; the recurrence is one (compiled) call per step.
    """

    def __init__(self, cell: str, input_size: int, hidden_size: int, space: Euclidean | PoincareBall,
                 nonlinearity: str = "id", copies: tuple[int, ...] = (), compile: bool = False):
        super().__init__()
        if cell not in STEPS:
            raise ValueError(f"unknown cell {cell!r}: use one of {sorted(STEPS)}")
        if nonlinearity not in ACTIVATIONS:
            raise ValueError(f"unknown nonlinearity {nonlinearity!r}: use one of {sorted(ACTIVATIONS)}")
        self.step = masked_step(cell, space, ACTIVATIONS[nonlinearity], compile)
        inputs = functools.partial(input_products, space)
        self.inputs = compiled(("inputs", type(space).__name__, getattr(space, "c", None)), inputs) if compile else inputs
        self.space = space
        gates, copies = GATES[cell], tuple(copies)
        per_gate = len(copies) + 1  # one clipping unit per copy and gate
        self.W = with_copy_dims(nn.Parameter(glorot(*copies, gates, hidden_size, hidden_size)), per_gate)
        self.U = with_copy_dims(nn.Parameter(glorot(*copies, gates, hidden_size, input_size)), per_gate)
        bias = torch.zeros(*copies, gates, hidden_size)
        self.b = with_copy_dims(PoincareParameter(bias, space.c) if space.hyperbolic else nn.Parameter(bias), per_gate)

    def forward(self, x: Tensor, lengths: Tensor) -> Tensor:
        if bool((lengths < 1).any()):
            raise ValueError("every sequence needs at least one token (got a length < 1)")
        W, b = self.W.unsqueeze(-4), self.b.unsqueeze(-3)  # broadcast over the batch
        u = self.inputs(self.U, x).unbind(-3)  # per time step
        keep_going = (torch.arange(x.shape[-2], device=x.device) < lengths.unsqueeze(-1)).unsqueeze(-1).unbind(-2)
        h = x.new_zeros(*x.shape[:-2], W.shape[-1])
        for u_t, keep_t in zip(u, keep_going):
            h = self.step(u_t, h, keep_t, W, b)
        return h
