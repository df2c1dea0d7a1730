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

Inside the recurrence the batch is the last dimension: states are [*copies, hidden, batch] and the
space's points lie along dim -2. The compiled step then vectorizes over the batch rather than over
the n = 5 coordinates (of a 16-wide vector), which made a stacked training step faster when measured
(`python -m noneuclid.bench hyperbolic`; docs/benchmarks.md has the figures).
"""

from __future__ import annotations

import functools
import itertools

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from noneuclid.geometry.spaces import Euclidean, Lorentz, PoincareBall
from noneuclid.nn.hyperbolic import glorot
from noneuclid.nn.parameters import PoincareParameter, with_copy_dims

GATES = {"rnn": 1, "gru": 3}
ACTIVATIONS = {"id": None, "tanh": torch.tanh}  # phi of phi^(x): the identity (hyperbolic) or tanh (Euclidean)


def matvec(W: Tensor, x: Tensor, dim: int = -1) -> Tensor:
    """W x for W [..., out, in] and x with its coordinates along `dim`: [..., in] -> [..., out] (dim -1)
    or [..., in, batch] -> [..., out, batch] (dim -2), broadcast; as a product and a sum that
    torch.compile fuses with the surrounding element-wise work (no batched-matmul call)."""
    if dim == -1:
        return (W * x.unsqueeze(-2)).sum(-1)
    if dim == -2:
        return (W.unsqueeze(-1) * x.unsqueeze(-3)).sum(-2)
    raise ValueError(f"matvec takes coordinates along dim -1 or -2, got {dim}")


# The steps below take the batch-last layout: `space` has dim -2, states h are [..., hidden, batch],
# per-gate tensors [..., gates, hidden, batch], W [..., gates, hidden, hidden], b [..., gates, hidden, 1].


def _affine(space, wh: Tensor, h: Tensor, u: Tensor, b: Tensor) -> Tensor:
    """(W (x) h) (+) (U (x) x) (+) b per gate, from wh = W h, h, u = U (x) x and b; projected only if
    the space projects every result (else the caller projects it: the RNN and the GRU's candidate by
    _activate). The GRU's gates take log_0 of its projection instead (space.affine_log0)."""
    return space.add(space.add(space.matvec_result(wh, h.unsqueeze(-3)), u), b)


def _activate(space, act, x: Tensor) -> Tensor:
    """phi^(x)(x) (phi(x) in Euclidean space), in the ball; act None is the identity."""
    return space.in_ball(x if act is None else space.pointwise(act, x))


def rnn_step(space, act, u: Tensor, h: Tensor, W: Tensor, b: Tensor) -> Tensor:
    """One gate: u [..., 1, hidden, batch], W [..., 1, hidden, hidden], b [..., 1, hidden, 1]."""
    return _activate(space, act, _affine(space, matvec(W, h.unsqueeze(-3), -2), h, u, b)[..., 0, :, :])


def gru_step(space, act, u: Tensor, h: Tensor, W: Tensor, b: Tensor) -> Tensor:
    """Gates r, z, h~: u [..., 3, hidden, batch], W [..., 3, hidden, hidden], b [..., 3, hidden, 1]."""
    wh = matvec(W[..., :2, :, :], h.unsqueeze(-3), -2)  # [..., 2, hidden, batch]
    r, z = torch.sigmoid(space.affine_log0(wh, h.unsqueeze(-3), u[..., :2, :, :], b[..., :2, :, :])).unbind(-3)
    w_rh = matvec(W[..., 2:, :, :], (r * h).unsqueeze(-3), -2)  # [W_h diag(r)] h, [..., 1, hidden, batch]
    cand = _activate(space, act, _affine(space, w_rh, h, u[..., 2:, :, :], b[..., 2:, :, :])[..., 0, :, :])
    step = space.add(-h, cand)
    return space.in_ball(space.add(h, space.matvec_result(z * step, step)))


def input_products(space, U: Tensor, x: Tensor) -> Tensor:
    """U_g (x) x for every gate and time step at once, batch last (`space` with dim -2): U [*copies,
    gates, hidden, input], x [*copies, time, input, batch] -> [*copies, time, gates, hidden, batch]."""
    x = x.unsqueeze(-3)  # [*copies, time, 1, input, batch]
    return space.matvec_result(matvec(U.unsqueeze(-4), x, -2), x)


def row_products(space, U: Tensor, table: Tensor, encoders: int) -> Tensor:
    """U_g (x) row for every row of a table of points, batch last (`space` with dim -2): U [runs,
    encoders, gates, hidden, input], table [runs, vocab, input] -> [runs, encoders, gates, hidden,
    vocab + padding].

    The rows are padded with zeros to a multiple of 16, so that the element-wise kernels meet no
    remainder shorter than a SIMD vector (where torch rounds transcendental functions differently):
    each run's values are then bitwise the same whether it is stacked with others or not."""
    points = F.pad(table.mT, (0, -table.shape[-2] % 16))  # the rows as a batch: [runs, input, vocab + padding]
    points = points.unsqueeze(1).expand(points.shape[0], encoders, *points.shape[1:]).contiguous()
    return input_products(space, U, points.unsqueeze(2))[:, :, 0]


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
    (u, h, keep_going, W, b, tokens); compiled once per process and cell when asked (the step's ~100
    small operations). u is the step's input products [*copies, gates, hidden, batch], or with token
    ids tokens [*copies, batch] the products of every table row [*copies, gates, hidden, rows], from
    which the step looks up its tokens' (inside the compiled graph: no products per token in memory)."""

    def step(u, h, keep_going, W, b, tokens=None):
        if tokens is not None:  # u[..., k] <- u[..., tokens[k]], for every gate and hidden unit
            u = u.gather(-1, tokens[..., None, None, :].expand(*u.shape[:-1], tokens.shape[-1]))
        return torch.where(keep_going, STEPS[cell](space, act, u, h, W, b), h)

    return compiled(("step", cell, *space.key(), act), step) if compile else step


