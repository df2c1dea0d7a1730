"""`python -m noneuclid.evaluate engine-validation`: the claims engine judged on simulated cells of known
truth (claims.validation), written as results/engine/validation.csv and its power figure (validation.png),
and the level of each look with its check (claims.levels: results/engine/levels.csv)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from noneuclid import tables
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
    """validation.png/.pdf and levels.md/.tex in `out`, from its validation.csv and levels.csv as written (so
    that the committed CSVs bring back the same bytes)."""
    power(pd.read_csv(out / "validation.csv"), out / "validation")
    table = pd.read_csv(out / "levels.csv")
    caption = LEVELS_CAPTION.format(
        calibrated=_percent(levels.CALIBRATED_TO), scale=levels.CHECK_SCALE, rate=_percent(validation.FALSE_RATE)
    )
    paths = tables.write(out, "levels", None, shown_levels(table), "The level of each look", caption)
    return [out / "validation.png", out / "validation.pdf", *paths]


LEVELS_CAPTION = (
    "The level a cell is decided at on its k-th look (the k-th seed count it is judged at), per kind of "
    "interval (claims/levels.py): spent look by look so that a false 'reproduces' over all looks stays within "
    "{calibrated} of simulated cells, and checked on a new simulation of {scale} times the cells; a look past "
    "those validated (a check rate over {rate}) is marked."
)


def _percent(rate: float) -> str:
    """0.045 -> '4.5 %'."""
    return f"{100 * rate:g} %"


def shown_levels(table: pd.DataFrame) -> pd.DataFrame:
    """One row per look, one column per kind of interval: its level as a percentage, '(not validated)' after
    it past the looks validated, '-' past the looks simulated."""
    validated = levels.validated(table)
    text = [f"{r.alpha:.2%}" + (" (not validated)" if r.look > validated[r.kind] else "") for r in table.itertuples()]
    wide = table.assign(level=text).pivot(index="look", columns="kind", values="level")
    return wide[list(dict.fromkeys(table.kind))].reset_index().fillna("-")
