"""The level each look is judged at: a cell judged again after seeds were added is read at a stricter level,
so that a false "reproduces" stays within FALSE_RATE over all its looks (results/engine/levels.csv).

A cell at its L-th look (the L-th distinct seed count it is judged at, claims/plan.py) is decided at level
alpha_L: the 95 % interval becomes the (1 - alpha_L) one and Holm's adjusted p-values are compared with
alpha_L. As a cell stops at its first decision, the looks form a sequential test with the boundaries
alpha_1 >= alpha_2 >= ..., and its false-"reproduces" rate over L looks is the chance that a look k <= L is
the first to decide, deciding "reproduces" where the claim does not hold. The levels are spent greedily,
look by look, per kind of interval:
    alpha_1 = ALPHA (a cell judged once, as the engine judges it),
    alpha_k = the largest of GRID (at most alpha_{k-1}) whose rate over k looks stays within CALIBRATED_TO,
              worst over the relations and true differences where "reproduces" is false; 0 where none does
              (no look k decides).
The rates come from two schedules of adding seeds to a cell that stands undecided (`counts`): the finest of
claims/validation.py (a look after every seed added, from FINEST_FROM seeds per arm up to LOOK_UP_TO: many
looks, close together) and a sparse one (3, 6, 9, 10 seeds per arm: few looks, far apart, each nearly a new
test), each simulated once per cell with its p-values at every look, so each candidate is a read of the same
paths; the worst of both counts. CALIBRATED_TO lies half a point below FALSE_RATE, about the Monte Carlo
error of 1,000-2,000 cells: `check` then simulates anew (another seed, CHECK_SCALE times the cells: a Monte
Carlo error of about 0.35 points at 5 %, so that the worst of its rates is not a noise-sized excess) both
schedules and validation's seeds_to_decide one (2-4 looks) at these levels, and a look is validated where
every rate of that check is within FALSE_RATE (`validated`). Where the first levels equal ALPHA, the engine's
verdicts at those looks stand as they were; a later look can only turn a decided cell undecided.
"""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pandas as pd

from noneuclid.claims import engine, validation
from noneuclid.claims.data import AT_LEAST, BETTER_RELATION, ON_PAR
from noneuclid.claims.significance import ALPHA
from noneuclid.claims.validation import (
    CELLS,
    DIFFERENCES,
    FALSE_RATE,
    FINEST_FROM,
    KINDS,
    LOOK_UP_TO,
    MORE_LOOKS,
    Setting,
    is_false,
)

CALIBRATED_TO = FALSE_RATE - 0.005  # the greedy target, below FALSE_RATE by about the Monte Carlo error
CHECK_SCALE = 4  # the check's cells per setting, as a multiple of the calibration's (CELLS)
GRID = (0.05, 0.04, 0.03, 0.025, 0.02, 0.015, 0.01, 0.0075, 0.005, 0.0025, 0.001, 0.0005, 0.0001)
FIRST = {engine.WELCH: 3, engine.SHARES: 6, engine.PAIRED: 3, engine.ONE_ARM: 3}  # seeds_to_decide schedule's
SPARSE_STEP = 3  # seeds per arm added at each look of the sparse schedule: 3, 6, 9, 10 (6, 9, 10 for shares)
FINEST_LOOKS = {kind: validation.finest_looks(kind, FINEST_FROM) for kind in KINDS}  # the most looks simulated
SCHEDULES = ("finest", "sparse")
CHECKS = ("rate_finest", "rate_sparse", "rate_seeds_schedule")  # levels.csv's rates of the new simulation
COLUMNS = ["kind", "look", "alpha", "rate_calibrated", "rate_finest", "rate_sparse", "rate_seeds_schedule", "cells"]


def null_settings(kind: str) -> list[Setting]:
    """The settings of a kind where "reproduces" is false (every relation, at FINEST_FROM seeds per arm)."""
    settings = [Setting(kind, r, FINEST_FROM, d) for r in CELLS for d in DIFFERENCES]
    return [s for s in settings if is_false(engine.REPRODUCES, s)]


