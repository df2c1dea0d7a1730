"""noneuclid: reproduction suite for networks with weights or activations outside Euclidean space."""

__version__ = "0.1.0"
