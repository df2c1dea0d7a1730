"""What Brantner's report (report.brantner) and its evaluated part (report.brantner_evaluated) share:
claims/brantner.yaml, with the paper's four setups (label, colour, Table 2's minutes, the authors' run) and
the bound of the orthonormality claim read from it, and the prose of templates/brantner.md."""

from __future__ import annotations

import functools

from noneuclid import prose
from noneuclid.claims import data as claims_data

CLAIMS = claims_data.load("brantner")
SETUPS = CLAIMS.reference["setups"]  # the paper's four runs -> label, colour, Table 2's minutes, the authors' run
OPTIMIZERS = {
    name.removesuffix("_stiefel"): {**setup, "label": setup["label"].removesuffix(" + Stiefel")}
    for name, setup in SETUPS.items()
    if name.endswith("_stiefel")
}  # adam, momentum, gd
BOUND = next(c.bound for c in CLAIMS["orthonormality_to_machine_precision"].cells if c.arms[0].startswith("drift_"))
text = functools.partial(prose.fill, "brantner")  # a section of templates/brantner.md, its fields filled in
