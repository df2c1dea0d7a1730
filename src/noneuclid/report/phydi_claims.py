"""What PHYDI's Tables 1-2 (phydi_resnet) and Fig. 4 (phydi_fig4) share: claims/phydi.yaml and the prose of
templates/phydi.md."""

from __future__ import annotations

import functools

from noneuclid import prose
from noneuclid.claims import data as claims_data

CLAIMS = claims_data.load("phydi")
NUMBERS = CLAIMS.numbers  # the levels and reference values the metrics use (claims/phydi.yaml, numbers)
NAMES = CLAIMS.labels["arms"]  # model.init / model.norm -> the paper's name
MODELS = CLAIMS.labels["models"]  # cfg.model.name -> the paper's name
fill = functools.partial(prose.fill, "phydi")  # a section of templates/phydi.md, its fields filled in


def no_runs(arms: dict) -> str:
    """'no finished runs of A, B': the arms (arm -> its runs or values) without any; '' where every arm has some."""
    missing = [NAMES[a] for a, found in arms.items() if not len(found)]
    return fill("no_runs_of", arms=", ".join(missing)) if missing else ""
