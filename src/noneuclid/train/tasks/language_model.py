"""Next-token language modelling on a token stream (PHYDI's PHTransformers on WikiText-2)."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor

from noneuclid.data import wikitext2


class LanguageModel:
    """A token stream cut into columns, read in consecutive windows of bptt tokens (PyTorch's
    transformer tutorial, which PHYDI follows): no shuffling; the loss is the mean next-token
    cross-entropy; evaluation gives loss and perplexity exp(loss) on the validation and test streams.
    The model maps token ids [batch, seq] to logits [batch, seq, vocab]."""

    eval_splits = ("val", "test")

    def __init__(self, corpus: wikitext2.Corpus, batch_size: int, bptt: int, eval_batch_size: int):
        self.streams = {
            "train": wikitext2.batchify(corpus.train, batch_size),  # [rows, columns]
            "val": wikitext2.batchify(corpus.valid, eval_batch_size),
            "test": wikitext2.batchify(corpus.test, eval_batch_size),
        }
        self.bptt = bptt
        self.model_kwargs = {"vocab_size": corpus.vocab_size}
        # the perplexity of knowing only the training tokens' word frequencies, on the tokens evaluated
        self.unigram = {
            s: wikitext2.unigram_perplexity(
                self.streams["train"].reshape(-1), self.streams[s][1:].reshape(-1), corpus.words
            )
            for s in self.eval_splits
        }

    def to(self, device, dtype) -> LanguageModel:
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
        return {
            f"{split}_loss": loss,
            f"{split}_perplexity": math.exp(min(loss, 700.0)),
            f"{split}_unigram_perplexity": self.unigram[split],
            f"{split}_nonfinite": nonfinite,
        }


def build(cfg) -> LanguageModel:
    d = cfg.data
    corpus = wikitext2.load(cfg.paths.data_dir, multiple_of=cfg.model.n, max_tokens=d.vocab_size)
    corpus = wikitext2.truncated(corpus, d.train_tokens, d.eval_tokens)
    return LanguageModel(corpus, d.batch_size, d.bptt, d.eval_batch_size)
