"""The fast Poincare embeddings trainer: sparse row updates against the dense reference, the full
evaluation against the definition, and the mammal closure as a quality check."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

from noneuclid import optim
from noneuclid.data import wordnet
from noneuclid.data.files import DataError
from noneuclid.geometry import poincare as pb
from noneuclid.models.poincare_embedding import PoincareEmbedding
from noneuclid.optim import RiemannianSGD
from noneuclid.train.tasks.hypernymy import Hypernymy


def _trained(sparse: bool, retraction: bool, epochs: int = 3, lr: float = 0.3) -> torch.Tensor:
    """The toy tree's 3-D embedding after `epochs` epochs of batches of 16 edges (float64)."""
    h = wordnet.toy(depth=3, branching=3)
    torch.manual_seed(0)
    model = PoincareEmbedding(h.size, 3, init=0.3, sparse=sparse).double()
    task = Hypernymy(h.edges, h.size, negatives=10, batch_size=16, seed=0)
    optimizer = RiemannianSGD(model.parameters(), lr=lr, retraction=retraction)
    for epoch in range(epochs):
        for batch in task.batches(epoch):
            loss, _ = task.loss(model, batch)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
    return model.weight.detach()


@pytest.mark.parametrize("retraction", [True, False])
def test_sparse_row_updates_equal_the_dense_update(retraction):
    """The compiled loss, its closed-form gradient of the batch's rows and RSGD's step of those rows
    against autograd through pb.dist and the step of the whole table, over 3 epochs (some points
    reach the boundary and are projected)."""
    sparse, dense = _trained(True, retraction), _trained(False, retraction)
    assert torch.allclose(sparse, dense, rtol=0, atol=1e-12)
    assert not torch.equal(sparse, _trained(False, retraction, epochs=0))


def test_sparse_gradient_equals_autograd():
    h = wordnet.toy(depth=2, branching=3)
    task = Hypernymy(h.edges, h.size, negatives=5, batch_size=8, seed=0)
    idx, keep, _ = next(iter(task.batches(0)))
    grads = []
    for sparse in (True, False):
        torch.manual_seed(0)
        model = PoincareEmbedding(h.size, 4, c=0.7, init=0.4, sparse=sparse).double()
        (model.loss_terms(idx, keep) * torch.linspace(0.5, 2, len(idx), dtype=torch.float64)).sum().backward()
        grads.append(model.weight.grad.to_dense())
    assert torch.allclose(grads[0], grads[1], rtol=0, atol=1e-13)


def test_sgd_steps_equal_the_autograd_steps_batch_by_batch():
    """The compiled loop of SGD steps over batches of 16 edges (the last of a chunk 6 or 0) against
    loss_terms, backward and RiemannianSGD(retraction=True) batch by batch, over 3 chunks of edges at a
    rate that takes points to the boundary (projected), 10 epochs: weights to 1e-12, loss terms to 1e-10."""
    h = wordnet.toy(depth=3, branching=3)
    task = Hypernymy(h.edges, h.size, negatives=10, batch_size=70, seed=0)
    chunks = [chunk for epoch in range(10) for chunk in task.batches(epoch)]  # 70 + 32 edges per epoch
    weights, terms = [], {True: [], False: []}
    for fused in (True, False):
        torch.manual_seed(0)
        model = PoincareEmbedding(h.size, 3, init=0.3).double()
        optimizer = RiemannianSGD(model.parameters(), lr=20.0, retraction=True)
        for idx, keep, _ in chunks:
            if fused:
                terms[fused].append(model.sgd_steps(idx, keep, 16, lr=20.0))
                continue
            for start in range(0, len(idx), 16):
                loss = model.loss_terms(idx[start : start + 16], keep[start : start + 16])
                terms[fused].append(loss.detach())
                optimizer.zero_grad(set_to_none=True)
                loss.mean().backward()
                optimizer.step()
        weights.append(model.weight.detach())
    assert torch.allclose(weights[0], weights[1], rtol=0, atol=1e-12)
    # a term is d_1 + log sum exp(-d_j), distances up to 13 near the boundary, where they amplify the
    # weights' rounding: 2e-11 apart at most
    assert torch.allclose(torch.cat(terms[True]), torch.cat(terms[False]), rtol=0, atol=1e-10)
    assert weights[0].norm(dim=1).max() > 0.99  # some points reached the boundary


