"""`python -m noneuclid.evaluate engine-validation`: the claims engine judged on simulated cells of known
truth (claims.validation), written as results/engine/validation.csv and its power figure (validation.png)."""

from __future__ import annotations

from pathlib import Path

from noneuclid.claims import validation
from noneuclid.figures import evaluations as drawn
from noneuclid.tables import FLOAT_FORMAT

OUT = Path("results") / "engine"


def make(out: Path = OUT, scale: float = 1.0, seed: int = 0) -> list[Path]:
    """validation.csv (every setting's verdict rates) and validation.png/.pdf in `out`."""
    out.mkdir(parents=True, exist_ok=True)
    rows = validation.simulate(seed, scale)
    rows.to_csv(out / "validation.csv", index=False, float_format=FLOAT_FORMAT)
    drawn.power(rows, out / "validation")
    return [out / name for name in ("validation.csv", "validation.png", "validation.pdf")]
