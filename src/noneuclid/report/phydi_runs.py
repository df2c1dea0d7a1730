"""What PHYDI's Tables 1-2 (phydi_resnet) and Fig. 4 (phydi_fig4) share: claims/phydi.yaml, one model's runs,
a cell's curves as epoch x seed, and the first epoch a curve reaches a level."""

from __future__ import annotations

import math

import pandas as pd

from noneuclid.claims import data as claims_data

CLAIMS = claims_data.load("phydi")
NUMBERS = CLAIMS.numbers  # the levels and reference values the metrics use (claims/phydi.yaml, numbers)
NAMES = {"standard": "standard", "wkp": "WKP", "phydi": "PHYDI", "post": "PostNorm", "pre": "PreNorm"}
Curves = pd.DataFrame  # epoch (index, from 1) x seed (columns): one metric per finished run


def of_model(runs: pd.DataFrame, curves: pd.DataFrame, model: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the runs of `model` (cfg.model.name), their evaluated epochs, the last where one is logged twice)."""
    runs = runs[runs["cfg.model.name"] == model]
    curves = curves[curves.run.isin(runs.run) & curves["epoch"].notna() & curves.filter(like="val_").notna().any(axis=1)]
    return runs, curves.drop_duplicates(["run", "epoch"], keep="last")


def pivot(runs: pd.DataFrame, curves: pd.DataFrame, column: str) -> Curves:
    """epoch x seed of `column` for these runs (one per seed)."""
    if runs["cfg.seed"].duplicated().any():
        raise ValueError(f"runs {', '.join(runs.run)} share a cell and a seed but differ in another setting: "
                         f"keep one setting per profile under runs/phydi/<profile> (move the others away)")
    c = curves[curves.run.isin(runs.run)].merge(runs[["run", "cfg.seed"]], on="run")
    return c.pivot(index="epoch", columns="cfg.seed", values=column).sort_index()


def epochs_to(curve: pd.Series, threshold: float, above: bool = True) -> float:
    """The first epoch (curve's index) whose value is >= threshold (above) or <= threshold; inf if none."""
    hit = curve[curve >= threshold] if above else curve[curve <= threshold]
    return float(hit.index.min()) if len(hit) else math.inf
