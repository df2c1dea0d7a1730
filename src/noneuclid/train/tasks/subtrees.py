"""Ganea et al.'s Table 2 task: is a node in a WordNet subtree? Binary classification of the points
of a Poincare embedding of the noun closure.

Labels: 1 for the descendants of the subtree's root in the closure (root excluded), 0 for every other
node. Split: a random 20 % of the nodes (seeded by the run's seed) is the test set. Training batches are
balanced, half positives and half negatives, an epoch one pass over the negatives with the positives
drawn again in a fresh order whenever they run out; or, with data.natural_mix, shuffled batches of
the training split as it is (a subtree is 0.5-20 % of the nouns). Evaluation: F1 of
the positive class on the test set (and accuracy), deciding by the larger output (`test_f1`) and at
the training split's prior (`test_f1_prior`): a model trained on batches whose positive share is b
has learnt the prior log-odds logit(b); it decides at the split's prior share p after adding
logit(p) - logit(b) to the positive class's output (zero for the natural mix).
"""

from __future__ import annotations

import math
from pathlib import Path

import torch
from torch import Tensor
from torch.nn.utils.rnn import pad_sequence

from noneuclid.data import wordnet
from noneuclid.runs.lookup import finished_run, poincare_embedding
from noneuclid.train.stacking import UnequalSteps
from noneuclid.train.tasks.batching import shuffled
from noneuclid.train.tasks.classification import Classification


def f1_score(pred: Tensor, y: Tensor) -> float:
    """2 TP / (2 TP + FP + FN) of the positive class (0 when there is no positive at all)."""
    tp = int((pred.bool() & y.bool()).sum())
    wrong = int((pred.bool() != y.bool()).sum())
    return 2 * tp / (2 * tp + wrong) if tp or wrong else 0.0


