"""The claims engine judged on simulated cells whose true difference is known: how often each verdict
comes out, per kind of interval, relation, seeds per arm and true difference (results/engine/validation.csv).

Each simulated cell draws per-seed values as our runs give them and is judged by the engine's own code
(engine.measured or the shares' Spread, then engine.decided), at delta = 1 in units of a seed's standard
deviation for the t-intervals, and delta = 0.25 for shares:
    Welch      a_i ~ N(D, 1), b_i ~ N(0, 1), n seeds each
    paired     a_i = u_i + e_i + D, b_i = u_i + f_i with u_i ~ N(0, 1), e_i, f_i ~ N(0, 1/2): the
               differences ~ N(D, 1)
    one-arm    a_i ~ N(D, 1) against the bound 0
    shares     a_i ~ Bernoulli(1/2 + D/2), b_i ~ Bernoulli(1/2 - D/2), n seeds each (the outcomes of
               equal counts give the same verdict, so each is judged once)
at true differences D in {0, +-delta/2, +-delta, +-2 delta}. A claim of several cells adds Holm's
adjustment: `family` cells of one claim, every one at D = 0 (better) or D = +-delta (on_par), and the
rate at which any of them decides falsely (the family-wise error).

Further looks, our practice of adding seeds to undecided cells: a cell judged at n seeds that is left
undecided with seeds_to_decide at most LOOK_UP_TO gets that many seeds per arm (n of them the earlier
looks') and is judged again; rows with looks = 2 (once, look_up_to > 0; Welch at 3 seeds, shares at 6) and
looks = 3 and 4 (again where the look before left it undecided and seeds_to_decide, now from all its
seeds, is still at most LOOK_UP_TO: 3 -> 6 -> 9 -> 10, as some cells went over sessions). Each look is a
test at 5 %, so a false "reproduces" over k looks stays below k x 2.5 % (the union bound: 5 % for two,
10 % for four), while a look fixed in advance keeps 2.5 %. Then the same for paired and one-arm cells
(MORE_KINDS), and the finest schedule of every kind, from FINEST_FROM seeds per arm (the fewest any cell is
judged at): a look after every seed added while the cell is undecided, seeds_to_decide not asked, up to
LOOK_UP_TO seeds per arm (to arm a, then b, in turn where the arms are independent, Welch and shares; a
pair, or arm a against its bound, otherwise). Its rows have the most looks seeds can give from n to
LOOK_UP_TO per arm, 1 + 2 (LOOK_UP_TO - n) or 1 + (LOOK_UP_TO - n) (Welch and shares 17, paired and
one-arm 9). It is a model of our practice at its most frequent, not a bound on every practice: another
order of adding seeds looks at other seed counts, and seeds added to an arm that decided cells share judge
them again, where a simulated cell stops at its first decision. These rows judge every look at 5 %: the
rate they show grows with the looks, which is why claims/levels.py reads a later look at a stricter level.

What a correct judge gives: at D = 0 a superiority cell reproduces in at most alpha / 2 = 2.5 % of cells
(the 95 % interval lies above 0 by chance); an equivalence cell at D = +-delta reproduces in at most 2.5 %;
a non-inferiority cell at D = -delta reproduces in at most 2.5 %; at D = 2 delta superiority reproduces
at the power of the two-sided t-test at 5 % (for Welch, approximately: its df are estimated).
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

import pandas as pd

from noneuclid.claims import engine
from noneuclid.claims.data import AT_LEAST, BETTER_RELATION, ON_PAR, Cell, Claim
from noneuclid.claims.significance import ALPHA, Spread, holm

SEEDS = (3, 6, 10)  # seeds per arm in our claims: Table 1 and Brantner 3, PHYDI 6, Table 2 10
SHARE_SEEDS = (6, 10)  # Fig. 4's failed runs
DIFFERENCES = (0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -2.0)  # true differences in units of delta
T_DELTA, SHARE_DELTA = 1.0, 0.25
CELLS = {BETTER_RELATION: 2_000, ON_PAR: 1_000, AT_LEAST: 1_000}  # cells per (kind, n, difference)
FAMILY, FAMILIES = 8, 1_000  # cells of one simulated claim, claims simulated
LOOK_UP_TO = 10  # a further look adds seeds where seeds_to_decide is at most this many per arm
FALSE_RATE = 0.05  # a false "reproduces" at a true null in at most this share of cells: what levels.py holds looks to
LOOKS = ((engine.WELCH, 3), (engine.SHARES, 6))  # (kind, seeds per arm at the first look)
MORE_KINDS = ((engine.PAIRED, 3), (engine.ONE_ARM, 3))  # their looks simulated after LOOKS'
FINEST_FROM = 2  # the finest schedule's seeds per arm at the first look
MORE_LOOKS = (2, 3, 4)  # looks simulated in all (the first included)
KINDS = (engine.WELCH, engine.PAIRED, engine.ONE_ARM, engine.SHARES)
COLUMNS = [
    "kind",
    "relation",
    "n",
    "family",
    "look_up_to",
    "looks",
    "delta",
    "true_difference",
    "difference_in_delta",
    "cells",
    *(f"rate_{v.replace(' ', '_')}" for v in engine.VERDICTS[:4]),
    "rate_decided_falsely",
]


@dataclass(frozen=True)
class Setting:
    kind: str
    relation: str
    n: int
    difference: float  # in units of delta


def simulate(seed: int = 0, scale: float = 1.0) -> pd.DataFrame:
    """One row per setting (COLUMNS): the share of each verdict over its simulated cells, and the rate of
    false decisions (a verdict that the true difference makes wrong); `scale` multiplies every count of
    cells (a quick check at 0.1)."""
    rng, rows = random.Random(seed), []
    for kind in KINDS:
        for n in SHARE_SEEDS if kind == engine.SHARES else SEEDS:
            for relation, cells in CELLS.items():
                for difference in DIFFERENCES:
                    verdicts = [_one(Setting(kind, relation, n, difference), rng) for _ in range(round(scale * cells))]
                    rows.append(_row(Setting(kind, relation, n, difference), verdicts, 1))
    for relation, difference in ((BETTER_RELATION, 0.0), (ON_PAR, 1.0)):
        setting = Setting(engine.WELCH, relation, SEEDS[0], difference)
        families = [_family(setting, rng) for _ in range(round(scale * FAMILIES))]
        rows.append(_row(setting, [_worst(f, setting) for f in families], FAMILY))
    for kinds in (LOOKS, MORE_KINDS):
        for looks in MORE_LOOKS:
            rows += _looked_rows(kinds, scale, lambda setting, looks=looks: looked(setting, rng, looks), looks)
    for kind, _ in LOOKS + MORE_KINDS:
        finest = finest_looks(kind, FINEST_FROM)
        rows += _looked_rows([(kind, FINEST_FROM)], scale, lambda setting: _finest(setting, rng), finest)
    return pd.DataFrame(rows, columns=COLUMNS)


def _looked_rows(kinds, scale: float, verdict, looks: int) -> list[dict]:
    """A row per kind (of `kinds`: kind, seeds at the first look), relation and true difference, over cells
    each judged by `verdict`(setting) after at most `looks` looks."""
    rows = []
    for kind, n in kinds:
        for relation, cells in CELLS.items():
            for difference in DIFFERENCES:
                setting = Setting(kind, relation, n, difference)
                rows.append(_row(setting, [verdict(setting) for _ in range(round(scale * cells))], 1, looks))
    return rows


def finest_counts(kind: str, n: int) -> list[tuple[int, int]]:
    """Seeds per arm (n_a, n_b; n_b = 0 against a bound) at each look of the finest schedule from n seeds per
    arm (module doc): a seed added before each look, to arm a then b where the arms are independent (Welch,
    shares), to both arms of a pair or to the one arm otherwise, up to LOOK_UP_TO per arm."""
    one_arm, alternate = kind == engine.ONE_ARM, kind in (engine.WELCH, engine.SHARES)
    out = [(n, 0 if one_arm else n)]
    while out[-1][0] < LOOK_UP_TO or (alternate and out[-1][1] < LOOK_UP_TO):
        n_a, n_b = out[-1]
        if alternate:
            out.append((n_a + 1, n_b) if n_a == n_b else (n_a, n_b + 1))
        else:
            out.append((n_a + 1, 0 if one_arm else n_b + 1))
    return out


def finest_looks(kind: str, n: int) -> int:
    """The most looks a cell of `kind` judged first at n seeds per arm can have up to LOOK_UP_TO per arm."""
    return len(finest_counts(kind, n))


def _row(setting: Setting, verdicts: list[str], family: int, looks: int = 1) -> dict:
    delta = SHARE_DELTA if setting.kind == engine.SHARES else T_DELTA
    counts = {v: verdicts.count(v) / len(verdicts) for v in engine.VERDICTS[:4]}
    wrong = sum(is_false(v, setting) for v in verdicts) / len(verdicts)
    return {
        "kind": setting.kind,
        "relation": setting.relation,
        "n": setting.n,
        "family": family,
        "look_up_to": LOOK_UP_TO if looks > 1 else 0,
        "looks": looks,
        "delta": delta,
        "true_difference": setting.difference * delta,
        "difference_in_delta": setting.difference,
        "cells": len(verdicts),
        **{f"rate_{v.replace(' ', '_')}": r for v, r in counts.items()},
        "rate_decided_falsely": wrong,
    }


def is_false(verdict: str, setting: Setting) -> bool:
    """Whether a decided verdict is wrong at the setting's true difference D (in units of delta):
    reproduces where the claim does not hold (better: D <= 0; at_least: D <= -1; on_par: |D| >= 1, the
    boundaries included), contradicts where the claim's contrary does not hold (better: D >= 1, an effect as
    large as delta in the paper's direction; at_least: D >= -1; on_par: |D| <= 1)."""
    d, relation = setting.difference, setting.relation
    if verdict == engine.REPRODUCES:
        return not {BETTER_RELATION: d > 0, AT_LEAST: d > -1, ON_PAR: abs(d) < 1}[relation]
    if verdict == engine.CONTRADICTS:
        return not {BETTER_RELATION: d < 1, AT_LEAST: d < -1, ON_PAR: abs(d) > 1}[relation]
    return False


