"""The task of Poincare embeddings (Nickel & Kiela 2017): reconstruct a hierarchy's closure.

Training: every edge (u, v) of the closure (v an ancestor of u) against `negatives` nodes w drawn
uniformly for u, the loss of eq. (6) of the paper
    L(u, v) = -log( exp(-d(u, v)) / sum_{v' in {v} + N(u)} exp(-d(u, v')) ),
where N(u) are the drawn nodes that are not related to u (a drawn w with (u, w) or (w, u) in the
closure, or w = u, is replaced by v and masked out of the sum). Batches of edges and their negatives are tensors: one
distance call per batch, no loop over edges. In the burn-in epochs (the paper's Sec. 3, "initial
burn-in phase") the reference code draws `burnin_negatives` nodes per edge, node w with probability
proportional to (1 + the number of edges with ancestor w)^burnin_dampening (its data loader: 5 of
50 negatives, dampening 1), so that the frequent, general nodes are the ones pushed away first;
burnin_negatives=None draws as in the other epochs.

Evaluation (the paper's "reconstruction"): for each node u with ancestors A(u), rank every ancestor
by its distance from u among all nodes other than u; the mean rank counts, for each (u, v), the
nodes outside A(u) closer than v, plus 1 (mean over edges); the average precision of u is
mean over v in A(u) of |{a in A(u): d(u, a) <= d(u, v)}| / |{w != u: d(u, w) <= d(u, v)}|, and MAP
is its mean over nodes. Computed in chunks of rows: one matrix product for the keys and one comparison with the farthest
ancestor's key per chunk.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np
import torch
from torch import Tensor

from noneuclid.data import wordnet
from noneuclid.optim import RiemannianSGD
from noneuclid.train.tasks.batching import shuffled


class Hypernymy:
    """edges [E, 2] of (node, ancestor) pairs over `num_nodes` nodes."""

    eval_splits = ("reconstruction",)

    def __init__(
        self,
        edges: Tensor,
        num_nodes: int,
        negatives: int,
        batch_size: int,
        seed: int,
        eval_nodes: int | None = None,
        eval_chunk: int = 128,
        burnin_epochs: int = 0,
        burnin_negatives: int | None = None,
        burnin_dampening: float = 1.0,
        fused_batches: int | None = None,
    ):
        self.edges, self.num_nodes = edges, num_nodes
        self.negatives, self.batch_size, self.seed = negatives, batch_size, seed
        self.fused_batches = fused_batches
        self.takes_steps = fused_batches is not None  # the trainer calls take_steps instead of loss + step
        self.burnin_epochs = burnin_epochs if burnin_negatives is not None else 0
        self.burnin_negatives = burnin_negatives
        weight = (1 + torch.bincount(edges[:, 1], minlength=num_nodes).double()) ** burnin_dampening
        self.burnin_cdf = weight.cumsum(0) / weight.sum()  # [N], of the burn-in's draws
        self.eval_chunk = eval_chunk
        self.model_kwargs = {"num_nodes": num_nodes}
        pairs = torch.cat([edges, edges.flip(1)])
        self.related = torch.unique(pairs[:, 0] * num_nodes + pairs[:, 1])  # sorted keys u * N + w
        self.row_starts = torch.searchsorted(self.related, torch.arange(num_nodes + 1) * num_nodes)  # u's keys: [N + 1]
        order = torch.argsort(edges[:, 0], stable=True)
        self.ancestors = edges[order]  # grouped by node, for the evaluation
        rows = torch.unique(edges[:, 0])
        if eval_nodes is not None and eval_nodes < len(rows):  # a fixed sample (seed 0) of the nodes
            rows = (
                rows[torch.randperm(len(rows), generator=torch.Generator().manual_seed(0))[:eval_nodes]].sort().values
            )
        self.eval_rows, self.device = rows, torch.device("cpu")

    def to(self, device, dtype) -> Hypernymy:
        """Evaluation on `device`; the batches are drawn on the CPU (a compiled loop) and moved there."""
        self.device = torch.device(device)
        self.ancestors, self.eval_rows = self.ancestors.to(device), self.eval_rows.to(device)
        return self

    def steps_per_epoch(self) -> int:
        return -(-len(self.edges) // self._edges_per_step())

    def _edges_per_step(self) -> int:
        """Edges per trainer step: a batch, or fused_batches consecutive batches (`take_steps`)."""
        return self.batch_size * (self.fused_batches or 1)

    def batches(self, epoch: int):
        """(idx [B, 2 + negatives]: u, v, then the drawn nodes; keep [B, 1 + negatives]: v and the drawn
        nodes not related to u; u [B], last, as the trainer counts a batch's examples by the last
        element). The draws depend only on (seed, epoch), like the batch order: a resumed run sees the
        same ones. With more than one torch thread, the next batch is drawn in a second thread while
        the caller trains on this one (the same batches, in the same order)."""
        batches = self._drawn_batches(epoch)
        if torch.get_num_threads() < 2:
            yield from batches
            return
        with ThreadPoolExecutor(1) as ahead:
            batch = ahead.submit(next, batches, None)
            while (current := batch.result()) is not None:
                batch = ahead.submit(next, batches, None)
                yield current

    def _drawn_batches(self, epoch: int):
        """The batches of `batches`, drawn one after the other."""
        g = torch.Generator().manual_seed(self.seed * 100_003 + epoch + 7)
        for idx in shuffled(len(self.edges), self._edges_per_step(), self.seed, epoch, self.edges.device):
            u, v = self.edges[idx].unbind(1)
            w = self._draw(len(idx), epoch, g)  # [B, k]
            idx = torch.empty(len(u), 2 + w.shape[1], dtype=torch.long)
            keep = torch.empty(len(u), 1 + w.shape[1], dtype=torch.bool)
            _candidates(
                u.numpy(),
                v.numpy(),
                w.numpy(),
                self.related.numpy(),
                self.row_starts.numpy(),
                self.num_nodes,
                idx.numpy(),
                keep.numpy(),
            )
            idx, keep = idx.to(self.device), keep.to(self.device)
            yield idx, keep, idx[:, 0]

    def _draw(self, edges: int, epoch: int, g: torch.Generator) -> Tensor:
        """Candidate negatives [edges, k]: uniform, or in a burn-in epoch by (1 + ancestor count)^dampening."""
        if epoch >= self.burnin_epochs:
            return torch.randint(self.num_nodes, (edges, self.negatives), generator=g)
        drawn = torch.searchsorted(
            self.burnin_cdf, torch.rand(edges, self.burnin_negatives, generator=g, dtype=torch.float64)
        )
        return drawn.clamp_max(self.num_nodes - 1)  # a draw at the cdf's rounded end

    def loss(self, model, batch) -> tuple[Tensor, float]:
        idx, keep, _ = batch
        terms = model.loss_terms(idx, keep)  # eq. (6) of Nickel & Kiela, [B]
        return terms.mean(), float(terms.detach().sum())

    def take_steps(self, model, optimizer, batch) -> float:
        """With fused_batches: the SGD steps of the batch's fused_batches batches in one compiled loop
        (`PoincareEmbedding.sgd_steps`, at the optimizer's current lr); returns the sum of the loss terms."""
        group = optimizer.param_groups[0]
        if not isinstance(optimizer, RiemannianSGD) or not group["retraction"] or len(optimizer.param_groups) > 1:
            raise ValueError(
                "data.fused_batches takes Riemannian SGD steps with the retraction: use optim=rsgd "
                "with optim.retraction=true, or set data.fused_batches=null"
            )
        idx, keep, _ = batch
        return float(model.sgd_steps(idx, keep, self.batch_size, group["lr"]).sum())

    def finish_loss(self, mean_term: float) -> float:
        return mean_term

    @torch.no_grad()
    def evaluate(self, model, split: str = "reconstruction") -> dict:
        """Mean rank and MAP over self.eval_rows (all nodes with ancestors, or a fixed sample); nonfinite:
        the rows ranked with a non-finite point in the table (all of them, as every key meets it)."""
        rank_sum, edges, ap_sum = 0.0, 0, 0.0
        nodes = self.ancestors[:, 0].contiguous()
        starts, ends = torch.searchsorted(nodes, self.eval_rows), torch.searchsorted(nodes, self.eval_rows, right=True)
        columns = model.ranking_columns()  # [dim + 1, N], shared by the chunks
        for chunk in range(0, len(self.eval_rows), self.eval_chunk):
            rows = self.eval_rows[chunk : chunk + self.eval_chunk]
            key = model.ranking_key(rows, columns)  # [R, N]
            key[torch.arange(len(rows)), rows] = float("inf")  # u itself is not ranked
            lo, count = starts[chunk : chunk + self.eval_chunk], (ends - starts)[chunk : chunk + self.eval_chunk]
            rank, precision, valid = self._ranks(key, lo, count)
            rank_sum += float(rank[valid].sum())
            edges += int(valid.sum())
            ap_sum += float((precision * valid).sum(1).div(count).sum())
        nonfinite = len(self.eval_rows) if not bool(torch.isfinite(model.weight).all()) else 0
        return {
            f"{split}_mean_rank": rank_sum / edges,
            f"{split}_map": ap_sum / len(self.eval_rows),
            f"{split}_nodes": len(self.eval_rows),
            f"{split}_nonfinite": nonfinite,
        }

    def _ranks(self, key: Tensor, lo: Tensor, count: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """For rows with keys key [R, N] and ancestors self.ancestors[lo:lo + count]: the rank of each
        ancestor (nodes outside the ancestors closer, + 1) and the precision at it, [R, K], with the
        mask of real ancestors valid [R, K]. Only the nodes as close as a row's farthest ancestor count,
        so one comparison of the whole chunk with that bound is the only [R, N] pass besides the key."""
        width = int(count.max())
        slot = torch.arange(width, device=key.device)
        valid = slot < count[:, None]  # [R, K]
        anc = self.ancestors[(lo[:, None] + slot).clamp_max(len(self.ancestors) - 1), 1]  # [R, K]
        anc_key = key.gather(1, anc).masked_fill(~valid, float("inf")).sort(1).values  # [R, K] ascending
        bound = anc_key.masked_fill(~valid, float("-inf")).max(1, keepdim=True).values  # [R, 1]
        r, w = (key <= bound).nonzero(as_tuple=True)  # the nodes within the bound, [C] each
        below = (anc_key[r] < key[r, w, None]).sum(1)  # ancestors strictly closer than w, [C]
        hist = torch.zeros(len(key), width + 1, dtype=torch.long, device=key.device)
        hist.index_put_((r, below), torch.ones_like(below), accumulate=True)
        closer = hist.cumsum(1)[:, :width]  # [R, K]: nodes w with key[w] <= anc_key[j], ancestors included
        rank = (closer - slot).to(key.dtype)  # non-ancestors closer, + 1
        return rank, (slot + 1) / closer.to(key.dtype), valid


@numba.njit(cache=True, nogil=True)
def _candidates(u, v, w, related, row_starts, num_nodes, idx, keep):  # pragma: no cover (compiled)
    """idx[b] = (u_b, v_b, w_b1, ...) and keep[b] = (True, w_bj not related to u_b), where w_bj is
    related if w_bj = u_b or u_b * N + w_bj is among u_b's sorted keys related[row_starts[u_b]:
    row_starts[u_b + 1]] (one binary search in that row); a related w_bj is replaced by v_b."""
    for b in range(len(u)):
        idx[b, 0], idx[b, 1], keep[b, 0] = u[b], v[b], True
        row = related[row_starts[u[b]] : row_starts[u[b] + 1]]
        for j in range(w.shape[1]):
            key = u[b] * num_nodes + w[b, j]
            pos = np.searchsorted(row, key)
            hit = w[b, j] == u[b] or (pos < len(row) and row[pos] == key)
            idx[b, 2 + j], keep[b, 1 + j] = v[b] if hit else w[b, j], not hit


def build(cfg, hierarchy: wordnet.Hierarchy | None = None) -> Hypernymy:
    """Poincare embeddings of the closure of data.hierarchy (WordNet nouns, the mammal closure, a toy
    tree), or of `hierarchy` when given (a stand-in); the burn-in's draws for optim.burnin_epochs epochs."""
    d = cfg.data
    hierarchy = hierarchy or wordnet.load(d.hierarchy, cfg.paths.generated_dir)
    return Hypernymy(
        hierarchy.edges,
        hierarchy.size,
        d.negatives,
        d.batch_size,
        cfg.seed,
        d.get("eval_nodes"),
        d.get("eval_chunk", 128),
        cfg.optim.get("burnin_epochs", 0),
        d.get("burnin_negatives"),
        d.get("burnin_dampening", 1.0),
        d.get("fused_batches"),
    )
