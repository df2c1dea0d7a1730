"""Ganea et al.'s Table 2 task: is a node in a WordNet subtree? Binary classification of the points
of a Poincare embedding of the noun closure.

Labels: 1 for the descendants of the subtree's root in the closure (root excluded), 0 for every other
node. Split: a random 20 % of the nodes (seeded by the run's seed) is the test set. Training batches
are balanced: half positives, half negatives; an epoch is one pass over the training negatives (the
larger class), with the positives drawn again in a fresh order whenever they run out. Evaluation:
F1 of the positive class on the test set (and accuracy).
"""

from __future__ import annotations

from pathlib import Path

import torch
from torch import Tensor

from noneuclid.data import wordnet
from noneuclid.runs.lookup import finished_run, poincare_embedding
from noneuclid.train.tasks.batching import shuffled
from noneuclid.train.tasks.classification import Classification


def f1_score(pred: Tensor, y: Tensor) -> float:
    """2 TP / (2 TP + FP + FN) of the positive class (0 when there is no positive at all)."""
    tp = int((pred.bool() & y.bool()).sum())
    wrong = int((pred.bool() != y.bool()).sum())
    return 2 * tp / (2 * tp + wrong) if tp or wrong else 0.0


class SubtreeClassification(Classification):
    """Points x [nodes, dim], labels y [nodes] (0/1) and a test mask [nodes]."""

    def __init__(self, x: Tensor, y: Tensor, test: Tensor, batch_size: int, seed: int):
        super().__init__((x[~test], y[~test]), {"test": (x[test], y[test])}, batch_size,
                         "softmax_cross_entropy", seed)
        if batch_size % 2 or not bool(y[~test].any()) or bool(y[~test].all()):
            raise ValueError("balanced batches need an even data.batch_size and both classes in the training set")

    def steps_per_epoch(self) -> int:
        return -(-int((self.splits["train"][1] == 0).sum()) // (self.batch_size // 2))

    def batches(self, epoch: int):
        x, y = self.splits["train"]
        pos, neg = (y == 1).nonzero().squeeze(1), (y == 0).nonzero().squeeze(1)
        half = self.batch_size // 2
        rounds = -(-self.steps_per_epoch() * half // len(pos))  # passes over the positives this epoch
        pos_order = torch.cat([pos[shuffled(len(pos), len(pos), self.seed, epoch * 1000 + r, y.device)[0]]
                               for r in range(rounds)])
        for step, idx in enumerate(shuffled(len(neg), half, self.seed, epoch, y.device)):
            batch = torch.cat([pos_order[step * half: step * half + len(idx)], neg[idx]])
            yield x[batch], y[batch]

    @torch.no_grad()
    def evaluate(self, model, split: str = "test") -> dict:
        row = super().evaluate(model, split)
        x, y = self.splits[split]
        pred = torch.cat([model(xb).argmax(-1) for xb in x.split(self.eval_batch_size)])
        return {**row, f"{split}_f1": f1_score(pred, y)}


def embedding_overrides(cfg) -> list[str]:
    """The overrides of the Poincare-embedding run this classifier reads (lookup.poincare_embedding),
    with this run's paths."""
    d = cfg.data
    return [*poincare_embedding(cfg.profile.name, d.dim, d.hierarchy, d.embedding_seed, cfg.trainer.device,
                                d.embedding_overrides),
            f"paths.runs_dir={cfg.paths.runs_dir}", f"paths.generated_dir={cfg.paths.generated_dir}",
            f"paths.data_dir={cfg.paths.data_dir}"]


def load_points(path: Path) -> Tensor:
    """The embedding's points [nodes, dim] from its run folder's checkpoint."""
    return torch.load(path / "checkpoint.pt", map_location="cpu", weights_only=False)["model"]["weight"]


def build(cfg) -> SubtreeClassification:
    d = cfg.data
    hierarchy = wordnet.load(d.hierarchy, cfg.paths.generated_dir)
    x = load_points(finished_run(embedding_overrides(cfg), "Poincare embedding"))
    if x.shape != (hierarchy.size, d.dim):
        raise ValueError(f"the embedding has shape {tuple(x.shape)}, expected ({hierarchy.size}, {d.dim})")
    y = hierarchy.descendants(d.subtree).long()
    return SubtreeClassification(x, y, wordnet.split(hierarchy.size, cfg.seed, d.test_fraction), d.batch_size,
                                 cfg.seed)
