"""Pairs of sentences with binary labels (Ganea et al.: PREFIX-Z%, SNLI), and stacks of such runs."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor

from noneuclid.data import prefix, snli
from noneuclid.train.tasks.batching import pad, shuffled


class SentencePairs:
    """Pairs of sentences (token ids) with binary labels; cross-entropy on the model's logits;
    accuracy on dev and test (Ganea et al.: the test accuracy at the best dev accuracy is reported).

    Holds `runs` independent runs (one dataset and seed each; `stack` joins tasks of one run) whose
    batches are stacked: tokens [runs, batch, width], lengths and labels [runs, batch]. Every split
    is padded to one width (the longest sentence of all splits), so that a compiled model sees one
    shape. Losses and scores are per run. fixed_batches: the training batches are consecutive
    examples of the split, in a shuffled order each epoch (else the examples are shuffled)."""

    eval_splits = ("dev", "test")

    def __init__(self, splits: dict, vocab_size: int, batch_size: int, seed: int, fixed_batches: bool = False):
        width = max(len(s) for a, b, _ in splits.values() for s in (*a, *b))
        self.splits = {
            name: tuple(t[None] for t in (*pad(a, width), *pad(b, width), torch.tensor(y)))
            for name, (a, b, y) in splits.items()
        }  # each [runs = 1, count, ...]
        self.batch_size, self.seeds, self.runs, self.fixed_batches = batch_size, [seed], 1, fixed_batches
        self.model_kwargs = {"vocab_size": vocab_size}

    def to(self, device, dtype) -> SentencePairs:
        self.splits = {k: tuple(t.to(device) for t in v) for k, v in self.splits.items()}
        return self

    def steps_per_epoch(self) -> int:
        return -(-self.splits["train"][-1].shape[1] // self.batch_size)

    def batches(self, epoch: int):
        train = self.splits["train"]
        orders = [
            shuffled(train[-1].shape[1], self.batch_size, seed, epoch, train[-1].device, self.fixed_batches)
            for seed in self.seeds
        ]
        run = torch.arange(self.runs, device=train[-1].device)[:, None]
        for idx in zip(*orders):  # one index set per run, [runs, batch]
            idx = torch.stack(idx)
            yield tuple(t[run, idx] for t in train)

    def loss(self, model, batch) -> tuple[Tensor, list[float]]:
        """The sum over runs of each run's mean loss (its gradient is each run's own), and each
        run's sum of per-example losses."""
        logits, y = model(*batch[:4]), batch[4]  # [runs, batch, classes], [runs, batch]
        nll = F.cross_entropy(logits.flatten(0, 1), y.flatten(), reduction="none").view_as(y)
        return nll.mean(1).sum(), nll.detach().sum(1).tolist()

    def finish_loss(self, mean_term: float) -> float:
        return mean_term

    @torch.no_grad()
    def evaluate(self, model, split: str, batch_size: int = 2000) -> list[dict]:
        """Per run: loss, accuracy, non-finite outputs, and the share of sentence states within
        1e-3 of the ball's boundary per encoder (a saturated encoder cannot learn)."""
        data = self.splits[split]
        n = data[-1].shape[1]
        total, correct = torch.zeros(self.runs, dtype=torch.float64), torch.zeros(self.runs)
        nonfinite, saturated = torch.zeros(self.runs), torch.zeros(self.runs, 2)
        for start in range(0, n, batch_size):
            t1, l1, t2, l2, y = (t[:, start : start + batch_size] for t in data)
            s1, s2 = model.encode(t1, l1, t2, l2)  # [runs, batch, dim] each
            logits = model.classify(s1, s2)
            total += F.cross_entropy(logits.flatten(0, 1), y.flatten(), reduction="none").view_as(y).sum(1).cpu()
            correct += (logits.argmax(-1) == y).sum(1).cpu()
            nonfinite += (~torch.isfinite(logits)).any(-1).sum(1).cpu()
            if model.space.hyperbolic:
                states = torch.stack((s1, s2), 1)  # [runs, 2, batch, dim]
                saturated += model.space.boundary_share(states).cpu() * states.shape[-2]
        rows = [
            {
                f"{split}_loss": float(total[r]) / n,
                f"{split}_accuracy": float(correct[r]) / n,
                f"{split}_nonfinite": int(nonfinite[r]),
            }
            for r in range(self.runs)
        ]
        if model.space.hyperbolic:
            for r, row in enumerate(rows):
                row.update({f"{split}_boundary_share_s{k + 1}": float(saturated[r, k]) / n for k in range(2)})
        return rows


