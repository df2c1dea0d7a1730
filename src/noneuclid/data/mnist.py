"""MNIST from the four original IDX files, cut into patches as in Brantner (fig. 2)."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import torch
from torch import Tensor

from noneuclid.data.files import require

SPLITS = {
    "train": ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
    "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"),
}


def read_idx(path: Path) -> np.ndarray:
    """An IDX array (big-endian header: magic, then one uint32 per dimension)."""
    with gzip.open(path, "rb") as f:
        raw = f.read()
    ndim = raw[3]
    shape = tuple(int.from_bytes(raw[4 + 4 * i : 8 + 4 * i], "big") for i in range(ndim))
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim).reshape(shape)


def patches(images: Tensor, size: int) -> Tensor:
    """[count, H, W] -> [count, tokens, size*size]: patches in row-major order, each flattened row-major.

    For 28 x 28 images and size 7 that is 16 tokens of 49 pixels; the last token is the bottom-right patch.
    """
    c, h, w = images.shape
    if h % size or w % size:
        raise ValueError(f"patch size {size} must divide the image size {h}x{w}")
    x = images.reshape(c, h // size, size, w // size, size).permute(0, 1, 3, 2, 4)
    return x.reshape(c, (h // size) * (w // size), size * size)


def load(data_dir, split: str, patch: int, size: int | None = None) -> tuple[Tensor, Tensor]:
    """Pixels in [0, 1] as float32 patches [count, tokens, patch^2] and int64 labels [count].

    `size` keeps the first `size` examples (used by the smoke and cpu profiles).
    """
    folder = require("mnist", data_dir, list(SPLITS[split]))
    images = read_idx(folder / SPLITS[split][0])[:size]
    labels = read_idx(folder / SPLITS[split][1])[:size]
    x = patches(torch.from_numpy(images.astype(np.float32) / 255.0), patch)
    return x, torch.from_numpy(labels.astype(np.int64))
