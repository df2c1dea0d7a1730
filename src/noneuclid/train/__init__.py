"""The shared trainer (`train`) and its Hydra entry point (`python -m noneuclid.train`)."""

from noneuclid.train.loop import TrainingDiverged, train

__all__ = ["TrainingDiverged", "train"]