def stack(run_tasks: list) -> SentencePairs:
    """One task that trains the runs of `run_tasks` (sentence-pair tasks of one run each, same
    vocabulary, batch size and split sizes) side by side."""
    first = run_tasks[0]
    if any(t.model_kwargs != first.model_kwargs for t in run_tasks):
        raise ValueError(
            "runs of one stack need the same vocabulary (PREFIX datasets stack; SNLI stacks only with SNLI)"
        )
    if any(t.fixed_batches != first.fixed_batches for t in run_tasks):
        raise ValueError("runs of one stack need the same data.order")
    for name in first.splits:
        sizes = {t.splits[name][-1].shape[1] for t in run_tasks}
        if len(sizes) > 1:
            raise ValueError(f"runs of one stack need {name} splits of one size, got {sorted(sizes)}")
    width = max(t.splits["train"][0].shape[-1] for t in run_tasks)
    joined = SentencePairs.__new__(SentencePairs)
    joined.splits = {
        name: tuple(torch.cat([_widen(t.splits[name][i], width) for t in run_tasks]) for i in range(5))
        for name in first.splits
    }
    joined.batch_size, joined.model_kwargs, joined.fixed_batches = (
        first.batch_size,
        dict(first.model_kwargs),
        first.fixed_batches,
    )
    joined.seeds = [seed for t in run_tasks for seed in t.seeds]
    joined.runs = len(joined.seeds)
    return joined


def _widen(t: Tensor, width: int) -> Tensor:
    """Token ids [runs, count, w] padded with 0 to `width`; other tensors unchanged."""
    return F.pad(t, (0, width - t.shape[-1])) if t.dim() == 3 else t


def sentence_pair_splits(cfg) -> tuple[dict, int]:
    """(splits of token ids, vocabulary size) for data=prefix* or data=snli."""
    d = cfg.data
    if (
        d.name == "prefix"
    ):  # data.order=original: the training pairs in the authors' order (dev and test are only evaluated)
        paired = _original_order(d)
        splits = {
            s: prefix.load(cfg.paths.generated_dir, d.percent, s, d.get(f"{s}_size"), paired and s == "train")
            for s in ("train", "dev", "test")
        }
        return splits, prefix.VOCAB + 1
    sources = {"train": d.get("train_split") or "train", "dev": "dev", "test": "test"}
    splits = {
        s: tuple(part[: d.get(f"{s}_size")] for part in snli.load(cfg.paths.data_dir, source))
        for s, source in sources.items()
    }
    words = sorted({w for sents in splits["train"][:2] for s in sents for w in s})
    index = {w: i + 1 for i, w in enumerate(words)}  # 0: padding and unknown words
    ids = {
        s: ([[index.get(w, 0) for w in x] for x in a], [[index.get(w, 0) for w in x] for x in b], y)
        for s, (a, b, y) in splits.items()
    }
    return ids, len(words) + 1


def _original_order(d) -> bool:
    """data.order: 'shuffled' (examples shuffled, batches drawn anew each epoch) or 'original' (Ganea et
    al.'s code: PREFIX pairs of one first sentence side by side, fixed batches of consecutive
    examples, their order shuffled each epoch)."""
    order = d.get("order", "shuffled")  # saved configs from before data.order existed have none: shuffled
    if order not in ("shuffled", "original"):
        raise ValueError(f"data.order must be 'shuffled' or 'original', got {order!r}")
    return order == "original"


def build(cfg) -> SentencePairs:
    splits, vocab = sentence_pair_splits(cfg)
    return SentencePairs(splits, vocab, cfg.data.batch_size, cfg.seed, _original_order(cfg.data))
