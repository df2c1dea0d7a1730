"""Synthetic stand-ins of the real shapes for data that is missing on a machine, for timing only: a step
costs what it costs on the real data when the tensors have the real sizes (the values do not matter).

    wordnet_nouns    the closure of a random tree of WordNet's size (wordnet.NOUNS nodes), cut to the
                     real closure's wordnet.CLOSURE_EDGES edges: node i > 0 hangs below node
                     floor(i u^1.14), u uniform in (0, 1), which gives about as many ancestors per node
    wordnet_subtree  points of a Poincare embedding of WordNet's size in data.dim, random in the ball,
                     labels 1 for a random 5 % of the nodes (a subtree is 0.5-20 % of the nouns)
"""

from __future__ import annotations

import numpy as np
import torch

from noneuclid.data import wordnet
from noneuclid.train.tasks import hypernymy
from noneuclid.train.tasks.subtrees import SubtreeClassification

ATTACHMENT, POSITIVE_SHARE = 1.14, 0.05


def random_closure(nodes: int = wordnet.NOUNS, edges: int = wordnet.CLOSURE_EDGES, seed: int = 0) -> torch.Tensor:
    """(node, ancestor) pairs [<= edges, 2] of the transitive closure of a random tree (module doc)."""
    rng = np.random.default_rng(seed)
    i = np.arange(1, nodes)
    parent = np.concatenate([[-1], np.floor(i * rng.random(nodes - 1) ** ATTACHMENT).astype(np.int64)])
    pairs, node, ancestor = [], np.arange(nodes), parent.copy()
    while len(node):
        alive = ancestor >= 0
        node, ancestor = node[alive], ancestor[alive]
        pairs.append(np.stack([node, ancestor], 1))
        ancestor = parent[ancestor]
    closure = np.concatenate(pairs)
    if len(closure) > edges:
        closure = closure[np.sort(rng.choice(len(closure), edges, replace=False))]
    return torch.from_numpy(closure)


def wordnet_nouns(cfg) -> hypernymy.Hypernymy:
    """The Poincare-embedding task on random_closure() (cfg as for data=wordnet_nouns)."""
    names = [f"n{k}.n.01" for k in range(wordnet.NOUNS)]
    return hypernymy.build(cfg, wordnet.Hierarchy(names, random_closure()))


def wordnet_subtree(cfg) -> SubtreeClassification:
    """Table 2's classification task on random points and labels of WordNet's size (cfg as for
    data=wordnet_subtree)."""
    d = cfg.data
    g = torch.Generator().manual_seed(cfg.seed)
    x = torch.randn(wordnet.NOUNS, d.dim, generator=g, dtype=torch.float64)
    x = x / (1 + x.norm(dim=-1, keepdim=True))  # inside the unit ball
    y = (torch.rand(wordnet.NOUNS, generator=g) < POSITIVE_SHARE).long()
    return SubtreeClassification(
        x, y, wordnet.split(wordnet.NOUNS, cfg.seed, d.test_fraction), d.batch_size, cfg.seed, bool(d.natural_mix)
    )


STANDINS = {"wordnet_nouns": wordnet_nouns, "wordnet_subtree": wordnet_subtree}
