"""The settings identity of a run: the hash of its resolved config that names its folder."""

from __future__ import annotations

import hashlib
import json

import torch
from omegaconf import DictConfig, OmegaConf

from noneuclid.config import CONFIG_DIR

# Settings that change where or how a run is observed, not what it computes (ablation: where the
# config.yaml of earlier runs held an ablation's epochs, which their trainer.epochs holds too).
NOT_SETTINGS = (
    "paths",
    "logger",
    "report",
    "trainer.progress",
    "trainer.threads",
    "trainer.meant_for",
    "trainer.extend",
    "experiment_name",
    "stack",
    "ablation",
    "settings_version",
)
# Switches added after runs existed, off (null) by default: left out of the hash while they are off, so
# that every run from before them keeps its name (a switch that is on is a setting like any other).
OFF_WHEN_NULL = ("trainer.converge", "data.natural_mix", "model.offsets")
# Settings added after runs existed whose default is what those runs computed: left out of the hash
# while they hold it, likewise.
OFF_WHEN_DEFAULT = {"model.chart": "poincare"}
# The version of the settings that configs/train.yaml composes (its settings_version, held there). A
# change that would rename run folders of earlier versions (a setting added or renamed) raises it, with a
# step in runs/migrate.py that brings earlier run folders and results up to it: `python -m noneuclid.runs
# migrate`.
SETTINGS_VERSION: int = OmegaConf.load(CONFIG_DIR / "train.yaml").settings_version


def resolve_device(name: str) -> torch.device:
    """trainer.device: 'auto' is CUDA when present, else the CPU."""
    return torch.device(name if name != "auto" else device_type(name, torch.cuda.is_available()))


def flatten(c: dict, prefix: str = "") -> dict:
    """A nested config dict as {dotted key: value}, each key after `prefix`."""
    out = {}
    for k, v in c.items():
        if isinstance(v, dict):
            out.update(flatten(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


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
    """8 hex digits of the plain config dict `c` without the dotted `keys`, nor the OFF_WHEN_NULL
    switches that are off, nor the OFF_WHEN_DEFAULT settings at their default (c is not changed)."""
    off = [k for k in OFF_WHEN_NULL if _is_null(c, k)]
    off += [k for k, default in OFF_WHEN_DEFAULT.items() if _value(c, k) == default]
    c = drop_keys(json.loads(json.dumps(c)), (*keys, *off))
    return hashlib.sha256(json.dumps(c, sort_keys=True).encode()).hexdigest()[:8]


def _value(c: dict, key: str):
    """The value of the dotted `key` in the plain config dict `c` (None where absent)."""
    for part in key.split("."):
        c = c.get(part) if isinstance(c, dict) else None
    return c


def _is_null(c: dict, key: str) -> bool:
    """Whether the dotted `key` of the plain config dict `c` is null (or absent)."""
    return _value(c, key) is None


def device_type(name: str, cuda: bool) -> str:
    """trainer.device as a run on a machine with (cuda) or without a GPU resolves it: 'cpu' or 'cuda'."""
    return ("cuda" if cuda else "cpu") if name == "auto" else torch.device(name).type


def digest_settings(c: dict, device: str, left_out=()) -> str:
    """8 hex digits of the plain config dict `c` without NOT_SETTINGS (nor the dotted keys `left_out`),
    with trainer.device as `device`."""
    c = json.loads(json.dumps(c))
    c["trainer"]["device"] = device
    return digest_without(c, (*NOT_SETTINGS, *left_out))


def settings_hash(cfg: DictConfig) -> str:
    """8 hex digits of the resolved config without NOT_SETTINGS, with the device as resolved (a GPU run
    and a CPU run of the same settings are different runs): equal settings, equal folder."""
    c = OmegaConf.to_container(cfg, resolve=True)
    return digest_settings(c, resolve_device(cfg.trainer.device).type)


def settings_id(c: dict, cuda: bool) -> str:
    """8 hex digits naming the settings of a run (plain config dict `c`) without its seed: runs that
    differ only by seed share it (the folder's own hash covers the seed too)."""
    # run_name holds the seed; the device is told by env.json (config.yaml may say 'auto')
    return digest_without(dict(c, cuda=cuda), (*NOT_SETTINGS, "seed", "study.run_name", "trainer.device"))
