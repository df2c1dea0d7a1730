"""Layers and manifold-valued parameters."""

from noneuclid.nn.hyperbolic import (
                                     HyperbolicMLR,
                                     HypGRUCell,
                                     HypRecurrent,
                                     HypRNNCell,
                                     MobiusLinear,
                                     PoincareParameter,
)
from noneuclid.nn.hypercomplex import PHConv2d, PHMEmbedding, PHMLinear, ResidualGate
from noneuclid.nn.parameters import StiefelParameter

__all__ = ["HyperbolicMLR", "HypGRUCell", "HypRNNCell", "HypRecurrent", "MobiusLinear", "PHConv2d", "PHMEmbedding",
           "PHMLinear", "PoincareParameter", "ResidualGate", "StiefelParameter"]