def _cell(setting: Setting) -> tuple[Claim, Cell]:
    delta = SHARE_DELTA if setting.kind == engine.SHARES else T_DELTA
    arms, bound = (("a",), 0.0) if setting.kind == engine.ONE_ARM else (("a", "b"), None)
    cell = Cell("simulated", arms, setting.relation, delta, {}, {}, "", bound, "simulated" if bound == 0.0 else "", "")
    return Claim("simulated", "ours", "", "", "value", "", "higher", "simulated", "", "", (cell,)), cell


def draw(setting: Setting, rng: random.Random) -> tuple[list[float], list[float]]:
    """Per-seed values of arm a and arm b of one simulated cell (module doc)."""
    n, d = setting.n, setting.difference * (SHARE_DELTA if setting.kind == engine.SHARES else T_DELTA)
    if setting.kind == engine.SHARES:
        return (
            [float(rng.random() < 0.5 + d / 2) for _ in range(n)],
            [float(rng.random() < 0.5 - d / 2) for _ in range(n)],
        )
    if setting.kind == engine.ONE_ARM:
        return [rng.gauss(d, 1.0) for _ in range(n)], []
    if setting.kind == engine.PAIRED:
        shared = [rng.gauss(0.0, 1.0) for _ in range(n)]
        half = math.sqrt(0.5)
        return [u + rng.gauss(d, half) for u in shared], [u + rng.gauss(0.0, half) for u in shared]
    return [rng.gauss(d, 1.0) for _ in range(n)], [rng.gauss(0.0, 1.0) for _ in range(n)]


