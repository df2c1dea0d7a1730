"""`python -m noneuclid.evaluate engine-validation`: the claims engine judged on simulated cells of known
truth (claims.validation), written as results/engine/validation.csv and its power figure (validation.png),
and the level of each look with its check (claims.levels: results/engine/levels.csv)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from noneuclid.claims import levels, validation
from noneuclid.figures.evaluations import power
from noneuclid.tables import FLOAT_FORMAT

OUT = Path("results") / "engine"


def make(out: Path = OUT, scale: float = 1.0, seed: int = 0) -> list[Path]:
    """validation.csv (every setting's verdict rates) and levels.csv (every look's level) in `out`, then
    what `drawn` makes of them."""
    out.mkdir(parents=True, exist_ok=True)
    validation.simulate(seed, scale).to_csv(out / "validation.csv", index=False, float_format=FLOAT_FORMAT)
    levels.levels(scale).to_csv(out / "levels.csv", index=False, float_format=FLOAT_FORMAT)
    return [out / "validation.csv", out / "levels.csv", *drawn(out)]


def drawn(out: Path) -> list[Path]:
    """validation.png/.pdf in `out`, from its validation.csv as written (so that the committed CSV brings back
    the same bytes)."""
    power(pd.read_csv(out / "validation.csv"), out / "validation")
    return [out / "validation.png", out / "validation.pdf"]
