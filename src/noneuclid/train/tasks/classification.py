"""Classification of inputs x with integer labels y: MNIST patches (Brantner), CIFAR-10 (PHYDI)."""

from __future__ import annotations

from collections import Counter

import torch
from torch import Tensor

from noneuclid.data import cifar10, mnist
from noneuclid.train.losses import LOSSES
from noneuclid.train.tasks.batching import shuffled


class Classification:
    """Inputs x [count, ...] and integer labels y [count]; batches reshuffled every epoch; evaluated
    on each split of `evals` ({"test": (x, y)} for MNIST; {"val": ..., "test": ...} for CIFAR-10)."""

    model_kwargs: dict = {}

    def __init__(
        self,
        train: tuple[Tensor, Tensor],
        evals: dict[str, tuple[Tensor, Tensor]],
        batch_size: int,
        loss: str,
        seed: int,
        eval_batch_size: int = 4096,
    ):
        if loss not in LOSSES:
            raise ValueError(f"unknown loss {loss!r}: choose loss= one of {sorted(LOSSES)}")
        self.splits = {"train": train, **evals}
        self.eval_splits = tuple(evals)
        self.batch_size, self.loss_fn, self.seed = batch_size, LOSSES[loss], seed
        self.eval_batch_size = eval_batch_size

    def to(self, device, dtype) -> Classification:
        self.splits = {k: (x.to(device, dtype), y.to(device)) for k, (x, y) in self.splits.items()}
        return self

    def steps_per_epoch(self) -> int:
        return -(-len(self.splits["train"][1]) // self.batch_size)

    def batch_indices(self, epoch: int):
        """The epoch's batches as index sets into the training split: the examples reshuffled."""
        y = self.splits["train"][1]
        return shuffled(len(y), self.batch_size, self.seed, epoch, y.device)

    def batches(self, epoch: int):
        x, y = self.splits["train"]
        for idx in self.batch_indices(epoch):
            yield x[idx], y[idx]

    def loss(self, model, batch) -> tuple[Tensor, float]:
        """The batch's loss (to differentiate) and the sum of its per-example terms (to aggregate)."""
        x, y = batch
        terms = self.loss_fn.per_example(model(x), y)
        return self.loss_fn.finish(terms.mean()), float(terms.detach().sum())

    def finish_loss(self, mean_term: float) -> float:
        """The loss of a whole split from the mean of its per-example terms."""
        return float(self.loss_fn.finish(torch.tensor(mean_term)))

    @torch.no_grad()
    def evaluate(self, model, split: str = "test") -> dict:
        """The model's scores on the split (see `scores`), computed in batches of eval_batch_size."""
        x, y = self.splits[split]
        return self.scores(split, [model(xb) for xb in x.split(self.eval_batch_size)])

    def scores(self, split: str, outputs: list[Tensor]) -> dict:
        """Loss (over the whole split, same normalisation as training), accuracy and the most
        predicted class with its share (a collapsed model predicts one class for everything), from the
        model's outputs on the split's batches of eval_batch_size (each [batch, classes])."""
        y = self.splits[split][1]
        total, nonfinite = 0.0, 0
        for probs, yb in zip(outputs, y.split(self.eval_batch_size), strict=True):
            total += float(self.loss_fn.per_example(probs, yb).sum())
            nonfinite += nonfinite_rows(probs)
        pred = torch.cat([probs.argmax(-1) for probs in outputs])
        top_class, top_count = Counter(pred.tolist()).most_common(1)[0]
        return {
            f"{split}_loss": self.finish_loss(total / len(y)),
            f"{split}_accuracy": float((pred == y).float().mean()),
            f"{split}_top_class": int(top_class),
            f"{split}_top_class_share": top_count / len(y),
            f"{split}_nonfinite": nonfinite,
        }


def nonfinite_rows(outputs: Tensor) -> int:
    """How many examples ([count, classes] outputs) have a NaN or inf output."""
    return int((~torch.isfinite(outputs)).any(-1).sum())


def mnist_patches(cfg) -> Classification:
    d, root = cfg.data, cfg.paths.data_dir
    train = mnist.load(root, "train", d.patch, d.train_size)
    test = mnist.load(root, "test", d.patch, d.test_size)
    return Classification(train, {"test": test}, d.batch_size, cfg.loss, seed=cfg.seed)


def cifar10_images(cfg) -> Classification:
    from noneuclid.models.phresnet import IN_CHANNELS

    d = cfg.data
    splits = cifar10.load(
        cfg.paths.data_dir,
        cfg.paths.generated_dir,
        train_size=d.train_size,
        zero_channel=IN_CHANNELS.get(cfg.model.n) == 4,
    )  # n = 2, 4: RGB after a zero channel
    evals = {k: tuple(t[: d.eval_size] for t in splits[k]) for k in ("val", "test")}
    return Classification(splits["train"], evals, d.batch_size, cfg.loss, cfg.seed, d.eval_batch_size)
