"""The authors' networks (GeometricMachineLearning.jl HDF5 files) loaded into our PatchViT."""

from __future__ import annotations

import math
import re

import h5py
import numpy as np
import pytest
import torch

from noneuclid.models.vit import PatchViT, load_gml
from noneuclid.nn import StiefelParameter

GML = "reference/brantner_gml"  # under ../shared/data
DIM, DEPTH, HEADS, CLASSES = 6, 2, 2, 3


def _write_gml(path, stiefel: bool, seed: int = 0) -> dict:
    """A tiny network in the authors' layout; every matrix stored transposed, as Julia's column-major
    arrays appear through h5py. Returns the matrices in the Julia (paper) orientation."""
    rng = np.random.default_rng(seed)
    mats = {}
    with h5py.File(path, "w") as f:
        for layer in range(DEPTH):
            for proj in ("PQ", "PK", "PV"):
                for h in range(1, HEADS + 1):
                    P = np.linalg.qr(rng.standard_normal((DIM, DIM // HEADS)))[0].astype(np.float32)
                    mats[layer, proj, h] = P
                    name = f"L{2 * layer + 1}/{proj}/head_{h}"
                    f[name + "/A" if stiefel else name] = P.T
            W = rng.standard_normal((DIM, DIM)).astype(np.float32)
            b = rng.standard_normal(DIM).astype(np.float32)
            mats[layer, "W"], mats[layer, "b"] = W, b
            f[f"L{2 * layer + 2}/weight"], f[f"L{2 * layer + 2}/bias"] = W.T, b
        C = rng.standard_normal((CLASSES, DIM)).astype(np.float32)
        mats["C"] = C
        f[f"L{2 * DEPTH + 1}/weight"] = C.T
    return mats


def _julia_forward(mats, X: torch.Tensor) -> torch.Tensor:
    """The authors' network on one input X (N x T, tokens as columns), written from their formulas:
    heads V softmax(Q^T K / sqrt(N)) (softmax down each column), stacked; X + tanh(W X + b);
    softmax(C x_T) of the last column."""
    t = lambda a: torch.from_numpy(a).double()  # noqa: E731
    for layer in range(DEPTH):
        heads = []
        for h in range(1, HEADS + 1):
            Q, K, V = (t(mats[layer, p, h]).T @ X for p in ("PQ", "PK", "PV"))
            heads.append(V @ torch.softmax(Q.T @ K / math.sqrt(DIM), dim=0))
        X = torch.cat(heads, dim=0)
        X = X + torch.tanh(t(mats[layer, "W"]) @ X + t(mats[layer, "b"])[:, None])
    return torch.softmax(t(mats["C"]) @ X[:, -1], dim=0)


@pytest.mark.parametrize("stiefel", [False, True])
def test_load_gml_computes_the_authors_network(tmp_path, stiefel):
    mats = _write_gml(tmp_path / "net.h5", stiefel)
    model = load_gml(tmp_path / "net.h5").double()
    assert isinstance(model, PatchViT) and not model.training
    assert isinstance(model.blocks[0][0].weight, StiefelParameter) == stiefel
    assert len(model.blocks) == DEPTH and model.classifier.weight.shape == (CLASSES, DIM)
    x = torch.rand(3, 4, DIM, dtype=torch.float64)  # [batch, T, N]: our layout
    expected = torch.stack([_julia_forward(mats, xi.T) for xi in x])
    torch.testing.assert_close(model(x), expected, rtol=0, atol=1e-6)  # float32 weights


def test_load_gml_of_a_missing_file_says_which(tmp_path):
    with pytest.raises(FileNotFoundError, match=re.escape(str(tmp_path / "absent.h5"))):  # h5py's message
        load_gml(tmp_path / "absent.h5")


@pytest.mark.shared_data(f"{GML}/mnist_nn2.h5", f"{GML}/mnist_metadata.h5", "mnist")
def test_the_authors_stiefel_adam_network_gives_their_published_accuracy(shared_data):
    from noneuclid.data import mnist

    with h5py.File(shared_data / GML / "mnist_metadata.h5", "r") as f:
        published = float(f["accuracy_score2"][()])
    model = load_gml(shared_data / GML / "mnist_nn2.h5")
    assert isinstance(model.blocks[0][0].weight, StiefelParameter)
    x, y = mnist.load(shared_data, "test", 7)
    with torch.no_grad():
        correct = sum(int((model(xb).argmax(-1) == yb).sum()) for xb, yb in zip(x.split(2500), y.split(2500)))
    assert round(100 * correct / len(y), 2) == round(100 * published, 2)  # 86.13 %
