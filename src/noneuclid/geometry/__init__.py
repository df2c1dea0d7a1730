"""Tensor math of the manifolds (no nn.Module here)."""
