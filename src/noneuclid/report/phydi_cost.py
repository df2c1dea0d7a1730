"""What PHYDI's runs cost on this machine: the ResNets' training speed, and the training time of every sweep."""

from __future__ import annotations

import pandas as pd

from noneuclid.report.phydi_claims import MODELS
from noneuclid.report.phydi_resnet import IMAGES
from noneuclid.runs import select


def speed(resnets: pd.DataFrame) -> pd.DataFrame:
    """Per depth, n and torch threads of the finished runs: the median of their median seconds per epoch,
    images per second (data.train_size; null: all of CIFAR-10's)."""
    rows = [
        {
            "model": f"{MODELS['phresnet']}{int(settings['model.depth'])}",
            "n": int(settings["model.n"]),
            "runs": len(t),
            "threads": int(threads),
            "seconds_per_epoch": t.median_seconds_per_epoch.median(),
            "images_per_second": t["cfg.data.train_size"].fillna(IMAGES).median() / t.median_seconds_per_epoch.median(),
        }
        for settings, g in select.by_settings(select.finished(resnets), ["model.depth", "model.n"])
        for threads, t in g.groupby("env.torch_threads")
    ]
    return pd.DataFrame(rows, columns=["model", "n", "runs", "threads", "seconds_per_epoch", "images_per_second"])


def compute(runs: pd.DataFrame) -> pd.DataFrame:
    """Per sweep, model and n of the finished runs: runs, training hours in all, median minutes per run."""
    rows = [
        {
            "experiment": s["experiment_name"],
            "model": f"{MODELS[s['model.name']]}{int(s['model.depth'])}",
            "n": int(s["model.n"]),
            "runs": len(g),
            "train_hours": g.train_seconds.sum() / 3600,
            "minutes_per_run": g.train_seconds.median() / 60,
        }
        for s, g in select.by_settings(
            select.finished(runs), ["experiment_name", "model.name", "model.depth", "model.n"]
        )
    ]
    return pd.DataFrame(rows, columns=["experiment", "model", "n", "runs", "train_hours", "minutes_per_run"])
