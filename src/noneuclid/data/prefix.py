"""PREFIX-Z% (Ganea et al. 2018): is the second sentence a noisy prefix of the first, or random?

Vocabulary: word ids 1..100 (0 is padding). For each first sentence s1:
    L2 ~ U{1..20},  L1 = L2 + U{0..20 - L2},  s1 = L1 random words (its first L2 are the prefix);
    positive s2 = the prefix with floor(Z/100 * L2) positions (drawn without replacement)
                  replaced by random words, label 1;
    negative s2 = L2 random words, label 0.
Each s1 gives one positive and one negative pair; the pairs are then shuffled, or with paired=True
left in that order, as the authors' prefix_dataset.py writes them (their training then takes fixed
batches of consecutive pairs: see data.order). Deterministic in (percent, size, seed): both orders
hold the same examples. Splits are written once as TSV files and reused.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from noneuclid.data.files import temporary_sibling

VOCAB = 100  # word ids 1..VOCAB
MAX_LEN = 20
# The paper's split sizes; each split has its own seed so that train, dev and test never coincide.
SPLITS = {"train": (500_000, 1), "dev": (10_000, 2), "test": (10_000, 3)}


def make_split(
    percent: int, size: int, seed: int, paired: bool = False
) -> tuple[list[list[int]], list[list[int]], list[int]]:
    """`size` examples (size must be even) as (first sentences, second sentences, labels); shuffled,
    or with paired=True each first sentence's positive and negative pair side by side."""
    if size % 2:
        raise ValueError(f"PREFIX splits are balanced pairs: size must be even, got {size}")
    if not 0 <= percent <= 100:
        raise ValueError(f"percent must be in [0, 100], got {percent}")
    rng = np.random.default_rng([seed, percent])
    first, second, labels = [], [], []
    for _ in range(size // 2):
        l2 = int(rng.integers(1, MAX_LEN + 1))
        l1 = l2 + int(rng.integers(0, MAX_LEN - l2 + 1))
        s1 = rng.integers(1, VOCAB + 1, l1)
        noisy = s1[:l2].copy()
        flip = rng.choice(l2, size=(percent * l2) // 100, replace=False)
        noisy[flip] = rng.integers(1, VOCAB + 1, len(flip))
        negative = rng.integers(1, VOCAB + 1, l2)
        first += [s1.tolist(), s1.tolist()]
        second += [noisy.tolist(), negative.tolist()]
        labels += [1, 0]
    order = np.arange(size) if paired else rng.permutation(size)
    return [first[i] for i in order], [second[i] for i in order], [labels[i] for i in order]


def split_file(folder: str | os.PathLike, percent: int, split: str, size: int, paired: bool = False) -> Path:
    return Path(folder) / f"prefix{percent}" / f"{split}-{size}{'-paired' if paired else ''}.tsv"


def load(folder: str | os.PathLike, percent: int, split: str, size: int | None = None, paired: bool = False):
    """The split (first `size` examples; default: the paper's size; paired: see make_split),
    generated and written to <folder>/prefix<Z>/<split>-<size>[-paired].tsv on first use, read from
    there afterwards."""
    full, seed = SPLITS[split]
    size = size or full
    path = split_file(folder, percent, split, size, paired)
    if not path.exists():
        first, second, labels = make_split(percent, size, seed, paired)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = temporary_sibling(path)
        with open(tmp, "w") as f:
            for a, b, y in zip(first, second, labels):
                f.write(f"{y}\t{' '.join(map(str, a))}\t{' '.join(map(str, b))}\n")
        os.replace(tmp, path)
    first, second, labels = [], [], []
    for line in path.read_text().splitlines():
        y, a, b = line.split("\t")
        first.append([int(t) for t in a.split()])
        second.append([int(t) for t in b.split()])
        labels.append(int(y))
    return first, second, labels
