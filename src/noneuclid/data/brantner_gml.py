"""The authors' reference data for Brantner's MNIST runs (GeometricMachineLearning.jl's documentation run,
<data>/reference/brantner_gml): mnist_metadata.h5 holds per run k its 500 per-epoch training losses
(loss_array<k>) and its test accuracy (accuracy_score<k>); mnist_nn<k>.h5 the trained network
(models.vit.load_gml reads those)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

METADATA = "mnist_metadata.h5"


def reference_dir(data_dir=None) -> Path:
    """<data>/reference/brantner_gml (data root: $NONEUCLID_DATA_DIR, else ./data)."""
    return Path(data_dir or os.environ.get("NONEUCLID_DATA_DIR", "data")) / "reference" / "brantner_gml"


def authors_metadata(reference: Path, setups: dict[str, dict]) -> dict[str, dict]:
    """Per setup of `setups` (name -> {"gml": k, ...}, the authors' run k): its 500 per-epoch training losses
    ("curve") and its test accuracy."""
    import h5py

    with h5py.File(reference / METADATA, "r") as f:
        return {
            setup: {
                "curve": np.asarray(f[f"loss_array{ref['gml']}"][()], dtype=float),
                "accuracy": float(f[f"accuracy_score{ref['gml']}"][()]),
            }
            for setup, ref in setups.items()
        }


def authors_curves(reference: Path, setups: dict[str, dict]) -> dict[str, np.ndarray] | None:
    """Per setup, the authors' training curve (authors_metadata); None where `reference` has no metadata."""
    if not (reference / METADATA).is_file():
        return None
    return {setup: meta["curve"] for setup, meta in authors_metadata(reference, setups).items()}
