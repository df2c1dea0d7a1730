"""Benchmark of the Poincare embeddings trainer (Nickel & Kiela 2017; the input of Ganea et al.'s
Table 2): seconds per epoch on the WordNet noun closure (82,115 nodes, 743,086 edges; 10-D, 50
negatives, float64), from a fixed slice of an epoch's batches scaled to the whole epoch, at one thread
and at two. The steps start from points where training keeps them (`_trained_like`), not from the
initial embedding at the origin: a step costs less there than in training, and from the origin at
the full lr the trajectory (and with it the time) changes with any rounding difference. The compiled
loops are serial (a parallel loop gained 2 % at two threads and kept a worker thread spinning beside
another process's work); the second thread serves torch's own ops only. Baselines measured in the
same run: the dense gradient of the whole table (autograd through `pb.dist`, the step of every row)
and gensim's PoincareModel (numpy, batches of 50 edges, a bench-only dependency: `pip install
gensim`), each timed on its own slice and scaled the same way."""

from __future__ import annotations

import os
import time

import torch

from noneuclid.data import wordnet
from noneuclid.models.poincare_embedding import PoincareEmbedding
from noneuclid.optim import RiemannianSGD
from noneuclid.train.tasks.hypernymy import Hypernymy


def _seconds_per_step(hierarchy, sparse: bool, batch: int, steps: int, threads: int) -> float:
    """Wall seconds per training step (batch drawn, loss, backward, Riemannian SGD) over `steps` steps
    after two warm-up steps."""
    torch.set_num_threads(threads)
    task = Hypernymy(hierarchy.edges, hierarchy.size, negatives=50, batch_size=batch, seed=0)
    torch.manual_seed(0)
    model = PoincareEmbedding(hierarchy.size, 10, sparse=sparse).double()
    with torch.no_grad():
        model.weight.copy_(_trained_like(hierarchy.size, 10))
    optimizer = RiemannianSGD(model.parameters(), lr=0.04 * batch, retraction=True)
    batches = task.batches(0)
    for i in range(steps + 2):
        if i == 2:
            start = time.perf_counter()
        loss, _ = task.loss(model, next(batches))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    return (time.perf_counter() - start) / steps


def _trained_like(nodes: int, dim: int) -> torch.Tensor:
    """[nodes, dim] float64 points in random directions at norms 1 - 10^u, u uniform in [-5, -2]: as
    in training, where 99 % of the 10-D nouns' points lie beyond norm 0.99 by epoch 230."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(nodes, dim, generator=g, dtype=torch.float64)
    norms = 1 - 10 ** torch.empty(nodes, 1, dtype=torch.float64).uniform_(-5, -2, generator=g)
    return x / x.norm(dim=1, keepdim=True) * norms


def _gensim_seconds_per_edge(hierarchy, edges: int) -> float:
    """gensim's PoincareModel (10-D, 50 negatives, float64, batches of 50, no burn-in): wall seconds per
    edge of one epoch over the first `edges` edges of a fixed shuffle."""
    import numpy as np
    from gensim.models.poincare import PoincareModel
    pick = torch.randperm(len(hierarchy.edges), generator=torch.Generator().manual_seed(0))[:edges]
    relations = [(str(u), str(v)) for u, v in hierarchy.edges[pick].tolist()]
    model = PoincareModel(relations, size=10, negative=50, burn_in=0, dtype=np.float64, seed=0)
    start = time.perf_counter()
    model.train(epochs=1, batch_size=50, print_every=10**9)
    return (time.perf_counter() - start) / edges


def run(device, repeats: int = 10, batch: int = 1024, quick: bool = False) -> dict:
    """Seconds per epoch of the sparse trainer (1 and 2 threads), of the dense one, of gensim; ratios."""
    if device.type != "cpu":
        raise ValueError("the Poincare embeddings benchmark times the CPU trainer: run it with --device cpu")
    hierarchy = wordnet.load("wordnet", os.environ.get("NONEUCLID_GENERATED_DIR", "data/generated"))
    epoch_steps = -(-len(hierarchy.edges) // batch)
    steps = 5 if quick else 3 * repeats
    result = {"edges": len(hierarchy.edges), "nodes": hierarchy.size, "dim": 10, "negatives": 50,
              "batch": batch, "dtype": "float64", "steps_timed": steps}
    for threads in (1, 2):
        result[f"seconds_per_epoch_{threads}_threads"] = epoch_steps * _seconds_per_step(
            hierarchy, True, batch, steps, threads)
    torch.set_num_threads(1)
    result["dense_seconds_per_epoch"] = epoch_steps * _seconds_per_step(hierarchy, False, batch, max(steps // 5, 2), 1)
    result["gensim_seconds_per_epoch"] = len(hierarchy.edges) * _gensim_seconds_per_edge(
        hierarchy, 2000 if quick else 20_000)
    best = min(result["seconds_per_epoch_1_threads"], result["seconds_per_epoch_2_threads"])
    result["dense_speedup"] = result["dense_seconds_per_epoch"] / result["seconds_per_epoch_1_threads"]
    result["gensim_speedup"] = result["gensim_seconds_per_epoch"] / best
    return result


def describe(r: dict) -> str:
    return "\n".join([
        f"Poincare embeddings, WordNet nouns ({r['nodes']:,} nodes, {r['edges']:,} edges), {r['dim']}-D, "
        f"{r['negatives']} negatives, {r['dtype']}, batches of {r['batch']} ({r['steps_timed']} steps timed, "
        "scaled to an epoch):",
        f"  sparse, 1 thread:   {r['seconds_per_epoch_1_threads']:8.1f} s per epoch",
        f"  sparse, 2 threads:  {r['seconds_per_epoch_2_threads']:8.1f} s per epoch",
        f"  dense (autograd):   {r['dense_seconds_per_epoch']:8.1f} s per epoch  (sparse is {r['dense_speedup']:.1f}x faster)",
        f"  gensim PoincareModel: {r['gensim_seconds_per_epoch']:6.1f} s per epoch  (gensim_speedup {r['gensim_speedup']:.1f})",
    ])
