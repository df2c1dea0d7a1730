"""The papers' networks, each built from its config by `build` (on a device, in a dtype: `build_on`)."""

import torch

from noneuclid import extensions
from noneuclid.models.mlr import PointMLR
from noneuclid.models.phresnet import PHResNet
from noneuclid.models.phtransformer import PHTransformer
from noneuclid.models.poincare_embedding import PoincareEmbedding
from noneuclid.models.sentence_pair import SentencePairModel
from noneuclid.models.vit import PatchViT

MODELS = {
    "vit": PatchViT,
    "sentence_pair": SentencePairModel,
    "phresnet": PHResNet,
    "phtransformer": PHTransformer,
    "poincare_embedding": PoincareEmbedding,
    "point_mlr": PointMLR,
}


def build(cfg, **data_info):
    """The model named cfg.name (MODELS, then those of papers kept outside: extensions.py), with the remaining
    keys (and sizes the data dictates) as arguments."""
    models = {**extensions.declared("MODELS"), **MODELS}
    if cfg["name"] not in models:
        raise ValueError(f"unknown model {cfg['name']!r}: choose model= one of {sorted(models)}")
    kwargs = {k: v for k, v in dict(cfg).items() if k != "name"}
    return models[cfg["name"]](**kwargs, **data_info)


def build_on(cfg, device, dtype, init_dtype=None, **data_info):
    """build(cfg, **data_info) created in `init_dtype` (default `dtype`: manifold weights then start on
    the manifold in it), so its initial weights are drawn there, then cast to `dtype` on `device`. torch
    draws different numbers for one seed in float32 and float64; init_dtype=float64 gives a float32 run
    the initial weights of the float64 run of its seed."""
    previous = torch.get_default_dtype()
    torch.set_default_dtype(init_dtype or dtype)
    try:
        model = build(cfg, **data_info)
    finally:
        torch.set_default_dtype(previous)
    return model.to(device, dtype)  # a no-op cast when drawn in dtype
