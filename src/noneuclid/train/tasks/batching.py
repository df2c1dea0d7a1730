"""Batches of a task: the epoch's shuffled index sets and padded token ids."""

from __future__ import annotations

import torch
from torch import Tensor


def shuffled(count: int, batch_size: int, seed: int, epoch: int, device, fixed: bool = False):
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


def pad(sentences: list[list[int]], width: int = 0) -> tuple[Tensor, Tensor]:
    """Token ids [count, max(width, longest)] (0 = padding) and lengths [count]; an empty sentence
    becomes one unknown token (id 0), so every sequence has a last state to read."""
    sentences = [s or [0] for s in sentences]
    lengths = torch.tensor([len(s) for s in sentences])
    tokens = torch.zeros(len(sentences), max(width, int(lengths.max())), dtype=torch.long)
    for i, s in enumerate(sentences):
        tokens[i, : len(s)] = torch.tensor(s)
    return tokens, lengths
