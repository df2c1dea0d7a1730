"""The sentence-pair classifier of Ganea et al. (2018), section 4, in the six variants of Table 1.

    two encoders (RNN or GRU), one per sentence, sharing the word embeddings
    s1, s2 = last hidden state of each sentence at its true length
    combination ("FFNN"): o = W1 s1 + W2 s2 + b + d(s1, s2)^2 b_d, then relu (Euclidean) or identity
        hyperbolic: o = (W1 (x) s1) (+) (W2 (x) s2) (+) b (+) (d_c(s1, s2)^2 (x) b_d)
    2-class MLR: Euclidean <x - p_k, a_k> or the hyperbolic MLR

geometry = "euclidean": everything Euclidean ("fully Euclidean RNN/GRU", tanh cells);
           "hyperbolic_eucl_mlr": hyperbolic embeddings, encoders and FFNN, Euclidean MLR on log_0(o);
           "hyperbolic": fully hyperbolic (cells with the identity non-linearity, as the paper's runs).
Both geometries run the same formulas over a space (`noneuclid.geometry.spaces`).
chart = "poincare" | "lorentz": the hyperbolic models' arithmetic on the Poincare ball or on the
hyperboloid (the same function; the points that are parameters, word embeddings, biases and the MLR's
p_k, are points of the ball in either chart, trained alike; see `spaces.Lorentz`).

`runs` independent models live in one module, every weight with a leading runs dimension (a stacked
sweep: seeds and datasets of one architecture trained side by side, see `noneuclid.train.loop`).
Gradients are clipped per tensor of the original code (`clip_per_tensor`, `nn.parameters.copy_dims`):
W1 and W2 on their own, and each class's p_k and a_k on their own, as its W_ff_s1, W_ff_s2, P_mlr<k>,
A_mlr<k>; earlier runs (clip_per_tensor=false) clipped W1 with W2 and the classes together.
Every Mobius operation's result is projected into the ball, as in the original code (`project_results`,
see `spaces.PoincareBall`); earlier runs (project_results=false) projected only each step's
state and the FFNN's output.
Input: token ids [runs, batch, time] (0 = padding) and lengths [runs, batch] per sentence (or
[batch, time] and [batch] when runs = 1); output logits [runs, batch, classes] (or [batch, classes]).
"""

from __future__ import annotations

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from noneuclid.geometry import poincare as pb, spaces
from noneuclid.nn.hyperbolic import HyperbolicMLR, glorot
from noneuclid.nn.parameters import PoincareParameter, with_copy_dims
from noneuclid.nn.recurrent import Recurrent, matvec

GEOMETRIES = ("euclidean", "hyperbolic_eucl_mlr", "hyperbolic")


def _embedding_init(runs: int, vocab: int, dim: int, scale: float = 1.0) -> Tensor:
    """U(-m, m) with m = scale * (3 * 0.001^2 / (2 * dim))^(1/3) (scale 1: the original code's ±6.7e-3
    for dim 5, which puts every sentence state near 0; the hyperbolic models, whose embeddings move by
    Riemannian SGD, then plateau at chance for thousands of batches; experiment=hnn/init measures that).
    The caller projects the draw into the ball for the hyperbolic models (at scale 100 many points lie
    outside it)."""
    m = scale * (3 * 0.001**2 / (2 * dim)) ** (1 / 3)
    return torch.empty(runs, vocab, dim).uniform_(-m, m)


class EuclideanMLR(nn.Module):
    """logit_k = <x - p_k, a_k> (the paper's Euclidean MLR); p, a [runs, classes, dim], x [runs, batch, dim].
    per_class: each class's p_k and a_k is a tensor of its own (clipped on its own)."""

    def __init__(self, dim: int, classes: int, runs: int, per_class: bool = True):
        super().__init__()
        self.p = with_copy_dims(nn.Parameter(torch.zeros(runs, classes, dim)), 1 + per_class)
        self.a = with_copy_dims(nn.Parameter(glorot(runs, classes, dim)), 1 + per_class)

    def forward(self, x: Tensor) -> Tensor:
        return ((x.unsqueeze(-2) - self.p.unsqueeze(-3)) * self.a.unsqueeze(-3)).sum(-1)