def test_burnin_draws_by_frequency_then_uniformly():
    """The reference's burn-in: burnin_negatives candidates per edge, node w drawn with probability
    (1 + edges with ancestor w) / sum (the toy tree of 40 nodes: root 40 / 142, a leaf 1 / 142); after
    the burn-in `negatives` candidates, uniformly."""
    h = wordnet.toy(depth=3, branching=3)
    task = Hypernymy(h.edges, h.size, negatives=10, batch_size=16, seed=0, burnin_epochs=1, burnin_negatives=3)
    assert next(iter(task.batches(0)))[0].shape == (16, 2 + 3)
    assert next(iter(task.batches(1)))[0].shape == (16, 2 + 10)
    expected = (1 + torch.bincount(h.edges[:, 1], minlength=h.size).double()) / (h.size + len(h.edges))
    g = torch.Generator().manual_seed(0)
    for epoch, want in ((0, expected), (1, torch.full((h.size,), 1 / h.size, dtype=torch.float64))):
        drawn = torch.cat([task._draw(10_000, epoch, g).flatten() for _ in range(10)])
        freq = torch.bincount(drawn, minlength=h.size).double() / len(drawn)
        assert torch.allclose(freq, want, atol=4 * (want / len(drawn)).sqrt().max().item())
    assert expected[0] == 40 / 142 and expected[-1] == 1 / 142


def test_without_burnin_negatives_the_burnin_draws_as_after():
    """burnin_negatives=None: the draws of the runs trained before the reference's burn-in sampling."""
    h = wordnet.toy(depth=3, branching=3)
    batches = [
        next(iter(Hypernymy(h.edges, h.size, negatives=10, batch_size=16, seed=0, burnin_epochs=b).batches(0)))
        for b in (0, 5)
    ]
    assert all(torch.equal(a, b) for a, b in zip(*batches))


@pytest.mark.parametrize("chunk", [7, 1000])
def test_evaluation_of_a_trained_embedding_matches_the_definition(chunk):
    """A trained embedding (ancestors at small ranks, ties of the bound exercised) over all nodes."""
    h = wordnet.toy(depth=3, branching=3)
    points = _trained(True, True, epochs=20, lr=1.0)
    model = PoincareEmbedding(h.size, 3).double()
    model.weight.data.copy_(points)
    got = Hypernymy(h.edges, h.size, negatives=5, batch_size=16, seed=0, eval_chunk=chunk).evaluate(model)
    ranks, aps = [], []
    for u in sorted(set(h.edges[:, 0].tolist())):
        anc = set(h.edges[h.edges[:, 0] == u, 1].tolist())
        d = pb.dist(points[u], points, 1.0).tolist()
        others = [w for w in range(len(points)) if w != u]
        ranks += [1 + sum(d[w] < d[v] for w in others if w not in anc) for v in anc]
        aps.append(sum(sum(d[a] <= d[v] for a in anc) / sum(d[w] <= d[v] for w in others) for v in anc) / len(anc))
    assert got["reconstruction_mean_rank"] == pytest.approx(sum(ranks) / len(ranks))
    assert got["reconstruction_map"] == pytest.approx(sum(aps) / len(aps))
    assert got["reconstruction_map"] > 0.5  # trained: the bound leaves few nodes to count


def _mammals():
    gen = Path(os.environ.get("NONEUCLID_GENERATED_DIR", "data/generated"))
    try:
        return wordnet.load("wordnet_mammal", gen)
    except DataError as e:
        if not (wordnet.DEBIAN_DICT / "data.noun").is_file():
            pytest.skip(f"WordNet 3.0 is not installed (apt-get install wordnet-base wordnet-sense-index): {e}")
        wordnet.fetch(gen)
        return wordnet.load("wordnet_mammal", gen)


def test_mammal_closure_embeds_in_2d():
    """The mammal closure (1,181 nodes, 6,542 edges) in 2-D: batches of 256 at 0.1 per edge, burn-in of
    20 epochs at lr / 100, 75 epochs: MAP 0.51, mean rank 6.8 when written (seconds)."""
    h = _mammals()
    torch.manual_seed(0)
    model = PoincareEmbedding(h.size, 2).double()
    task = Hypernymy(h.edges, h.size, negatives=50, batch_size=256, seed=0)
    cfg = {"name": "rsgd", "lr": 25.6, "burnin_epochs": 20, "burnin_factor": 0.01, "retraction": True}
    optimizer = optim.build(cfg, list(model.named_parameters()))
    for epoch in range(75):
        for batch in task.batches(epoch):
            loss, _ = task.loss(model, batch)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
        optim.end_epoch(optimizer, cfg)
    scores = task.evaluate(model)
    assert scores["reconstruction_map"] > 0.4 and scores["reconstruction_mean_rank"] < 12