def _one(setting: Setting, rng: random.Random) -> str:
    """The verdict of one simulated cell."""
    return judged(setting, *draw(setting, rng))[1][0]


def looked(setting: Setting, rng: random.Random, looks: int = 2, alphas: Sequence[float] | None = None) -> str:
    """The verdict of one simulated cell after at most `looks` looks, seeds added before each but the first
    (module doc); look k read at alphas[k - 1] and its seeds_to_decide at the next look's level (ALPHA for
    every look where alphas is None; claims/levels.py calibrates them)."""
    level = list(alphas or ()) + [ALPHA] * (looks + 1 - len(alphas or ()))
    a, b = draw(setting, rng)
    verdict = judged(setting, a, b, level[0])[1][0]
    for k in range(1, looks):
        if verdict not in (engine.CONSISTENT, engine.INCONCLUSIVE):
            break
        more = _seeds(setting, a, b, level[k])
        if not setting.n < more <= LOOK_UP_TO:
            break
        extra_a, extra_b = draw(replace(setting, n=int(more) - setting.n), rng)
        setting, a, b = replace(setting, n=int(more)), a + extra_a, b + extra_b
        verdict = judged(setting, a, b, level[k])[1][0]
    return verdict


def _finest(setting: Setting, rng: random.Random) -> str:
    """The verdict of one simulated cell judged after every seed added while it is undecided, up to
    LOOK_UP_TO per arm (module doc)."""
    a, b = draw(setting, rng)
    verdict = judged(setting, a, b)[1][0]
    for n_a, n_b in finest_counts(setting.kind, setting.n)[1:]:
        if verdict not in (engine.CONSISTENT, engine.INCONCLUSIVE):
            break
        extra_a, extra_b = draw(replace(setting, n=1), rng)
        a, b = a + extra_a[: n_a - len(a)], b + extra_b[: n_b - len(b)]
        verdict = judged(setting, a, b)[1][0]
    return verdict


