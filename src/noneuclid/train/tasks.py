"""What the trainer trains: a task owns the data tensors, cuts batches and scores a model.

Classification now; sentence pairs and language modelling plug in with the same three methods.
"""

from __future__ import annotations

from collections import Counter

import torch
from torch import Tensor

from noneuclid.data import mnist
from noneuclid.train.losses import LOSSES


class Classification:
    """Inputs x [count, ...] and integer labels y [count]; batches reshuffled every epoch."""

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
        """The epoch's shuffled mini-batches; the order depends only on (seed, epoch), so a resumed
        run sees exactly the batches an uninterrupted one would."""
        g = torch.Generator().manual_seed(self.seed * 100_003 + epoch)
        order = torch.randperm(len(self.train[1]), generator=g).to(self.train[1].device)
        for idx in order.split(self.batch_size):
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
        total, preds = 0.0, []
        for xb, yb in zip(x.split(batch_size), y.split(batch_size)):
            probs = model(xb)
            total += float(self.loss_fn.per_example(probs, yb).sum())
            preds.append(probs.argmax(-1))
        pred = torch.cat(preds)
        top_class, top_count = Counter(pred.tolist()).most_common(1)[0]
        return {f"{split}_loss": self.finish_loss(total / len(y)),
                f"{split}_accuracy": float((pred == y).float().mean()),
                f"{split}_top_class": int(top_class),
                f"{split}_top_class_share": top_count / len(y)}


def build(cfg) -> Classification:
    """The task of cfg.data (with cfg.loss and cfg.seed)."""
    d = cfg.data
    if d.name != "mnist_patches":
        raise ValueError(f"unknown data {d.name!r}: choose data=mnist_patches")
    root = cfg.paths.data_dir
    train = mnist.load(root, "train", d.patch, d.train_size)
    test = mnist.load(root, "test", d.patch, d.test_size)
    return Classification(train, test, d.batch_size, cfg.loss, seed=cfg.seed)
