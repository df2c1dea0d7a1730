"""Layers and manifold-valued parameters."""

from noneuclid.nn.hyperbolic import (
                                     HyperbolicMLR,
                                     HypGRUCell,
                                     HypRecurrent,
                                     HypRNNCell,
                                     MobiusLinear,
                                     PoincareParameter,
)
from noneuclid.nn.parameters import StiefelParameter

__all__ = ["HyperbolicMLR", "HypGRUCell", "HypRNNCell", "HypRecurrent", "MobiusLinear", "PoincareParameter",
           "StiefelParameter"]