class SubtreeClassification(Classification):
    """Points x [nodes, dim], labels y [nodes] (0/1) and a test mask [nodes]; `provenance` (the
    embedding run it read) and the chance level of the training loss (`chance_loss`) go into the run's
    summary."""

    def __init__(
        self,
        x: Tensor,
        y: Tensor,
        test: Tensor,
        batch_size: int,
        seed: int,
        natural_mix: bool = False,
        provenance: dict | None = None,
    ):
        super().__init__((x[~test], y[~test]), {"test": (x[test], y[test])}, batch_size, "softmax_cross_entropy", seed)
        train = y[~test]
        if not bool(train.any()) or bool(train.all()):
            raise ValueError("the training split needs both classes: choose another data.subtree or seed")
        if not natural_mix and batch_size % 2:
            raise ValueError("balanced batches need an even data.batch_size")
        prior = float(train.double().mean())
        share = prior if natural_mix else 0.5  # of positives in the training batches
        self.natural_mix, self.prior_shift = natural_mix, _logit(prior) - _logit(share)
        self.provenance = {**(provenance or {}), "chance_train_loss": chance_loss(share)}

    def steps_per_epoch(self) -> int:
        if self.natural_mix:
            return super().steps_per_epoch()
        return -(-int((self.splits["train"][1] == 0).sum()) // (self.batch_size // 2))

    def batches(self, epoch: int):
        """Classification's batches, the epoch's examples gathered in one call: a point is a few
        numbers, and one pass over the split in random order is several times faster than one gather
        per batch (which leaves the caches cold for each)."""
        x, y = self.splits["train"]
        idx = list(self.batch_indices(epoch))
        order, sizes = torch.cat(idx), [len(i) for i in idx]
        yield from zip(x[order].split(sizes), y[order].split(sizes))

    def batch_indices(self, epoch: int):
        """The epoch's batches as index sets into the training split: Classification's for the natural
        mix; else balanced, the negatives' half one pass over them, the positives' half drawn again in
        a fresh order whenever they run out."""
        if self.natural_mix:
            yield from super().batch_indices(epoch)
            return
        y = self.splits["train"][1]
        pos, neg = (y == 1).nonzero().squeeze(1), (y == 0).nonzero().squeeze(1)
        half = self.batch_size // 2
        rounds = -(-self.steps_per_epoch() * half // len(pos))  # passes over the positives this epoch
        pos_order = torch.cat(
            [pos[shuffled(len(pos), len(pos), self.seed, epoch * 1000 + r, y.device)[0]] for r in range(rounds)]
        )
        for step, idx in enumerate(shuffled(len(neg), half, self.seed, epoch, y.device)):
            yield torch.cat([pos_order[step * half : step * half + len(idx)], neg[idx]])

    def scores(self, split: str, outputs: list[Tensor]) -> dict:
        """Classification's scores and the positive class's F1, deciding by the larger output and at
        the split's prior, from the outputs on the split's batches (each [batch, 2])."""
        y, out = self.splits[split][1], torch.cat(outputs)  # [nodes], [nodes, 2]
        at_prior = out[:, 1] + self.prior_shift > out[:, 0]
        return {
            **super().scores(split, outputs),
            f"{split}_f1": f1_score(out.argmax(-1), y),
            f"{split}_f1_prior": f1_score(at_prior, y),
        }


class SubtreeRuns:
    """Runs of SubtreeClassification (`stack`) trained side by side: step k joins each run's k-th
    batch of its own epoch into points x [runs, batch, dim], labels y [runs, batch] and a mask
    [runs, batch] (0 where a run's batch is shorter than the longest and padded, as the last balanced
    batch of a run with fewer negatives); each run's loss is the mean over its own batch, its scores
    (test_f1, test_f1_prior at its own prior) and provenance its own task's."""

    def __init__(self, run_tasks: list[SubtreeClassification]):
        self.tasks, self.runs, first = run_tasks, len(run_tasks), run_tasks[0]
        self.eval_splits, self.model_kwargs, self.loss_fn = first.eval_splits, {}, first.loss_fn

    def to(self, device, dtype) -> SubtreeRuns:
        for task in self.tasks:
            task.to(device, dtype)
        return self

    def steps_per_epoch(self) -> int:
        return self.tasks[0].steps_per_epoch()

    def batches(self, epoch: int):
        for parts in zip(*(task.batches(epoch) for task in self.tasks), strict=True):
            yield _padded(parts)

    def examples(self, batch) -> Tensor:
        """How many examples of each run the batch holds, [runs] (on the CPU)."""
        return batch[2].sum(1).cpu()

    def loss(self, model, batch) -> tuple[Tensor, list[float]]:
        """The sum over runs of each run's loss on its batch (its gradient is each run's own), and each
        run's sum of per-example terms."""
        x, y, mask = batch
        terms = self.loss_fn.per_example(model(x).flatten(0, 1), y.flatten()).view_as(y) * mask
        return self.loss_fn.finish(terms.sum(1) / mask.sum(1)).sum(), terms.detach().sum(1).tolist()

    def finish_loss(self, mean_term: float) -> float:
        return self.tasks[0].finish_loss(mean_term)

    @torch.no_grad()
    def evaluate(self, model, split: str = "test") -> list[dict]:
        """Each run's scores on its own split (the runs' splits have one size), in one pass of the model."""
        size = self.tasks[0].eval_batch_size
        x = torch.stack([task.splits[split][0] for task in self.tasks])  # [runs, nodes, dim]
        outputs = [model(xb) for xb in x.split(size, dim=1)]  # each [runs, batch, 2]
        return [task.scores(split, [out[r] for out in outputs]) for r, task in enumerate(self.tasks)]


def _padded(parts: tuple) -> tuple[Tensor, Tensor, Tensor]:
    """The runs' batches ((x [batch_r, dim], y [batch_r]) each) as x [runs, width, dim], y [runs, width]
    and mask [runs, width] (1 for an example, 0 for padding), width the longest batch."""
    xs, ys = zip(*parts)
    x, y = pad_sequence(xs, batch_first=True), pad_sequence(ys, batch_first=True)
    lengths = torch.tensor([len(yr) for yr in ys], device=y.device)
    mask = (torch.arange(y.shape[1], device=y.device) < lengths[:, None]).to(x.dtype)
    return x, y, mask


def stack(run_tasks: list[SubtreeClassification]) -> SubtreeRuns:
    """One task that trains the runs of `run_tasks` side by side. Their batch size and batching
    (data.natural_mix) must agree; a stack's epoch is one step count, so runs whose epochs take
    different numbers of steps (balanced batches: one per half batch of the run's training negatives,
    which differ by subtree and seed) are refused with UnequalSteps, which names the groups of equal
    steps (train/loop.py trains each group as its own stack)."""
    first = run_tasks[0]
    for what, value in (
        ("data.batch_size", lambda t: t.batch_size),
        ("data.natural_mix", lambda t: t.natural_mix),
        ("data.dim", lambda t: t.splits["train"][0].shape[-1]),
    ):
        if len({value(task) for task in run_tasks}) > 1:
            raise ValueError(f"runs of one stack need the same {what}")
    for split in first.splits:
        if len({len(task.splits[split][1]) for task in run_tasks}) > 1:
            raise ValueError(f"runs of one stack need {split} splits of one size (the same data.test_fraction)")
    steps = [task.steps_per_epoch() for task in run_tasks]
    if len(set(steps)) > 1:
        raise UnequalSteps(steps)
    return SubtreeRuns(run_tasks)


def chance_loss(share: float) -> float:
    """The cross-entropy of the best constant prediction on batches whose positive share is `share`,
    -share ln share - (1 - share) ln(1 - share) (ln 2 for balanced batches): a classifier whose training
    loss ends at or above it has learnt nothing."""
    return -share * math.log(share) - (1 - share) * math.log(1 - share)


def _logit(p: float) -> float:
    return math.log(p / (1 - p))


def embedding_overrides(cfg) -> list[str]:
    """The overrides of the Poincare-embedding run this classifier reads (lookup.poincare_embedding),
    with this run's paths."""
    d = cfg.data
    return [
        *poincare_embedding(cfg.profile.name, d.dim, d.hierarchy, d.embedding_seed, d.embedding_overrides),
        f"paths.runs_dir={cfg.paths.runs_dir}",
        f"paths.generated_dir={cfg.paths.generated_dir}",
        f"paths.data_dir={cfg.paths.data_dir}",
    ]


def load_points(path: Path) -> Tensor:
    """The embedding's points [nodes, dim] from its run folder's checkpoint."""
    return torch.load(path / "checkpoint.pt", map_location="cpu", weights_only=False)["model"]["weight"]


def build(cfg) -> SubtreeClassification:
    d = cfg.data
    hierarchy = wordnet.load(d.hierarchy, cfg.paths.generated_dir)
    embedding = finished_run(embedding_overrides(cfg), "Poincare embedding")
    x = load_points(embedding)
    if x.shape != (hierarchy.size, d.dim):
        raise ValueError(f"the embedding has shape {tuple(x.shape)}, expected ({hierarchy.size}, {d.dim})")
    y = hierarchy.descendants(d.subtree).long()
    return SubtreeClassification(
        x,
        y,
        wordnet.split(hierarchy.size, cfg.seed, d.test_fraction),
        d.batch_size,
        cfg.seed,
        bool(d.natural_mix),
        {"embedding_run": embedding.name},
    )
