"""What PHYDI's runs cost on this machine: the ResNets' training speed, and the training time of every sweep."""

from __future__ import annotations

import pandas as pd

from noneuclid.report.phydi_claims import MODELS
from noneuclid.report.phydi_resnet import IMAGES
from noneuclid.runs import select


def speed(resnets: pd.DataFrame) -> pd.DataFrame:
    """Per depth, n and torch threads of the finished runs: the median of their median seconds per epoch,
    images per second (data.train_size; null: all of CIFAR-10's)."""
    rows = []
    for s, g in select.by_settings(select.finished(resnets), ["model.depth", "model.n"]):
        model = f"{MODELS['phresnet']}{int(s['model.depth'])}"
        for threads, t in g.groupby("env.torch_threads"):
            seconds, images = t.median_seconds_per_epoch.median(), t["cfg.data.train_size"].fillna(IMAGES).median()
            rows.append([model, int(s["model.n"]), len(t), int(threads), seconds, images / seconds])
    return pd.DataFrame(rows, columns=["model", "n", "runs", "threads", "seconds_per_epoch", "images_per_second"])


def compute(runs: pd.DataFrame) -> pd.DataFrame:
    """Per sweep, model and n of the finished runs: runs, training hours in all, median minutes per run."""
    rows, keys = [], ["experiment_name", "model.name", "model.depth", "model.n"]
    for s, g in select.by_settings(select.finished(runs), keys):
        model = f"{MODELS[s['model.name']]}{int(s['model.depth'])}"
        hours, minutes = g.train_seconds.sum() / 3600, g.train_seconds.median() / 60
        rows.append([s["experiment_name"], model, int(s["model.n"]), len(g), hours, minutes])
    return pd.DataFrame(rows, columns=["experiment", "model", "n", "runs", "train_hours", "minutes_per_run"])