def counts(kind: str, schedule: str) -> list[tuple[int, int]]:
    """Seeds per arm (n_a, n_b; n_b = 0 against a bound) at each look of a schedule: "finest"
    (validation.finest_counts from FINEST_FROM per arm) or "sparse", SPARSE_STEP more per arm at each look
    from the seeds_to_decide schedule's first look (FIRST), up to LOOK_UP_TO per arm."""
    if schedule == "finest":
        return validation.finest_counts(kind, FINEST_FROM)
    steps = [*range(FIRST[kind], LOOK_UP_TO, SPARSE_STEP), LOOK_UP_TO]
    return [(n, 0 if kind == engine.ONE_ARM else n) for n in steps]


def paths(setting: Setting, cells: int, rng: random.Random, schedule: str = "finest") -> dict[str, np.ndarray]:
    """A schedule's cells at one setting, judged at every look whatever they show: arrays (cells, looks) of
    the difference d, p_value and p_delta (nan past the schedule's last look)."""
    looks = counts(setting.kind, schedule)
    out = {key: np.full((cells, FINEST_LOOKS[setting.kind]), np.nan) for key in ("d", "p", "p_delta")}
    for i in range(cells):
        a, b = [], []
        for k, (n_a, n_b) in enumerate(looks):
            more_a, more_b = n_a - len(a), n_b - len(b)
            extra_a, extra_b = validation.draw(replace(setting, n=max(more_a, more_b)), rng)
            a, b = a + extra_a[:more_a], b + extra_b[:more_b]
            d, (_, p, p_delta) = validation.judged(replace(setting, n=n_a), a, b)
            out["d"][i, k], out["p"][i, k], out["p_delta"][i, k] = d, p, p_delta
    return out


