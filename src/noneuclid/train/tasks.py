"""What the trainer trains: a task owns the data tensors, cuts batches and scores a model.

Every task has: to(device, dtype), steps_per_epoch(), batches(epoch), loss(model, batch) ->
(loss, sum of per-example terms), finish_loss(mean term), evaluate(model, split), eval_splits and
model_kwargs (sizes the model takes from the data, e.g. the vocabulary).
"""

from __future__ import annotations

import math
from collections import Counter

import torch
import torch.nn.functional as F
from torch import Tensor

from noneuclid.data import cifar10, mnist, prefix, snli, wikitext2
from noneuclid.train.losses import LOSSES


def _shuffled(count: int, batch_size: int, seed: int, epoch: int, device):
    """The epoch's mini-batch index sets; the order depends only on (seed, epoch), so a resumed run
    sees exactly the batches an uninterrupted one would."""
    g = torch.Generator().manual_seed(seed * 100_003 + epoch)
    return torch.randperm(count, generator=g).to(device).split(batch_size)


class Classification:
    """Inputs x [count, ...] and integer labels y [count]; batches reshuffled every epoch; evaluated
    on each split of `evals` ({"test": (x, y)} for MNIST; {"val": ..., "test": ...} for CIFAR-10)."""

    model_kwargs: dict = {}

    def __init__(self, train: tuple[Tensor, Tensor], evals: dict[str, tuple[Tensor, Tensor]], batch_size: int,
                 loss: str, seed: int, eval_batch_size: int = 4096):
        if loss not in LOSSES:
            raise ValueError(f"unknown loss {loss!r}: choose loss= one of {sorted(LOSSES)}")
        self.splits = {"train": train, **evals}
        self.eval_splits = tuple(evals)
        self.batch_size, self.loss_fn, self.seed = batch_size, LOSSES[loss], seed
        self.eval_batch_size = eval_batch_size

    def to(self, device, dtype) -> "Classification":
        self.splits = {k: (x.to(device, dtype), y.to(device)) for k, (x, y) in self.splits.items()}
        return self

    def steps_per_epoch(self) -> int:
        return -(-len(self.splits["train"][1]) // self.batch_size)

    def batches(self, epoch: int):
        x, y = self.splits["train"]
        for idx in _shuffled(len(y), self.batch_size, self.seed, epoch, y.device):
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
        """Loss (over the whole split, same normalisation as training), accuracy and the most
        predicted class with its share (a collapsed model predicts one class for everything)."""
        x, y = self.splits[split]
        total, preds, nonfinite = 0.0, [], 0
        for xb, yb in zip(x.split(self.eval_batch_size), y.split(self.eval_batch_size)):
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


class LanguageModel:
    """A token stream cut into columns, read in consecutive windows of bptt tokens (PyTorch's
    transformer tutorial, which PHYDI follows): no shuffling; the loss is the mean next-token
    cross-entropy; evaluation gives loss and perplexity exp(loss) on the validation and test streams.
    The model maps token ids [batch, seq] to logits [batch, seq, vocab]."""

    eval_splits = ("val", "test")

    def __init__(self, corpus: wikitext2.Corpus, batch_size: int, bptt: int, eval_batch_size: int):
        self.streams = {"train": wikitext2.batchify(corpus.train, batch_size),  # [rows, columns]
                        "val": wikitext2.batchify(corpus.valid, eval_batch_size),
                        "test": wikitext2.batchify(corpus.test, eval_batch_size)}
        self.bptt = bptt
        self.model_kwargs = {"vocab_size": corpus.vocab_size}
        # the perplexity of knowing only the training tokens' word frequencies, on the tokens evaluated
        self.unigram = {s: wikitext2.unigram_perplexity(self.streams["train"].reshape(-1), self.streams[s][1:].reshape(-1),
                                                        corpus.words) for s in self.eval_splits}

    def to(self, device, dtype) -> "LanguageModel":
        self.streams = {k: v.to(device) for k, v in self.streams.items()}
        return self

    def steps_per_epoch(self) -> int:
        return len(range(0, len(self.streams["train"]) - 1, self.bptt))

    def _windows(self, split: str):
        source = self.streams[split]
        for i in range(0, len(source) - 1, self.bptt):
            yield wikitext2.get_batch(source, i, self.bptt)  # input [L, columns], target [L * columns]

    def batches(self, epoch: int):
        return self._windows("train")

    @staticmethod
    def _token_losses(model, batch) -> Tensor:
        inputs, target = batch
        logits = model(inputs.T).transpose(0, 1)  # [L, columns, vocab], the order of target
        return F.cross_entropy(logits.reshape(len(target), -1), target, reduction="none")

    def loss(self, model, batch) -> tuple[Tensor, float]:
        nll = self._token_losses(model, batch)
        return nll.mean(), float(nll.detach().sum())

    def finish_loss(self, mean_term: float) -> float:
        return mean_term

    @torch.no_grad()
    def evaluate(self, model, split: str) -> dict:
        total, count, nonfinite = 0.0, 0, 0
        for batch in self._windows(split):
            nll = self._token_losses(model, batch)
            total, count = total + float(nll.sum()), count + len(nll)
            nonfinite += int((~torch.isfinite(nll)).sum())
        loss = total / count
        return {f"{split}_loss": loss, f"{split}_perplexity": math.exp(min(loss, 700.0)),
                f"{split}_unigram_perplexity": self.unigram[split], f"{split}_nonfinite": nonfinite}


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
        return Classification(train, {"test": test}, d.batch_size, cfg.loss, seed=cfg.seed)
    if d.name in ("prefix", "snli"):
        splits, vocab = _sentence_pair_splits(cfg)
        if d.name == "snli" and d.get("train_size"):
            splits["train"] = tuple(x[: d.train_size] for x in splits["train"])
        return SentencePairs(splits, vocab, d.batch_size, cfg.seed)
    if d.name == "cifar10":
        from noneuclid.models.phresnet import IN_CHANNELS
        splits = cifar10.load(cfg.paths.data_dir, cfg.paths.generated_dir, train_size=d.train_size,
                              zero_channel=IN_CHANNELS.get(cfg.model.n) == 4)  # n = 2, 4: RGB after a zero channel
        evals = {k: tuple(t[: d.eval_size] for t in splits[k]) for k in ("val", "test")}
        return Classification(splits["train"], evals, d.batch_size, cfg.loss, cfg.seed, d.eval_batch_size)
    if d.name == "wikitext2":
        corpus = wikitext2.load(cfg.paths.data_dir, multiple_of=cfg.model.n, max_tokens=d.vocab_size)
        corpus = wikitext2.truncated(corpus, d.train_tokens, d.eval_tokens)
        return LanguageModel(corpus, d.batch_size, d.bptt, d.eval_batch_size)
    raise ValueError(f"unknown data {d.name!r}: choose data=mnist_patches, prefix10|30|50, snli, cifar10 "
                     f"or wikitext2")
