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

from noneuclid.data import cifar10, mnist, prefix, snli, wikitext2, wordnet
from noneuclid.geometry import poincare as pb
from noneuclid.train.losses import LOSSES


def _shuffled(count: int, batch_size: int, seed: int, epoch: int, device, fixed: bool = False):
    """The epoch's mini-batch index sets: the examples shuffled, or with `fixed` the batches of
    consecutive examples in a shuffled order, the last one filled up from the first examples (Ganea et
    al.'s code, data.order=original: its next_batch wraps around; every batch is full, so that stacked
    runs, whose batch orders differ, stack). The order depends only on (seed, epoch), so a resumed run
    sees exactly the batches an uninterrupted one would."""
    g = torch.Generator().manual_seed(seed * 100_003 + epoch)
    if not fixed:
        return torch.randperm(count, generator=g).to(device).split(batch_size)
    batches = (torch.arange(-(-count // batch_size) * batch_size, device=device) % count).split(batch_size)
    return [batches[i] for i in torch.randperm(len(batches), generator=g).tolist()]


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


def _pad(sentences: list[list[int]], width: int = 0) -> tuple[Tensor, Tensor]:
    """Token ids [count, max(width, longest)] (0 = padding) and lengths [count]; an empty sentence
    becomes one unknown token (id 0), so every sequence has a last state to read."""
    sentences = [s or [0] for s in sentences]
    lengths = torch.tensor([len(s) for s in sentences])
    tokens = torch.zeros(len(sentences), max(width, int(lengths.max())), dtype=torch.long)
    for i, s in enumerate(sentences):
        tokens[i, : len(s)] = torch.tensor(s)
    return tokens, lengths


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
        self.splits = {name: tuple(t[None] for t in (*_pad(a, width), *_pad(b, width), torch.tensor(y)))
                       for name, (a, b, y) in splits.items()}  # each [runs = 1, count, ...]
        self.batch_size, self.seeds, self.runs, self.fixed_batches = batch_size, [seed], 1, fixed_batches
        self.model_kwargs = {"vocab_size": vocab_size}

    def to(self, device, dtype) -> "SentencePairs":
        self.splits = {k: tuple(t.to(device) for t in v) for k, v in self.splits.items()}
        return self

    def steps_per_epoch(self) -> int:
        return -(-self.splits["train"][-1].shape[1] // self.batch_size)

    def batches(self, epoch: int):
        train = self.splits["train"]
        orders = [_shuffled(train[-1].shape[1], self.batch_size, seed, epoch, train[-1].device, self.fixed_batches)
                  for seed in self.seeds]
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
            t1, l1, t2, l2, y = (t[:, start: start + batch_size] for t in data)
            s1, s2 = model.encode(t1, l1, t2, l2)  # [runs, batch, dim] each
            logits = model.classify(s1, s2)
            total += F.cross_entropy(logits.flatten(0, 1), y.flatten(), reduction="none").view_as(y).sum(1).cpu()
            correct += (logits.argmax(-1) == y).sum(1).cpu()
            nonfinite += (~torch.isfinite(logits)).any(-1).sum(1).cpu()
            if model.space.hyperbolic:
                states = torch.stack((s1, s2), 1)  # [runs, 2, batch, dim]
                saturated += pb.boundary_share(states, model.space.c).cpu() * states.shape[-2]
        rows = [{f"{split}_loss": float(total[r]) / n, f"{split}_accuracy": float(correct[r]) / n,
                 f"{split}_nonfinite": int(nonfinite[r])} for r in range(self.runs)]
        if model.space.hyperbolic:
            for r, row in enumerate(rows):
                row.update({f"{split}_boundary_share_s{k + 1}": float(saturated[r, k]) / n for k in range(2)})
        return rows


def stack(run_tasks: list) -> SentencePairs:
    """One task that trains the runs of `run_tasks` (sentence-pair tasks of one run each, same
    vocabulary, batch size and split sizes) side by side."""
    first = run_tasks[0]
    if not all(isinstance(t, SentencePairs) for t in run_tasks):
        raise ValueError("only sentence-pair tasks (data=prefix*, snli) can be stacked")
    if any(t.model_kwargs != first.model_kwargs for t in run_tasks):
        raise ValueError("runs of one stack need the same vocabulary (PREFIX datasets stack; SNLI stacks only with SNLI)")
    if any(t.fixed_batches != first.fixed_batches for t in run_tasks):
        raise ValueError("runs of one stack need the same data.order")
    for name in first.splits:
        sizes = {t.splits[name][-1].shape[1] for t in run_tasks}
        if len(sizes) > 1:
            raise ValueError(f"runs of one stack need {name} splits of one size, got {sorted(sizes)}")
    width = max(t.splits["train"][0].shape[-1] for t in run_tasks)
    joined = SentencePairs.__new__(SentencePairs)
    joined.splits = {name: tuple(torch.cat([_widen(t.splits[name][i], width) for t in run_tasks]) for i in range(5))
                     for name in first.splits}
    joined.batch_size, joined.model_kwargs, joined.fixed_batches = first.batch_size, dict(first.model_kwargs), first.fixed_batches
    joined.seeds = [seed for t in run_tasks for seed in t.seeds]
    joined.runs = len(joined.seeds)
    return joined


def _widen(t: Tensor, width: int) -> Tensor:
    """Token ids [runs, count, w] padded with 0 to `width`; other tensors unchanged."""
    return F.pad(t, (0, width - t.shape[-1])) if t.dim() == 3 else t


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
    if d.name == "prefix":  # data.order=original: the training pairs in the authors' order (dev and test are only evaluated)
        paired = _original_order(d)
        splits = {s: prefix.load(cfg.paths.generated_dir, d.percent, s, d.get(f"{s}_size"), paired and s == "train")
                  for s in ("train", "dev", "test")}
        return splits, prefix.VOCAB + 1
    sources = {"train": d.get("train_split") or "train", "dev": "dev", "test": "test"}
    splits = {s: tuple(part[: d.get(f"{s}_size")] for part in snli.load(cfg.paths.data_dir, source))
              for s, source in sources.items()}
    words = sorted({w for sents in splits["train"][:2] for s in sents for w in s})
    index = {w: i + 1 for i, w in enumerate(words)}  # 0: padding and unknown words
    ids = {s: ([[index.get(w, 0) for w in x] for x in a], [[index.get(w, 0) for w in x] for x in b], y)
           for s, (a, b, y) in splits.items()}
    return ids, len(words) + 1


def _mnist_patches(cfg) -> Classification:
    d, root = cfg.data, cfg.paths.data_dir
    train = mnist.load(root, "train", d.patch, d.train_size)
    test = mnist.load(root, "test", d.patch, d.test_size)
    return Classification(train, {"test": test}, d.batch_size, cfg.loss, seed=cfg.seed)


def _original_order(d) -> bool:
    """data.order: 'shuffled' (examples shuffled, batches drawn anew each epoch) or 'original' (Ganea et
    al.'s code: PREFIX pairs of one first sentence side by side, fixed batches of consecutive
    examples, their order shuffled each epoch)."""
    order = d.get("order", "shuffled")  # saved configs from before data.order existed have none: shuffled
    if order not in ("shuffled", "original"):
        raise ValueError(f"data.order must be 'shuffled' or 'original', got {order!r}")
    return order == "original"


def _sentence_pairs(cfg) -> SentencePairs:
    splits, vocab = _sentence_pair_splits(cfg)
    return SentencePairs(splits, vocab, cfg.data.batch_size, cfg.seed, _original_order(cfg.data))


def _cifar10(cfg) -> Classification:
    from noneuclid.models.phresnet import IN_CHANNELS
    d = cfg.data
    splits = cifar10.load(cfg.paths.data_dir, cfg.paths.generated_dir, train_size=d.train_size,
                          zero_channel=IN_CHANNELS.get(cfg.model.n) == 4)  # n = 2, 4: RGB after a zero channel
    evals = {k: tuple(t[: d.eval_size] for t in splits[k]) for k in ("val", "test")}
    return Classification(splits["train"], evals, d.batch_size, cfg.loss, cfg.seed, d.eval_batch_size)


def _wordnet_nouns(cfg):
    """Poincare embeddings of a hierarchy's closure."""
    from noneuclid.train import hypernymy
    return hypernymy.build(cfg, wordnet.load(cfg.data.hierarchy, cfg.paths.generated_dir))


def _wordnet_subtree(cfg):
    """Ganea et al.'s Table 2: classify the points of those embeddings."""
    from noneuclid.train import subtrees
    return subtrees.build(cfg)


def _wikitext2(cfg) -> LanguageModel:
    d = cfg.data
    corpus = wikitext2.load(cfg.paths.data_dir, multiple_of=cfg.model.n, max_tokens=d.vocab_size)
    corpus = wikitext2.truncated(corpus, d.train_tokens, d.eval_tokens)
    return LanguageModel(corpus, d.batch_size, d.bptt, d.eval_batch_size)


TASKS = {"mnist_patches": _mnist_patches, "prefix": _sentence_pairs, "snli": _sentence_pairs, "cifar10": _cifar10,
         "wordnet_nouns": _wordnet_nouns, "wordnet_subtree": _wordnet_subtree, "wikitext2": _wikitext2}


def build(cfg):
    """The task of cfg.data (with cfg.loss and cfg.seed): TASKS[cfg.data.name](cfg)."""
    if cfg.data.name not in TASKS:
        raise ValueError(f"unknown data {cfg.data.name!r}: choose data= one of {sorted(TASKS)} "
                         f"(prefix: data=prefix10|30|50)")
    return TASKS[cfg.data.name](cfg)