def decisions(setting: Setting, path: dict[str, np.ndarray], alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """(decided, reproduces) at every look of the paths at level alpha, as engine.classify reads them."""
    p, p_delta, d = path["p"], path["p_delta"], path["d"]
    below, below_delta = p < alpha, p_delta < alpha  # nan compares False
    delta = validation.SHARE_DELTA if setting.kind == engine.SHARES else validation.T_DELTA
    if setting.relation == ON_PAR:
        return below | below_delta, below
    side = d > (-delta if setting.relation == AT_LEAST else 0.0)
    decided = below | (below_delta if setting.relation == BETTER_RELATION else False)
    return decided, below & side


def false_rate(setting: Setting, path: dict[str, np.ndarray], alphas: list[float]) -> float:
    """The share of cells whose first decision over the looks judged at `alphas` (one per look) is a false
    "reproduces" (every setting of null_settings: any "reproduces" is false)."""
    open_, wrong = np.ones(len(path["p"]), dtype=bool), 0
    for k, alpha in enumerate(alphas):
        decided, reproduces = decisions(setting, {key: v[:, k] for key, v in path.items()}, alpha)
        wrong += int((open_ & reproduces).sum())
        open_ &= ~decided
    return wrong / len(open_)


def calibrate(kind: str, scale: float = 1.0, seed: int = 0) -> pd.DataFrame:
    """The levels of `kind`, look by look (module doc): columns look, alpha, rate_calibrated (the worst
    false-"reproduces" rate over that many looks, of either schedule, on the calibration's own paths)."""
    simulated = simulate(kind, scale, random.Random(seed))
    alphas, rows = [], []
    for look in range(1, FINEST_LOOKS[kind] + 1):
        candidates = [ALPHA] if look == 1 else [a for a in GRID if a <= alphas[-1]]
        for alpha in [*candidates, 0.0]:  # 0: no look k decides, where no candidate holds the rate
            rate = max(false_rate(s, p, [*alphas, alpha]) for s, p in simulated)
            if rate <= CALIBRATED_TO or look == 1 or alpha == 0.0:
                break
        alphas.append(alpha)
        rows.append({"kind": kind, "look": look, "alpha": alpha, "rate_calibrated": rate})
    return pd.DataFrame(rows)


def simulate(kind: str, scale: float, rng: random.Random, schedules=SCHEDULES) -> list[tuple[Setting, dict]]:
    """(setting, paths) of every null setting of the kind in each schedule."""
    return [
        (s, paths(s, round(scale * CELLS[s.relation]), rng, schedule))
        for schedule in schedules
        for s in null_settings(kind)
    ]


def check(levels: pd.DataFrame, scale: float = 1.0, seed: int = 1) -> pd.DataFrame:
    """`levels` with the worst false-"reproduces" rate in a new simulation over as many looks as each row's:
    of the finest and the sparse schedule (rate_finest, rate_sparse; nan past the sparse one's looks) and of
    validation's seeds_to_decide schedule over one look and MORE_LOOKS (rate_seeds_schedule, nan past them);
    cells: the fewest of any setting."""
    rng, out = random.Random(seed), []
    for kind, group in levels.groupby("kind", sort=False):
        alphas, rates = list(group.alpha), {}
        for schedule in SCHEDULES:
            simulated = simulate(kind, scale, rng, (schedule,))
            last = len(counts(kind, schedule))
            rates[f"rate_{schedule}"] = [
                max(false_rate(s, p, alphas[:look]) for s, p in simulated) if look <= last else np.nan
                for look in group.look
            ]
        nulls = null_settings(kind)
        schedule = {
            looks: max(_seeds_schedule_rate(replace(s, n=FIRST[kind]), alphas, looks, scale, rng) for s in nulls)
            for looks in (1, *MORE_LOOKS)
        }
        cells = min(round(scale * CELLS[s.relation]) for s in nulls)
        schedule_rates = [schedule.get(look, np.nan) for look in group.look]
        out.append(group.assign(**rates, rate_seeds_schedule=schedule_rates, cells=cells))
    return pd.concat(out, ignore_index=True)[COLUMNS]


def _seeds_schedule_rate(setting: Setting, alphas: list[float], looks: int, scale: float, rng) -> float:
    """The false-"reproduces" rate of validation's seeds_to_decide schedule over `looks` looks, look k read
    at alphas[k - 1] and its seeds to add at alphas[k]."""
    cells = round(scale * CELLS[setting.relation])
    verdicts = [validation.looked(setting, rng, looks, alphas) for _ in range(cells)]
    return sum(v == engine.REPRODUCES for v in verdicts) / cells


def levels(scale: float = 1.0) -> pd.DataFrame:
    """Every kind's levels (calibrate) with their check in a new, larger simulation (CHECK_SCALE; COLUMNS)."""
    calibrated = pd.concat([calibrate(kind, scale) for kind in KINDS], ignore_index=True)
    return check(calibrated, scale * CHECK_SCALE)


def validated(levels: pd.DataFrame) -> dict[str, int]:
    """kind -> the most looks validated at its levels: the largest L with alpha_L > 0 such that every
    check rate up to L (CHECKS, where simulated) is within FALSE_RATE."""
    out = {}
    for kind, group in levels.sort_values("look").groupby("kind"):
        rates = group[[c for c in CHECKS if c in group]].max(axis=1, skipna=True)
        ok = ((rates <= FALSE_RATE) & (group.alpha > 0)).astype(int).cummin().astype(bool)
        out[kind] = int(group.look[ok.to_numpy()].max()) if ok.any() else 0
    return out


def schedule(levels: pd.DataFrame) -> dict[str, tuple[float, ...]]:
    """kind -> its levels, look 1 first (levels.csv's rows)."""
    return {kind: tuple(group.sort_values("look").alpha) for kind, group in levels.groupby("kind")}


def alpha_at(alphas: dict[str, tuple[float, ...]], kind: str, look: int) -> float:
    """The level of a cell of `kind` at its look-th look (`schedule`): ALPHA for a first look or a kind without
    levels (an exact value), 0 past the looks calibrated (no further look decides)."""
    if look <= 1 or kind not in alphas:
        return ALPHA
    return alphas[kind][look - 1] if look <= len(alphas[kind]) else 0.0
