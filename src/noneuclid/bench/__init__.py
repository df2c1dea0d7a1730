"""Benchmarks: python -m noneuclid.bench <name>."""
