"""Shared fixtures: tiny MNIST files in the official IDX format, configs that use them, and the verified
datasets in ../shared/data for the tests marked `shared_data`."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest
import torch

from noneuclid.config import compose
from noneuclid.data import files

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def pytest_runtest_setup(item):
    """Skip a test marked shared_data("mnist", ...) where one of those paths is not in ../shared/data."""
    for mark in item.iter_markers("shared_data"):
        missing = [p for p in mark.args if not (SHARED_DATA / p).exists()]
        if missing:
            pytest.skip(f"needs {', '.join(missing)} in {SHARED_DATA}")


@pytest.fixture
def shared_data() -> Path:
    """The root of the verified datasets, ../shared/data (mark the test shared_data(...) with what it reads)."""
    return SHARED_DATA


@pytest.fixture(name="write_idx")
def _write_idx():
    """write_idx(path, array): an IDX file, as MNIST's."""
    return write_idx


def write_idx(path: Path, array: np.ndarray) -> None:
    """An IDX file: magic (0, 0, 8 = uint8, ndim), one big-endian uint32 per dimension, the bytes."""
    header = bytes([0, 0, 8, array.ndim]) + b"".join(int(d).to_bytes(4, "big") for d in array.shape)
    with gzip.open(path, "wb") as f:
        f.write(header + array.astype(np.uint8).tobytes())


@pytest.fixture
def tiny_mnist(tmp_path, monkeypatch) -> Path:
    """A data root with 96 training and 48 test images in the four MNIST files, registered with their
    own checksums (the real ones would not match)."""
    rng = np.random.default_rng(0)
    root = tmp_path / "data"
    folder = root / "mnist"
    folder.mkdir(parents=True)
    for prefix, count in (("train", 96), ("t10k", 48)):
        labels = rng.integers(0, 10, count)
        images = rng.integers(0, 40, (count, 28, 28))
        for k in range(count):  # a class-dependent bright square: learnable in a few steps
            r, c = divmod(int(labels[k]), 4)
            images[k, 7 * r : 7 * r + 7, 7 * c : 7 * c + 7] = 255
        write_idx(folder / f"{prefix}-images-idx3-ubyte.gz", images)
        write_idx(folder / f"{prefix}-labels-idx1-ubyte.gz", labels)
    sums = {p.name: files.sha256sum(p) for p in folder.iterdir()}
    monkeypatch.setitem(files.DATASETS, "mnist", files.Dataset(folder="mnist", sha256=sums))
    return root


@pytest.fixture
def make_cfg(tiny_mnist, tmp_path):
    """compose() for a smoke-sized run on the tiny data, with run folders under tmp_path/runs."""

    def make(*overrides: str, runs_dir: Path | None = None):
        return compose(
            [
                "profile=smoke",
                f"paths.data_dir={tiny_mnist}",
                f"paths.runs_dir={runs_dir or tmp_path / 'runs'}",
                "model.depth=2",
                "trainer.progress=false",
                "trainer.threads=1",
                *overrides,
            ]
        )

    return make


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


@pytest.fixture(autouse=True, scope="session")
def _one_thread():
    """One torch thread: the tests are small, and a busy 2-core machine oversubscribed by OpenMP
    threads slows them down by orders of magnitude."""
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(old)
