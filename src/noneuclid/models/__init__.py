"""The papers' networks, each built from its config by `build`."""

from noneuclid.models.mlr import PointMLR
from noneuclid.models.phresnet import PHResNet
from noneuclid.models.phtransformer import PHTransformer
from noneuclid.models.poincare_embedding import PoincareEmbedding
from noneuclid.models.sentence_pair import SentencePairModel
from noneuclid.models.vit import PatchViT

MODELS = {"vit": PatchViT, "sentence_pair": SentencePairModel, "phresnet": PHResNet, "phtransformer": PHTransformer,
          "poincare_embedding": PoincareEmbedding, "point_mlr": PointMLR}


def build(cfg, **data_info):
    """The model named cfg.name, with the remaining keys (and sizes the data dictates) as arguments."""
    if cfg["name"] not in MODELS:
        raise ValueError(f"unknown model {cfg['name']!r}: choose model= one of {sorted(MODELS)}")
    kwargs = {k: v for k, v in dict(cfg).items() if k != "name"}
    return MODELS[cfg["name"]](**kwargs, **data_info)
