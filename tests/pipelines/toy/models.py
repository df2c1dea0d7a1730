"""The toy paper's model: logits of two classes from a point of the plane, linear or through one tanh layer."""

from __future__ import annotations

from torch import Tensor, nn


class ToyNet(nn.Module):
    """kind linear: W x + b; kind mlp: W2 tanh(W1 x + b1) + b2 with `hidden` units. x [batch, 2] -> [batch, 2]."""

    def __init__(self, kind: str = "mlp", hidden: int = 16):
        super().__init__()
        if kind not in ("linear", "mlp"):
            raise ValueError(f"unknown kind {kind!r}: choose model.kind=linear or mlp")
        layers = [nn.Linear(2, 2)] if kind == "linear" else [nn.Linear(2, hidden), nn.Tanh(), nn.Linear(hidden, 2)]
        self.net = nn.Sequential(*layers)

    def forward(self, x: Tensor) -> Tensor:
        return self.net(x)


MODELS = {"toy_net": ToyNet}
