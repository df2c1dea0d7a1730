"""Brantner's ViT, its data and loss: sizes, the attention formula of eq. (14), patches, constant-output losses."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from noneuclid.data import files, mnist
from noneuclid.models.vit import PatchViT
from noneuclid.nn import StiefelParameter
from noneuclid.nn.attention import MultiHeadAttention
from noneuclid.train.losses import LOSSES


def test_parameter_count_matches_the_paper():
    assert sum(p.numel() for p in PatchViT(stiefel=False).parameters()) == 154_938
    m = PatchViT(stiefel=True)
    stiefel = [p for p in m.parameters() if isinstance(p, StiefelParameter)]
    assert sum(p.shape[:-2].numel() for p in stiefel) == 336  # 16 blocks x 7 heads x (Q, K, V)
    assert all(p.shape[-2:] == (49, 7) for p in stiefel)


def test_attention_is_eq_14_head_by_head():
    """Head h: V softmax(Q^T K / sqrt(N)) with the softmax over each column, heads stacked (float64)."""
    torch.manual_seed(0)
    att = MultiHeadAttention(49, 7, stiefel=True).double()
    X = torch.randn(2, 49, 16, dtype=torch.float64)  # the paper's layout: N x T
    out = att(X.transpose(1, 2)).transpose(1, 2)
    heads = []
    for h in range(7):
        PQ, PK, PV = (att.weight[i, h] for i in range(3))
        Q, K, V = PQ.T @ X, PK.T @ X, PV.T @ X  # [2, 7, 16]
        heads.append(V @ torch.softmax(Q.mT @ K / math.sqrt(49), dim=-2))  # columns sum to 1
    torch.testing.assert_close(out, torch.cat(heads, dim=-2), rtol=0, atol=1e-12)


def test_heads_must_divide_the_dimension():
    with pytest.raises(ValueError, match="must divide"):
        MultiHeadAttention(49, 5, stiefel=False)


def test_classifier_reads_the_last_token_and_outputs_probabilities():
    torch.manual_seed(0)
    m = PatchViT(depth=2).double()
    x = torch.rand(4, 16, 49, dtype=torch.float64)
    p = m(x)
    torch.testing.assert_close(p.sum(-1), torch.ones(4, dtype=torch.float64))
    assert torch.all(p > 0)


def test_relative_frobenius_loss_of_constant_outputs():
    """Uniform output: sqrt(0.9) = 0.949; always class k: sqrt(2 (1 - share of k)) (docs/brantner.md)."""
    labels = torch.tensor([8] * 975 + [1] * 9025)
    loss = LOSSES["relative_frobenius"]
    assert loss(torch.full((10000, 10), 0.1, dtype=torch.float64), labels).item() == pytest.approx(math.sqrt(0.9))
    always8 = torch.nn.functional.one_hot(torch.full((10000,), 8), 10).double()
    assert loss(always8, labels).item() == pytest.approx(math.sqrt(2 * (1 - 0.0975)))
    # ||Y_hat - Y||_F / ||Y||_F, literally
    probs = torch.softmax(torch.randn(7, 10, dtype=torch.float64), -1)
    y = torch.randint(0, 10, (7,))
    onehot = torch.nn.functional.one_hot(y, 10).double()
    assert loss(probs, y).item() == pytest.approx(
        (torch.linalg.norm(probs - onehot) / torch.linalg.norm(onehot)).item()
    )


def test_patches_are_row_major_7x7_blocks():
    img = torch.arange(28 * 28, dtype=torch.float32).reshape(1, 28, 28)
    p = mnist.patches(img, 7)
    assert p.shape == (1, 16, 49)
    torch.testing.assert_close(p[0, 0], img[0, :7, :7].reshape(-1))
    torch.testing.assert_close(p[0, 1], img[0, :7, 7:14].reshape(-1))
    torch.testing.assert_close(p[0, -1], img[0, 21:, 21:].reshape(-1))  # the classifier's token


def test_idx_round_trip(tmp_path, write_idx):
    a = np.random.default_rng(0).integers(0, 256, (5, 28, 28))
    write_idx(tmp_path / "x.gz", a)
    np.testing.assert_array_equal(mnist.read_idx(tmp_path / "x.gz"), a)


def test_fetch_from_a_mirror_verifies_checksums(tiny_mnist, tmp_path):
    dest = tmp_path / "copy"
    files.fetch("mnist", dest, mirror=tiny_mnist)
    assert files.require("mnist", dest).is_dir()
    bad = tmp_path / "badmirror" / "mnist"
    bad.mkdir(parents=True)
    for f in (tiny_mnist / "mnist").iterdir():
        (bad / f.name).write_bytes(f.read_bytes()[:-1])
    with pytest.raises(files.DataError, match="does not match sha256"):
        files.fetch("mnist", tmp_path / "other", mirror=bad.parent)
    assert not list((tmp_path / "other" / "mnist").glob("*.gz"))  # nothing unverified is kept