class Recurrent(nn.Module):
    """RNN or GRU encoders over padded sequences, with `copies` leading weight dimensions.

    forward(x, lengths): x [*copies, batch, time, input] (points of the space's chart), lengths [*copies,
    batch] -> the hidden state at each sequence's true length, [*copies, batch, hidden]. Steps after
    a sequence's end keep its state, so padding never changes the result. The input products
    U (x) x of all time steps are one (compiled) call, per token or, from token ids, per word
    (forward_tokens); the recurrence is one (compiled) call per step, in the batch-last layout.
    """

    def __init__(
        self,
        cell: str,
        input_size: int,
        hidden_size: int,
        space: Euclidean | PoincareBall | Lorentz,
        nonlinearity: str = "id",
        copies: tuple[int, ...] = (),
        compile: bool = False,
    ):
        super().__init__()
        if cell not in STEPS:
            raise ValueError(f"unknown cell {cell!r}: use one of {sorted(STEPS)}")
        if nonlinearity not in ACTIVATIONS:
            raise ValueError(f"unknown nonlinearity {nonlinearity!r}: use one of {sorted(ACTIVATIONS)}")
        batch_last = space.along(-2)
        self.step = masked_step(cell, batch_last, ACTIVATIONS[nonlinearity], compile)

        def on_space(fn):  # fn with the batch-last space bound, compiled once per process and space if asked
            bound = functools.partial(fn, batch_last)
            return compiled((fn.__name__, *space.key()), bound) if compile else bound

        self.inputs, self.row_inputs = on_space(input_products), on_space(row_products)
        self.space = space
        gates, copies = GATES[cell], tuple(copies)
        per_gate = len(copies) + 1  # one clipping unit per copy and gate
        self.W = with_copy_dims(nn.Parameter(glorot(*copies, gates, hidden_size, hidden_size)), per_gate)
        self.U = with_copy_dims(nn.Parameter(glorot(*copies, gates, hidden_size, input_size)), per_gate)
        bias = torch.zeros(*copies, gates, hidden_size)
        self.b = with_copy_dims(PoincareParameter(bias, space.c) if space.hyperbolic else nn.Parameter(bias), per_gate)

    def forward(self, x: Tensor, lengths: Tensor) -> Tensor:
        x = x.movedim(-3, -1).contiguous()  # batch last: [*copies, time, input, batch]
        return self.recur(self.inputs(self.U, x), lengths)

    def forward_tokens(self, table: Tensor, tokens: Tensor, lengths: Tensor) -> Tensor:
        """forward(table[tokens], lengths) per copy, for copies = (runs, encoders) sharing a table of
        points table [runs, vocab, input], with token ids tokens [runs, encoders, batch, time].

        U (x) x depends on the token alone, so when the table has fewer rows than a batch has tokens
        (PREFIX: 101 words, 64 x 20 tokens) the products are formed once per row and each step looks
        up its tokens': the same values for 1/12 of the work. Otherwise they are formed once per
        token, as in forward."""
        runs, encoders, batch, time = tokens.shape
        if table.shape[-2] >= batch * time:
            return self(table[torch.arange(runs, device=tokens.device).view(-1, 1, 1, 1), tokens], lengths)
        return self.recur(self.row_inputs(self.U, table, encoders), lengths, tokens)

    def recur(self, u: Tensor, lengths: Tensor, tokens: Tensor | None = None) -> Tensor:
        """The recurrence over input products u [*copies, time, gates, hidden, batch] -> [*copies,
        batch, hidden]; or, with token ids tokens [*copies, batch, time], over the products of a
        table's rows u [*copies, gates, hidden, rows], looked up by token at each step."""
        if bool((lengths < 1).any()):
            raise ValueError("every sequence needs at least one token (got a length < 1)")
        W, b = (
            self.W,
            self.space.from_ball(self.b).unsqueeze(-1),
        )  # b broadcast over the batch: [*copies, gates, hidden, 1]
        if tokens is None:  # each step's products u_t, no lookup
            copies, (time, batch) = u.shape[:-4], (u.shape[-4], u.shape[-1])
            steps = zip(u.unbind(-4), itertools.repeat(None))
        else:  # every step looks up its tokens_t [*copies, batch] in the same row products
            copies, (batch, time) = u.shape[:-3], tokens.shape[-2:]
            steps = zip(itertools.repeat(u), tokens.unbind(-1))
        keep_going = torch.arange(time, device=u.device) < lengths.unsqueeze(-1)  # [*copies, batch, time]
        keep_going = keep_going.unsqueeze(-3).unbind(-1)  # per time step [*copies, 1, batch]
        h = u.new_zeros(*copies, W.shape[-1], batch)  # [*copies, hidden, batch]
        for (u_t, tokens_t), keep_t in zip(steps, keep_going):
            h = self.step(u_t, h, keep_t, W, b, tokens_t)
        return h.mT