def _seeds(setting: Setting, a: list[float], b: list[float], alpha: float = ALPHA) -> float:
    """seeds_to_decide of a simulated cell at level alpha, by the engine's code (inf beyond LOOK_UP_TO)."""
    if setting.kind == engine.SHARES:
        return _shares_seeds(setting.relation, setting.n, int(sum(a)), int(sum(b)), alpha)
    claim, cell = _cell(setting)
    test, interval, spread = engine.measured(claim, cell, a, b, setting.kind == engine.PAIRED)
    basis = engine.Basis(cell, interval, test.d, spread, setting.n, zero_width=test.kind == "order")
    return basis.seeds(alpha, up_to=LOOK_UP_TO) if alpha > 0 else math.inf


@functools.cache
def _shares_seeds(relation: str, n: int, k_a: int, k_b: int, alpha: float = ALPHA) -> float:
    """seeds_to_decide of shares k_a / n and k_b / n at level alpha (once per outcome)."""
    if not alpha > 0:
        return math.inf
    _, cell = _cell(Setting(engine.SHARES, relation, n, 0.0))
    spread = (k_a / n, k_b / n, 1.0)
    return engine.Basis(cell, engine.SHARES, (k_a - k_b) / n, spread, n).seeds(alpha, up_to=LOOK_UP_TO)


def judged(
    setting: Setting, a: list[float], b: list[float], alpha: float = ALPHA
) -> tuple[float, tuple[str, float, float]]:
    """(the observed difference, (verdict at level alpha, p_value, p_delta)) by the engine's code."""
    if setting.kind == engine.SHARES:
        k_a, k_b = int(sum(a)), int(sum(b))
        d, (verdict, p, p_delta) = (
            k_a / len(a) - k_b / len(b),
            _shares_outcome(setting.relation, len(a), k_a, len(b), k_b),
        )
    else:
        claim, cell = _cell(setting)
        test = engine.measured(claim, cell, a, b, setting.kind == engine.PAIRED)[0]
        d, (verdict, p, p_delta) = test.d, engine.decided(cell, test)
    if alpha != ALPHA:
        delta = SHARE_DELTA if setting.kind == engine.SHARES else T_DELTA
        verdict = engine.classify(d, p, p_delta, setting.relation, delta, alpha)
    return d, (verdict, p, p_delta)


@functools.cache
def _shares_outcome(relation: str, n_a: int, k_a: int, n_b: int, k_b: int) -> tuple[str, float, float]:
    """The verdict of shares k_a / n_a and k_b / n_b, as engine.judge_shares decides it (once per outcome:
    the true difference does not enter)."""
    _, cell = _cell(Setting(engine.SHARES, relation, n_a, 0.0))
    p_a, p_b = k_a / n_a, k_b / n_b
    return engine.decided(cell, Spread("shares", p_a - p_b, shares=(p_a, n_a, p_b, n_b, 1.0)))


def _family(setting: Setting, rng: random.Random) -> list[str]:
    """The verdicts of FAMILY cells of one simulated claim at the setting's true difference, read at their
    Holm-adjusted p-values as engine.adjusted reads them."""
    cells = [judged(setting, *draw(setting, rng)) for _ in range(FAMILY)]
    differences = [d for d, _ in cells]
    ps, ps_delta = (holm([p[i] for _, p in cells]) for i in (1, 2))
    return [
        engine.classify(d, p, p_delta, setting.relation, T_DELTA) for d, p, p_delta in zip(differences, ps, ps_delta)
    ]


def _worst(family: list[str], setting: Setting) -> str:
    """A family's outcome: a false decision in any of its cells (reproduces or contradicts), else its first
    cell's verdict."""
    wrong = [v for v in family if is_false(v, setting)]
    return wrong[0] if wrong else family[0]