class SentencePairModel(nn.Module):
    def __init__(
        self,
        vocab_size: int,
        cell: str = "gru",
        geometry: str = "hyperbolic",
        dim: int = 5,
        c: float = 1.0,
        classes: int = 2,
        compile: bool = False,
        runs: int = 1,
        embedding_init_scale: float = 1.0,
        clip_per_tensor: bool = True,
        project_results: bool = True,
        carry_gaps: bool = False,
        chart: str = "poincare",
    ):
        super().__init__()
        if geometry not in GEOMETRIES:
            raise ValueError(f"model.geometry must be one of {GEOMETRIES}, got {geometry!r}")
        if cell not in ("rnn", "gru"):
            raise ValueError(f"model.cell must be 'rnn' or 'gru', got {cell!r}")
        self.geometry = geometry
        self.space = spaces.space(geometry != "euclidean", c, project_results, carry_gaps, chart)
        ball = PoincareParameter if self.space.hyperbolic else nn.Parameter
        embedding = _embedding_init(runs, vocab_size, dim, embedding_init_scale)
        if self.space.hyperbolic:  # a large init scale draws points outside the ball: onto its edge
            embedding = pb.project(embedding, c)
        self.embedding = with_copy_dims(ball(embedding), 1)
        self.encoders = Recurrent(
            cell, dim, dim, self.space, "id" if self.space.hyperbolic else "tanh", copies=(runs, 2), compile=compile
        )
        self.W = with_copy_dims(nn.Parameter(glorot(runs, 2, dim, dim)), 1 + clip_per_tensor)  # W1, W2 of the FFNN
        self.b = with_copy_dims(ball(torch.zeros(runs, dim)), 1)
        self.b_d = with_copy_dims(ball(torch.zeros(runs, dim)), 1)
        self.classify = (
            torch.compile(self._classify, dynamic=False) if compile else self._classify
        )  # fuses its small ops
        if geometry == "hyperbolic":
            self.mlr = HyperbolicMLR(
                dim, classes, c, copies=(runs,), per_class=clip_per_tensor, project_results=project_results, chart=chart
            )
        else:
            self.mlr = EuclideanMLR(dim, classes, runs, per_class=clip_per_tensor)

    def encode(self, tokens1: Tensor, lengths1: Tensor, tokens2: Tensor, lengths2: Tensor) -> tuple[Tensor, Tensor]:
        """The hidden state of each sentence at its true length, ([runs, batch, dim], [runs, batch, dim])."""
        steps = max(tokens1.shape[-1], tokens2.shape[-1])
        tokens = torch.stack(
            [F.pad(t, (0, steps - t.shape[-1])) for t in (tokens1, tokens2)], 1
        )  # [runs, 2, batch, time]
        states = self.encoders.forward_tokens(
            self.space.from_ball(self.embedding), tokens, torch.stack([lengths1, lengths2], 1)
        )
        return states.unbind(1)

    def forward(self, tokens1: Tensor, lengths1: Tensor, tokens2: Tensor, lengths2: Tensor) -> Tensor:
        if tokens1.dim() == 2:  # one run without its leading dimension
            return self(tokens1[None], lengths1[None], tokens2[None], lengths2[None])[0]
        return self.classify(*self.encode(tokens1, lengths1, tokens2, lengths2))

    def _classify(self, s1: Tensor, s2: Tensor) -> Tensor:
        """The FFNN and the MLR: sentence states [runs, batch, dim] -> logits [runs, batch, classes]."""
        sp, W = self.space, self.W.unsqueeze(2)  # [runs, 2, 1, dim, dim]
        o = sp.add(sp.matvec_result(matvec(W[:, 0], s1), s1), sp.matvec_result(matvec(W[:, 1], s2), s2))
        o = sp.add(o, sp.from_ball(self.b.unsqueeze(1)))
        o = sp.add(o, sp.scalar_mul(sp.dist2(s1, s2), sp.from_ball(self.b_d.unsqueeze(1)).expand_as(o)))
        if self.geometry == "euclidean":
            return self.mlr(torch.relu(o))
        if self.geometry == "hyperbolic":
            return self.mlr(sp.in_ball(o))
        # log_0 of the projection without forming it: exact in float32 (see poincare.logmap0)
        return self.mlr(sp.logmap0(o, project=True))
