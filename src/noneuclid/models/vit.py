"""Brantner's vision transformer for MNIST patches (section 4): 16 blocks of attention + x + tanh(Ax+b)."""

from __future__ import annotations

import torch
from torch import Tensor, nn

from noneuclid.nn.attention import MultiHeadAttention


class FeedForward(nn.Module):
    """x -> x + tanh(A x + b) (eq. 15), A Glorot-uniform, b = 0."""

    def __init__(self, dim: int):
        super().__init__()
        self.linear = nn.Linear(dim, dim)
        nn.init.xavier_uniform_(self.linear.weight)
        nn.init.zeros_(self.linear.bias)

    def forward(self, x: Tensor) -> Tensor:
        return x + torch.tanh(self.linear(x))


class PatchViT(nn.Module):
    """Input [batch, tokens, dim] (16 patches of 49 pixels for MNIST); output class probabilities.

    The classifier is softmax(W x_last) (eq. 16) with W Glorot-uniform and no bias, x_last the last
    token. There is no embedding, positional encoding, class token, LayerNorm or attention skip.
    """

    def __init__(
        self,
        dim: int = 49,
        depth: int = 16,
        heads: int = 7,
        num_classes: int = 10,
        stiefel: bool = False,
        euclidean_init: str = "glorot",
    ):
        super().__init__()
        self.blocks = nn.Sequential(
            *[
                nn.Sequential(MultiHeadAttention(dim, heads, stiefel, euclidean_init), FeedForward(dim))
                for _ in range(depth)
            ]
        )
        self.classifier = nn.Linear(dim, num_classes, bias=False)
        nn.init.xavier_uniform_(self.classifier.weight)

    def forward(self, x: Tensor) -> Tensor:
        """x [batch, tokens, dim] -> class probabilities [batch, num_classes], read from the last token."""
        return torch.softmax(self.classifier(self.blocks(x)[:, -1]), dim=-1)


def load_gml(path) -> PatchViT:
    """The network that GeometricMachineLearning.jl (Brantner's Julia package) stored in the HDF5 file
    `path`, as a PatchViT (float32, eval mode); Stiefel projections when the file stores them as
    manifold points (groups holding `A`), Euclidean ones when it stores plain arrays.

    Layout (16 blocks: odd groups L1..L31 attention, even groups L2..L32 x + tanh(Wx + b), L33 the
    classifier): `L{2l-1}/{PQ,PK,PV}/head_h[/A]`, `L{2l}/weight`, `L{2l}/bias`, `L33/weight`.
    Julia stores matrices column-major, so h5py shows every matrix transposed: a 49 x 7 projection
    P as 7 x 49, W (49 x 49) as W^T, the classifier (10 x 49) as 49 x 10. Their network computes
    exactly our forward pass on our input format (see PatchViT and data/mnist.patches).
    """
    import h5py

    with h5py.File(path, "r") as f:
        depth = sum(1 for k in f if k.startswith("L")) // 2
        first = f["L1/PQ/head_1"]
        stiefel = isinstance(first, h5py.Group)
        heads = len(f["L1/PQ"])
        dim = f["L2/weight"].shape[0]
        num_classes = f[f"L{2 * depth + 1}/weight"].shape[1]
        model = PatchViT(dim, depth, heads, num_classes, stiefel=stiefel)

        def array(name: str) -> Tensor:
            node = f[name]
            return torch.from_numpy(node["A"][()] if isinstance(node, h5py.Group) else node[()])

        with torch.no_grad():
            for layer, (attention, feed_forward) in enumerate(model.blocks):
                for i, proj in enumerate(("PQ", "PK", "PV")):  # weight[i, h] is head h's 49 x 7 P
                    attention.weight[i] = torch.stack(
                        [array(f"L{2 * layer + 1}/{proj}/head_{h + 1}").T for h in range(heads)]
                    )
                feed_forward.linear.weight.copy_(array(f"L{2 * layer + 2}/weight").T)
                feed_forward.linear.bias.copy_(array(f"L{2 * layer + 2}/bias"))
            model.classifier.weight.copy_(array(f"L{2 * depth + 1}/weight").T)
    return model.eval()
