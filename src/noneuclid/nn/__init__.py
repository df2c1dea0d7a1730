"""Layers and manifold-valued parameters."""

from noneuclid.nn.hyperbolic import HyperbolicMLR, MobiusLinear
from noneuclid.nn.hypercomplex import PHConv2d, PHMEmbedding, PHMLinear, ResidualGate
from noneuclid.nn.parameters import PoincareParameter, StiefelParameter
from noneuclid.nn.recurrent import Recurrent

__all__ = [
    "HyperbolicMLR",
    "MobiusLinear",
    "PHConv2d",
    "PHMEmbedding",
    "PHMLinear",
    "PoincareParameter",
    "Recurrent",
    "ResidualGate",
    "StiefelParameter",
]
