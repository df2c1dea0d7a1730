"""Layers and manifold-valued parameters."""

from noneuclid.nn.parameters import StiefelParameter

__all__ = ["StiefelParameter"]
