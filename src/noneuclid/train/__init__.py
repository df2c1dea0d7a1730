"""The shared trainer (`train`) and its Hydra entry point (`python -m noneuclid.train`)."""

from noneuclid.train.loop import train
from noneuclid.train.trainer import TrainingDiverged

__all__ = ["TrainingDiverged", "train"]
