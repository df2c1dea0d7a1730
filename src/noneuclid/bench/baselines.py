"""Plain-PyTorch baselines of the papers' models: the same shapes, built only from torch.nn layers and
torch.optim optimizers, so that a paper-scale step of ours reads as a ratio to what PyTorch alone costs.

    vit                  Brantner's ViT with nn.Linear attention (one Q/K/V map, all heads), the same
                         x + tanh(Ax + b) blocks and classifier; torch.optim.Adam
    phresnet             the same CIFAR ResNet (stages, widths, bottlenecks, projection shortcuts) with
                         nn.Conv2d; torch.optim.SGD with the run's momentum and weight decay
    phtransformer        nn.TransformerEncoder (d_model, heads, d_ff, depth, causal mask) between an
                         nn.Embedding and an nn.Linear head; torch.optim.Adagrad, gradient norm clipped
    sentence_pair        per run: nn.Embedding, two nn.GRU / nn.RNN encoders, nn.Linear FFNN and
                         classifier; torch.optim.Adam (the runs one after the other: nn.GRU has no runs axis)
    poincare_embedding   nn.Embedding(sparse=True) with the same loss over squared Euclidean distances;
                         torch.optim.SGD
    point_mlr            per run a linear softmax regression nn.Linear(dim, classes); torch.optim.Adam

`build(cfg, batch, runs, device, dtype, **data)` returns one training step on a batch of the task's format.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from noneuclid.models.phresnet import EXPANSION, STAGES, WIDTHS


class PlainViT(nn.Module):
    """x [batch, tokens, dim] -> logits [batch, classes]: attention (no skip) then x + tanh(Ax + b), per block."""

    def __init__(self, dim: int, depth: int, heads: int, num_classes: int):
        super().__init__()
        self.heads = heads
        self.qkv = nn.ModuleList(nn.Linear(dim, 3 * dim, bias=False) for _ in range(depth))
        self.ffn = nn.ModuleList(nn.Linear(dim, dim) for _ in range(depth))
        self.classifier = nn.Linear(dim, num_classes, bias=False)

    def forward(self, x: Tensor) -> Tensor:
        b, t, d = x.shape
        for qkv, ffn in zip(self.qkv, self.ffn):
            q, k, v = qkv(x).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
            x = F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(b, t, d)
            x = x + torch.tanh(ffn(x))
        return self.classifier(x[:, -1])


class PlainBlock(nn.Module):
    """A ResNet block with nn.Conv2d (basic: 3x3, 3x3; bottleneck: 1x1, 3x3, 1x1), out = relu(shortcut + branch)."""

    def __init__(self, cin: int, planes: int, stride: int, kind: str):
        super().__init__()
        convs = {
            "basic": [(cin, planes, 3, stride), (planes, planes, 3, 1)],
            "bottleneck": [(cin, planes, 1, 1), (planes, planes, 3, stride), (planes, 4 * planes, 1, 1)],
        }[kind]
        layers = []
        for i, (a, b, k, s) in enumerate(convs):
            layers += [nn.ReLU()] * bool(i) + [nn.Conv2d(a, b, k, s, k // 2, bias=False), nn.BatchNorm2d(b)]
        self.branch, out = nn.Sequential(*layers), convs[-1][1]
        self.shortcut = (
            nn.Identity()
            if stride == 1 and cin == out
            else nn.Sequential(nn.Conv2d(cin, out, 1, stride, bias=False), nn.BatchNorm2d(out))
        )

    def forward(self, x: Tensor) -> Tensor:
        return F.relu(self.shortcut(x) + self.branch(x))


class PlainResNet(nn.Module):
    """PHResNet's layout (models/phresnet.py) with real convolutions: [batch, channels, H, W] -> logits."""

    def __init__(self, depth: int, n: int, in_channels: int, num_classes: int = 10, width_mult: float = 1.0):
        super().__init__()
        kind, blocks = STAGES[depth]
        widths = [max(n, n * round(w * width_mult / n)) for w in WIDTHS[n]]
        layers = [nn.Conv2d(in_channels, widths[0], 3, 1, 1, bias=False), nn.BatchNorm2d(widths[0]), nn.ReLU()]
        cin = widths[0]
        for i, (planes, count) in enumerate(zip(widths, blocks)):
            for j in range(count):
                layers.append(PlainBlock(cin, planes, 2 if i > 0 and j == 0 else 1, kind))
                cin = planes * EXPANSION[kind]
        self.features, self.head = nn.Sequential(*layers), nn.Linear(cin, num_classes)

    def forward(self, x: Tensor) -> Tensor:
        return self.head(self.features(x).mean(dim=(2, 3)))


class PlainLanguageModel(nn.Module):
    """Token ids [batch, seq] -> logits [batch, seq, vocab] through a causal nn.TransformerEncoder."""

    def __init__(self, vocab_size: int, depth: int, d_model: int, d_ff: int, heads: int, dropout: float):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, d_model)
        layer = nn.TransformerEncoderLayer(d_model, heads, d_ff, dropout, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, depth, enable_nested_tensor=False)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, ids: Tensor) -> Tensor:
        mask = nn.Transformer.generate_square_subsequent_mask(ids.shape[1], device=ids.device)
        return self.head(self.encoder(self.embedding(ids), mask=mask, is_causal=True))


