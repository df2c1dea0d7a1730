"""Binary MLR on points of the Poincare ball, three ways (Ganea et al., Table 2)."""

from __future__ import annotations

from torch import Tensor, nn

from noneuclid.geometry import poincare as pb
from noneuclid.nn.hyperbolic import HyperbolicMLR

GEOMETRIES = ("hyperbolic", "euclidean", "euclidean_log0")


class PointMLR(nn.Module):
    """Logits [..., classes] of points x [..., dim] of the ball:
        hyperbolic      HyperbolicMLR(x): a gyroplane {x: <-p_k (+) x, a_k> = 0} per class
        euclidean       W x + b on the raw coordinates
        euclidean_log0  W log_0(x) + b, on the points mapped to the tangent space at 0
    """

    def __init__(self, dim: int, geometry: str, classes: int = 2, c: float = 1.0):
        super().__init__()
        if geometry not in GEOMETRIES:
            raise ValueError(f"unknown geometry {geometry!r}: choose model.geometry= one of {GEOMETRIES}")
        self.geometry, self.c = geometry, c
        self.mlr = HyperbolicMLR(dim, classes, c) if geometry == "hyperbolic" else nn.Linear(dim, classes)

    def forward(self, x: Tensor) -> Tensor:
        return self.mlr(pb.logmap0(x, self.c) if self.geometry == "euclidean_log0" else x)
