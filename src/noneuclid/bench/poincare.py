"""Benchmark of the Poincare embeddings trainer (Nickel & Kiela 2017; the input of Ganea et al.'s
Table 2): seconds per epoch on the WordNet noun closure (82,115 nodes, 743,086 edges; 10-D, 50
negatives, float64), from a fixed slice of an epoch scaled to the whole epoch, at one thread. The
steps start from points where training keeps them (`_trained_like`), not from the initial embedding
at the origin: a step costs less there than in training. Timed: the cpu profile's trainer (batches
of 50 edges, the reference's, their steps in one compiled loop: `PoincareEmbedding.sgd_steps`), and,
measured in the same run, the autograd path (sparse rows, compiled loss, one Python step per batch) at
50 and at 1,024 edges per batch and at two threads, the dense gradient of the whole table, and
gensim's PoincareModel (numpy, batches of 50 edges, a bench-only dependency: `pip install gensim`),
each on its own slice and scaled the same way."""

from __future__ import annotations

import os
import time

import torch

from noneuclid.data import wordnet
from noneuclid.models.poincare_embedding import PoincareEmbedding
from noneuclid.optim import RiemannianSGD
from noneuclid.train.tasks.hypernymy import Hypernymy


def _task_and_model(hierarchy, batch: int, sparse: bool = True, fused: int | None = None):
    """The noun closure's task (50 negatives, batches of `batch`, `fused` per step) and a 10-D float64
    embedding at points where training keeps them."""
    task = Hypernymy(hierarchy.edges, hierarchy.size, negatives=50, batch_size=batch, seed=0, fused_batches=fused)
    torch.manual_seed(0)
    model = PoincareEmbedding(hierarchy.size, 10, sparse=sparse).double()
    with torch.no_grad():
        model.weight.copy_(_trained_like(hierarchy.size, 10))
    return task, model


def _seconds_per_step(hierarchy, sparse: bool, batch: int, steps: int, threads: int) -> float:
    """Wall seconds per training step (batch drawn, loss, backward, Riemannian SGD) over `steps` steps
    after two warm-up steps."""
    torch.set_num_threads(threads)
    task, model = _task_and_model(hierarchy, batch, sparse)
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


def _fused_seconds_per_edge(hierarchy, chunks: int, batch: int = 50, fused: int = 200, threads: int = 1) -> float:
    """Wall seconds per edge of the compiled SGD loop (batches of `batch`, `fused` per call, drawing
    the negatives included; with 2 threads the next call's negatives are drawn meanwhile) over
    `chunks` calls after one warm-up call."""
    torch.set_num_threads(threads)
    task, model = _task_and_model(hierarchy, batch, fused=fused)
    batches, edges = task.batches(0), 0
    idx, keep, _ = next(batches)
    model.sgd_steps(idx, keep, batch, 0.04 * batch)
    start = time.perf_counter()
    for _ in range(chunks):
        idx, keep, _ = next(batches)
        model.sgd_steps(idx, keep, batch, 0.04 * batch)
        edges += len(idx)
    return (time.perf_counter() - start) / edges


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
    """Seconds per epoch of the fused trainer (batches of 50), of the autograd path (batches of 50 and of
    `batch`; 1 and 2 threads), of the dense update, of gensim; ratios against the fused trainer."""
    if device.type != "cpu":
        raise ValueError("the Poincare embeddings benchmark times the CPU trainer: run it with --device cpu")
    hierarchy = wordnet.load("wordnet", os.environ.get("NONEUCLID_GENERATED_DIR", "data/generated"))
    edges, steps = len(hierarchy.edges), 5 if quick else 3 * repeats
    epoch_steps = -(-edges // batch)
    result = {
        "edges": edges,
        "nodes": hierarchy.size,
        "dim": 10,
        "negatives": 50,
        "batch": batch,
        "dtype": "float64",
        "steps_timed": steps,
    }
    result["fused_seconds_per_epoch"] = edges * _fused_seconds_per_edge(hierarchy, 2 if quick else repeats)
    result["fused_2_threads_seconds_per_epoch"] = edges * _fused_seconds_per_edge(
        hierarchy, 2 if quick else repeats, threads=2
    )
    result["autograd_50_seconds_per_epoch"] = -(-edges // 50) * _seconds_per_step(hierarchy, True, 50, 20 * steps, 1)
    for threads in (1, 2):
        result[f"seconds_per_epoch_{threads}_threads"] = epoch_steps * _seconds_per_step(
            hierarchy, True, batch, steps, threads
        )
    torch.set_num_threads(1)
    result["dense_seconds_per_epoch"] = epoch_steps * _seconds_per_step(hierarchy, False, batch, max(steps // 5, 2), 1)
    result["gensim_seconds_per_epoch"] = edges * _gensim_seconds_per_edge(hierarchy, 2000 if quick else 20_000)
    fused = result["fused_seconds_per_epoch"]
    result["autograd_50_ratio"] = result["autograd_50_seconds_per_epoch"] / fused
    result["dense_speedup"] = result["dense_seconds_per_epoch"] / result["seconds_per_epoch_1_threads"]
    result["gensim_speedup"] = result["gensim_seconds_per_epoch"] / fused
    return result


def describe(r: dict) -> str:
    return "\n".join(
        [
            f"Poincare embeddings, WordNet nouns ({r['nodes']:,} nodes, {r['edges']:,} edges), {r['dim']}-D, "
            f"{r['negatives']} negatives, {r['dtype']}, one thread unless said (scaled to an epoch):",
            f"  fused steps, batches of 50:       {r['fused_seconds_per_epoch']:8.1f} s per epoch  "
            "(the cpu profile's trainer)",
            f"  fused steps, 2 threads:           {r['fused_2_threads_seconds_per_epoch']:8.1f} s per epoch  "
            "(the next negatives drawn meanwhile)",
            f"  autograd, batches of 50:          {r['autograd_50_seconds_per_epoch']:8.1f} s per epoch  "
            f"({r['autograd_50_ratio']:.1f}x the fused steps)",
            f"  autograd, batches of {r['batch']}:        {r['seconds_per_epoch_1_threads']:8.1f} s per epoch",
            f"  autograd, batches of {r['batch']}, 2 threads: {r['seconds_per_epoch_2_threads']:4.1f} s per epoch",
            f"  dense (autograd), batches of {r['batch']}: {r['dense_seconds_per_epoch']:6.1f} s per epoch  "
            f"(sparse is {r['dense_speedup']:.1f}x faster)",
            f"  gensim PoincareModel, batches of 50: {r['gensim_seconds_per_epoch']:6.1f} s per epoch  "
            f"(gensim_speedup {r['gensim_speedup']:.1f}, against the fused steps)",
        ]
    )