class PlainSentencePair(nn.Module):
    """One run of Ganea et al.'s classifier with nn.GRU / nn.RNN encoders: tokens and lengths of both
    sentences [batch, time], [batch] -> logits [batch, classes]."""

    def __init__(self, vocab_size: int, cell: str, dim: int, classes: int = 2):
        super().__init__()
        rnn = {"gru": nn.GRU, "rnn": nn.RNN}[cell]
        self.embedding = nn.Embedding(vocab_size, dim)
        self.encoders = nn.ModuleList(rnn(dim, dim, batch_first=True) for _ in range(2))
        self.ffnn, self.classifier = nn.Linear(2 * dim, dim), nn.Linear(dim, classes)

    def forward(self, t1: Tensor, l1: Tensor, t2: Tensor, l2: Tensor) -> Tensor:
        states = []
        for encoder, tokens, lengths in zip(self.encoders, (t1, t2), (l1, l2)):
            out, _ = encoder(self.embedding(tokens))  # [batch, time, dim]
            states.append(out[torch.arange(len(lengths), device=out.device), lengths - 1])
        return self.classifier(torch.relu(self.ffnn(torch.cat(states, -1))))


def _vit(cfg, batch, runs, data):
    m = cfg.model
    model = PlainViT(m.dim, m.depth, m.heads, m.num_classes)
    return model, torch.optim.Adam(model.parameters(), lr=cfg.optim.lr), lambda b: F.cross_entropy(model(b[0]), b[1])


def _phresnet(cfg, batch, runs, data):
    m, o = cfg.model, cfg.optim
    model = PlainResNet(m.depth, m.n, batch[0].shape[1], m.num_classes, m.width_mult)
    opt = torch.optim.SGD(model.parameters(), lr=o.lr, momentum=o.momentum, weight_decay=o.weight_decay)
    return model, opt, lambda b: F.cross_entropy(model(b[0]), b[1])


def _phtransformer(cfg, batch, runs, data):
    m = cfg.model
    model = PlainLanguageModel(data["vocab_size"], m.depth, m.d_model, m.d_ff, m.heads, m.dropout)

    def loss(b):
        inputs, target = b[0], b[1]
        logits = model(inputs.T).transpose(0, 1)  # [seq, columns, vocab], the order of target
        return F.cross_entropy(logits.reshape(len(target), -1), target)

    return model, torch.optim.Adagrad(model.parameters(), lr=cfg.optim.lr), loss


def _sentence_pair(cfg, batch, runs, data):
    m = cfg.model
    model = nn.ModuleList(PlainSentencePair(data["vocab_size"], m.cell, m.dim) for _ in range(runs))

    def loss(b):
        t1, l1, t2, l2, y = b  # [runs, batch, ...]
        return sum(F.cross_entropy(run(t1[r], l1[r], t2[r], l2[r]), y[r]) for r, run in enumerate(model))

    return model, torch.optim.Adam(model.parameters(), lr=cfg.optim.lr), loss


def _poincare_embedding(cfg, batch, runs, data):
    model = nn.Embedding(data["num_nodes"], cfg.model.dim, sparse=True)

    def loss(b):
        idx, keep = b[0], b[1]  # [edges, 2 + k] (u, v, drawn nodes), [edges, 1 + k]
        d = (model(idx[:, :1]) - model(idx[:, 1:])).pow(2).sum(-1)  # [edges, 1 + k]
        return (torch.logsumexp((-d).masked_fill(~keep, float("-inf")), 1) + d[:, 0]).mean()

    return model, torch.optim.SGD(model.parameters(), lr=cfg.optim.lr), loss


def _point_mlr(cfg, batch, runs, data):
    x = batch[0] if batch[0].dim() == 3 else batch[0][None]  # [runs, batch, dim]
    model = nn.ModuleList(nn.Linear(x.shape[-1], cfg.model.classes) for _ in range(runs))

    def loss(b):
        x, y = (b[0], b[1]) if b[0].dim() == 3 else (b[0][None], b[1][None])
        return sum(F.cross_entropy(run(x[r]), y[r]) for r, run in enumerate(model))

    return model, torch.optim.Adam(model.parameters(), lr=cfg.optim.lr), loss


BASELINES = {
    "vit": _vit,
    "phresnet": _phresnet,
    "phtransformer": _phtransformer,
    "sentence_pair": _sentence_pair,
    "poincare_embedding": _poincare_embedding,
    "point_mlr": _point_mlr,
}


def build(cfg, batch: tuple, runs: int, device, dtype, **data):
    """One plain-PyTorch training step (forward, loss, backward, optimizer step) of the baseline of
    cfg.model for `runs` runs on batches like `batch` (the task's format); data: the sizes the model
    takes from the data (the task's model_kwargs: vocab_size, num_nodes)."""
    torch.manual_seed(cfg.seed)
    model, optimizer, loss = BASELINES[cfg.model.name](cfg, batch, runs, data)
    model.to(device, dtype).train()
    clip = cfg.optim.get("clip_total_norm")

    def step(b):
        optimizer.zero_grad(set_to_none=True)
        loss(b).backward()
        if clip:
            nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()

    return step
