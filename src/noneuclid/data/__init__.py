"""Datasets: one module each, plus `files` which finds, verifies and fetches their files."""

from noneuclid.data.files import DATASETS, DataError, fetch, require

__all__ = ["DATASETS", "DataError", "fetch", "require"]
