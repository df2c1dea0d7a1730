"""What PHYDI's Tables 1-2 (phydi_resnet) and Fig. 4 (phydi_fig4) share: claims/phydi.yaml, the prose of
templates/phydi.md, a cell's curves as epoch x seed, and the first epoch a curve reaches a level."""

from __future__ import annotations

import functools
import math

import pandas as pd

from noneuclid.claims import data as claims_data
from noneuclid.report import prose

CLAIMS = claims_data.load("phydi")
NUMBERS = CLAIMS.numbers  # the levels and reference values the metrics use (claims/phydi.yaml, numbers)
NAMES = {"standard": "standard", "wkp": "WKP", "phydi": "PHYDI", "post": "PostNorm", "pre": "PreNorm"}
Curves = pd.DataFrame  # epoch (index, from 1) x seed (columns): one metric per finished run
fill = functools.partial(prose.fill, "phydi")  # a section of templates/phydi.md, its fields filled in


def no_runs(arms, have) -> str:
    """'no finished runs of A, B' naming the arms that are not in `have`; '' where none is missing."""
    missing = [NAMES[a] for a in arms if a not in have]
    return f"no finished runs of {', '.join(missing)}" if missing else ""


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
