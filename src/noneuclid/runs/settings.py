"""The settings identity of a run: the hash of its resolved config that names its folder."""

from __future__ import annotations

import hashlib
import json

import torch
from omegaconf import DictConfig, OmegaConf

# Settings that change where or how a run is observed, not what it computes.
NOT_SETTINGS = ("paths", "logger", "report", "trainer.progress", "trainer.threads", "trainer.meant_for",
                "trainer.extend", "experiment_name", "stack", "ablation")
# Settings added after runs existed, with the value that computes what those runs did: left out of the
# hash at that value, so the earlier run folders keep their names (and resume).
LATER_SETTINGS = {"optim.compensated": False, "model.clip_per_tensor": False, "model.project_results": False,
                  "model.carry_gaps": False, "data.order": "shuffled", "trainer.init_dtype": None,
                  "data.burnin_negatives": None, "data.burnin_dampening": 1.0, "data.fused_batches": None}


def resolve_device(name: str) -> torch.device:
    """trainer.device: 'auto' is CUDA when present, else the CPU."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)


def drop_keys(c: dict, keys) -> dict:
    """The plain config dict `c` without the dotted `keys` (e.g. "trainer.threads"), in place; returns c."""
    for key in keys:
        *parents, last = key.split(".")
        node = c
        for p in parents:
            node = node.get(p, {})
        node.pop(last, None)
    return c


def digest_without(c: dict, keys) -> str:
    """8 hex digits of the plain config dict `c` without the dotted `keys` (c is not changed)."""
    c = drop_keys(json.loads(json.dumps(c)), keys)
    return hashlib.sha256(json.dumps(c, sort_keys=True).encode()).hexdigest()[:8]


def _same(a, b) -> bool:
    """a == b of one type (False is not 0)."""
    return type(a) is type(b) and a == b


def settings_hash(cfg: DictConfig) -> str:
    """8 hex digits of the resolved config without NOT_SETTINGS (nor LATER_SETTINGS at their former
    value), with the device as resolved (a GPU run and a CPU run of the same settings are different
    runs): equal settings, equal folder."""
    c = OmegaConf.to_container(cfg, resolve=True)
    c["trainer"]["device"] = resolve_device(cfg.trainer.device).type
    at_former_value = [k for k, v in LATER_SETTINGS.items() if _same(OmegaConf.select(cfg, k, default=None), v)]
    return digest_without(c, (*NOT_SETTINGS, *at_former_value))
