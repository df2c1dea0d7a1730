"""What the trainer trains: a task owns the data tensors, cuts batches and scores a model.

Every task has: to(device, dtype), steps_per_epoch(), batches(epoch), loss(model, batch) ->
(loss, sum of per-example terms), finish_loss(mean term), evaluate(model, split), eval_splits and
model_kwargs (sizes the model takes from the data, e.g. the vocabulary).
"""

from __future__ import annotations

from collections import Counter

import torch
import torch.nn.functional as F
from torch import Tensor

from noneuclid.data import mnist, prefix, snli
from noneuclid.train.losses import LOSSES


def _shuffled(count: int, batch_size: int, seed: int, epoch: int, device):
    """The epoch's mini-batch index sets; the order depends only on (seed, epoch), so a resumed run
    sees exactly the batches an uninterrupted one would."""
    g = torch.Generator().manual_seed(seed * 100_003 + epoch)
    return torch.randperm(count, generator=g).to(device).split(batch_size)


class Classification:
    """Inputs x [count, ...] and integer labels y [count]; batches reshuffled every epoch."""

    eval_splits = ("test",)
    model_kwargs: dict = {}

    def __init__(self, train: tuple[Tensor, Tensor], test: tuple[Tensor, Tensor], batch_size: int,
                 loss: str, seed: int):
        if loss not in LOSSES:
            raise ValueError(f"unknown loss {loss!r}: choose loss= one of {sorted(LOSSES)}")
        self.train, self.test = train, test
        self.batch_size, self.loss_fn, self.seed = batch_size, LOSSES[loss], seed

    def to(self, device, dtype) -> "Classification":
        self.train = (self.train[0].to(device, dtype), self.train[1].to(device))
        self.test = (self.test[0].to(device, dtype), self.test[1].to(device))
        return self

    def steps_per_epoch(self) -> int:
        return -(-len(self.train[1]) // self.batch_size)

    def batches(self, epoch: int):
        for idx in _shuffled(len(self.train[1]), self.batch_size, self.seed, epoch, self.train[1].device):
            yield self.train[0][idx], self.train[1][idx]

    def loss(self, model, batch) -> tuple[Tensor, float]:
        """The batch's loss (to differentiate) and the sum of its per-example terms (to aggregate)."""
        x, y = batch
        terms = self.loss_fn.per_example(model(x), y)
        return self.loss_fn.finish(terms.mean()), float(terms.detach().sum())

    def finish_loss(self, mean_term: float) -> float:
        """The loss of a whole split from the mean of its per-example terms."""
        return float(self.loss_fn.finish(torch.tensor(mean_term)))

    @torch.no_grad()
    def evaluate(self, model, split: str = "test", batch_size: int = 4096) -> dict:
        """Loss (over the whole split, same normalisation as training), accuracy and the most
        predicted class with its share (a collapsed model predicts one class for everything)."""
        x, y = getattr(self, split)
        total, preds, nonfinite = 0.0, [], 0
        for xb, yb in zip(x.split(batch_size), y.split(batch_size)):
            probs = model(xb)
            total += float(self.loss_fn.per_example(probs, yb).sum())
            preds.append(probs.argmax(-1))
            nonfinite += _nonfinite_rows(probs)
        pred = torch.cat(preds)
        top_class, top_count = Counter(pred.tolist()).most_common(1)[0]
        return {f"{split}_loss": self.finish_loss(total / len(y)),
                f"{split}_accuracy": float((pred == y).float().mean()),
                f"{split}_top_class": int(top_class),
                f"{split}_top_class_share": top_count / len(y),
                f"{split}_nonfinite": nonfinite}


def _nonfinite_rows(outputs: Tensor) -> int:
    """How many examples ([count, classes] outputs) have a NaN or inf output."""
    return int((~torch.isfinite(outputs)).any(-1).sum())


def _pad(sentences: list[list[int]]) -> tuple[Tensor, Tensor]:
    """Token ids [count, longest] (0 = padding) and lengths [count]; an empty sentence becomes one
    unknown token (id 0), so every sequence has a last state to read."""
    sentences = [s or [0] for s in sentences]
    lengths = torch.tensor([len(s) for s in sentences])
    tokens = torch.zeros(len(sentences), int(lengths.max()), dtype=torch.long)
    for i, s in enumerate(sentences):
        tokens[i, : len(s)] = torch.tensor(s)
    return tokens, lengths


class SentencePairs:
    """Pairs of sentences (token ids) with binary labels; cross-entropy on the model's logits;
    accuracy on dev and test (Ganea et al.: the test accuracy at the best dev accuracy is reported)."""

    eval_splits = ("dev", "test")

    def __init__(self, splits: dict, vocab_size: int, batch_size: int, seed: int):
        self.splits = {name: (*_pad(a), *_pad(b), torch.tensor(y)) for name, (a, b, y) in splits.items()}
        self.batch_size, self.seed = batch_size, seed
        self.model_kwargs = {"vocab_size": vocab_size}

    def to(self, device, dtype) -> "SentencePairs":
        self.splits = {k: tuple(t.to(device) for t in v) for k, v in self.splits.items()}
        return self

    def steps_per_epoch(self) -> int:
        return -(-len(self.splits["train"][-1]) // self.batch_size)

    def batches(self, epoch: int):
        train = self.splits["train"]
        for idx in _shuffled(len(train[-1]), self.batch_size, self.seed, epoch, train[-1].device):
            yield tuple(t[idx] for t in train)

    def loss(self, model, batch) -> tuple[Tensor, float]:
        nll = F.cross_entropy(model(*batch[:4]), batch[4], reduction="none")
        return nll.mean(), float(nll.detach().sum())

    def finish_loss(self, mean_term: float) -> float:
        return mean_term

    @torch.no_grad()
    def evaluate(self, model, split: str, batch_size: int = 4096) -> dict:
        data = self.splits[split]
        total, correct, nonfinite = 0.0, 0, 0
        for start in range(0, len(data[-1]), batch_size):
            t1, l1, t2, l2, y = (t[start: start + batch_size] for t in data)
            logits = model(t1, l1, t2, l2)
            total += float(F.cross_entropy(logits, y, reduction="sum"))
            correct += int((logits.argmax(-1) == y).sum())
            nonfinite += _nonfinite_rows(logits)
        n = len(data[-1])
        return {f"{split}_loss": total / n, f"{split}_accuracy": correct / n, f"{split}_nonfinite": nonfinite}


def _sentence_pair_splits(cfg) -> tuple[dict, int]:
    """(splits of token ids, vocabulary size) for data=prefix* or data=snli."""
    d = cfg.data
    if d.name == "prefix":
        splits = {s: prefix.load(cfg.paths.generated_dir, d.percent, s, d.get(f"{s}_size"))
                  for s in ("train", "dev", "test")}
        return splits, prefix.VOCAB + 1
    splits = {s: snli.load(cfg.paths.data_dir, s) for s in ("train", "dev", "test")}
    words = sorted({w for sents in splits["train"][:2] for s in sents for w in s})
    index = {w: i + 1 for i, w in enumerate(words)}  # 0: padding and unknown words
    ids = {s: ([[index.get(w, 0) for w in x] for x in a], [[index.get(w, 0) for w in x] for x in b], y)
           for s, (a, b, y) in splits.items()}
    return ids, len(words) + 1


def build(cfg):
    """The task of cfg.data (with cfg.loss and cfg.seed)."""
    d = cfg.data
    if d.name == "mnist_patches":
        root = cfg.paths.data_dir
        train = mnist.load(root, "train", d.patch, d.train_size)
        test = mnist.load(root, "test", d.patch, d.test_size)
        return Classification(train, test, d.batch_size, cfg.loss, seed=cfg.seed)
    if d.name in ("prefix", "snli"):
        splits, vocab = _sentence_pair_splits(cfg)
        if d.name == "snli" and d.get("train_size"):
            splits["train"] = tuple(x[: d.train_size] for x in splits["train"])
        return SentencePairs(splits, vocab, d.batch_size, cfg.seed)
    raise ValueError(f"unknown data {d.name!r}: choose data=mnist_patches, prefix10|30|50 or snli")
