"""Which undecided cells more seeds would decide, and what the seeds cost: the validated practice of
claims/validation.py (a further look at up to LOOK_UP_TO seeds per arm, where seeds_to_decide says so)
as a list to work from.

    python -m noneuclid.claims next [--results results] [--kind paper] [--up-to 10]

A cell qualifies when its verdict is consistent or inconclusive and its seeds_to_decide (at the claim's
adjusted level) is at most up_to. Its cost: the runs it lacks (each arm up to seeds_to_decide; an arm
against a bound has no runs) times the mean train time of the runs it reads now (cpu_hours / runs read);
unknown (NaN) where the cell reads no training runs (an evaluation), listed last; on the hardware those runs
were trained on (the hardware column); and the other cells the added runs would enter (`shared`: each takes a
look, and a decided one may lose its decision at the stricter level).

A look is a verdict published at new seed counts: the distinct (n_a, n_b) at which a cell was judged (any
verdict but "not testable here") over the committed versions of its claims table (git history) and the
working tree's; seeds added to an arm that several cells share are a look for each of them (a cell is known
by its claim and cell name: renamed, it starts again at none). A cell at its L-th look is read at that look's
level (claims/levels.py, results/engine/levels.csv: 5 % at the first, stricter after), and its seeds_to_decide
at the next look's. The levels are validated, per kind of interval, up to the looks at which an independent
simulation kept a false "reproduces" within FALSE_RATE (levels.validated); a cell that has had that many is
left out: another look would leave what is validated. The reports write each cell's looks and levels into its
claims table (`looked`: the command reads them there) and flag a decided cell that had more than validated
(`flagged`: beyond_validated_looks)."""

from __future__ import annotations

import io
import math
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pandas as pd

from noneuclid.claims import data as claims_data, levels, render
from noneuclid.claims.engine import CONSISTENT, DECIDED, INCONCLUSIVE, NOT_TESTABLE, Verdict
from noneuclid.claims.validation import LOOK_UP_TO

LEVELS = Path("engine") / "levels.csv"  # under results/, from `python -m noneuclid.evaluate engine-validation`
KEY = ["file", "claim", "cell"]
COLUMNS = "file claim cell verdict n_a n_b looks seeds_to_decide runs_to_add hours_to_add hardware".split()


def read(results: Path) -> pd.DataFrame:
    """Every cell of every claims table under results/<paper>/<profile>/, with its file (relative)."""
    files = sorted(Path(results).glob("*/*/*claims.csv"))
    frames = [pd.read_csv(f).assign(file=str(f.relative_to(results))) for f in files]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["file", "kind", "verdict"])


def max_looks(cells: pd.DataFrame, validated: dict[str, int]) -> pd.Series:
    """Per cell, the looks validated for its kind of interval (levels.validated); 1 for a kind the validation
    does not follow over looks (an exact value) or a cell without an interval."""
    return cells.interval.map(validated).fillna(1).astype(int)


def looks(results: Path, cells: pd.DataFrame) -> pd.Series:
    """Per row of `cells` (read from results): how many looks it has had (module doc), from git history."""
    columns = KEY + ["n_a", "n_b", "verdict"]
    tables = [t for t in _history(Path(results), sorted(set(cells.file))) if set(columns) <= set(t.columns)]
    published = pd.concat([cells[columns], *(t[columns] for t in tables)])
    judged = published[published.verdict != NOT_TESTABLE].drop_duplicates(KEY + ["n_a", "n_b"])
    counts = judged.groupby(KEY).size()
    return pd.Series([counts.get(tuple(k), 0) for k in cells[KEY].itertuples(index=False)], index=cells.index)


def _history(results: Path, files: list[str]) -> list[pd.DataFrame]:
    """Every committed version of the claims tables `files` (relative to results), each with its file."""
    git = ["git", "-C", str(results)]
    if subprocess.run([*git, "rev-parse"], capture_output=True).returncode:
        raise LookupError(f"{results} is not in a git clone: looks are counted over its claims tables' history")
    specs = []
    for file in files:
        log = subprocess.run(
            [*git, "log", "--diff-filter=ACMR", "--format=%H", "--", file], capture_output=True, text=True
        )
        specs += [(file, f"{commit}:./{file}") for commit in log.stdout.split()]
    out = subprocess.run(
        [*git, "cat-file", "--batch"], input="\n".join(s for _, s in specs).encode(), capture_output=True
    )
    tables, blob = [], out.stdout
    for file, _ in specs:  # each object: b"<sha> blob <size>\n<content>\n"
        header, blob = blob.split(b"\n", 1)
        size = int(header.split()[2])
        tables.append(pd.read_csv(io.BytesIO(blob[:size])).assign(file=file))
        blob = blob[size + 1 :]
    return tables


def looked(rows: Sequence[Verdict], file: str, results: Path | None) -> list[Verdict]:
    """The rows of claims table `file` (relative to `results`, a git clone's results/: published) with their
    looks (the distinct seed counts each cell, by claim and cell name, was judged at over the file's committed
    versions, these rows included) and the levels of that look and the next (claims/levels.py: alpha,
    alpha_next); unchanged, with a warning, without a clone or without results/engine/levels.csv."""
    table = _levels(results)
    if table is None:
        print(f"warning: {file}: looks not counted (no git clone with results/{LEVELS})", file=sys.stderr)
        return list(rows)
    alphas = levels.schedule(table)
    counted = looks(results, render.frame(rows).assign(file=file))
    return [
        replace(
            row,
            looks=int(n),
            alpha=levels.alpha_at(alphas, row.interval, int(n)),
            alpha_next=levels.alpha_at(alphas, row.interval, int(n) + 1),
        )
        for row, n in zip(rows, counted)
    ]


def flagged(rows: Sequence[Verdict], results: Path | None) -> list[Verdict]:
    """The rows, a decided one flagged where it had more looks than validated for its kind of interval
    (beyond_validated_looks); unchanged without results/engine/levels.csv or looks (`looked`)."""
    table = _levels(results)
    if table is None:
        return list(rows)
    cells = render.frame(rows)
    beyond = cells.index.isin(
        beyond_validation(cells.assign(max_looks=max_looks(cells, levels.validated(table)))).index
    )
    return [replace(row, beyond_validated_looks=bool(b)) for row, b in zip(rows, beyond)]


def _levels(results: Path | None) -> pd.DataFrame | None:
    """results/engine/levels.csv, or None without a git clone's results/ that holds it."""
    return pd.read_csv(results / LEVELS) if results is not None and (results / LEVELS).is_file() else None


def published(out: Path) -> Path | None:
    """The results/ whose history counts the looks of a claims table written into `out`: that of the git
    clone holding `out`, else that of the clone this package runs from (a copy outside any clone, as the
    regeneration check writes); None outside both. A shallow clone is an error: it lacks the history."""
    for start in (Path(out).absolute(), Path(__file__).parent):
        start = next(p for p in (start, *start.parents) if p.exists())
        git = ["git", "-C", str(start), "rev-parse", "--show-toplevel", "--is-shallow-repository"]
        found = subprocess.run(git, capture_output=True, text=True)
        if found.returncode:
            continue
        top, shallow = found.stdout.split()
        if shallow == "true":
            raise ValueError(f"{top} is a shallow clone: looks are counted over history; git fetch --unshallow")
        return Path(top) / "results"
    return None


def next_seeds(cells: pd.DataFrame, up_to: int = LOOK_UP_TO) -> pd.DataFrame:
    """The undecided cells that at most up_to seeds per arm would decide and that have had fewer looks than
    validated for them (columns `looks`, `max_looks`), cheapest first (COLUMNS)."""
    undecided = cells[_within_reach(cells, up_to) & (cells.looks < cells.max_looks)]
    target = undecided.seeds_to_decide
    add_a = (target - undecided.n_a).clip(lower=0)
    add_b = (target - undecided.n_b).clip(lower=0).where(undecided.n_b > 0, 0)
    runs = (add_a + add_b).astype(int)
    hours = runs * undecided.cpu_hours / (undecided.n_a + undecided.n_b)
    plan = undecided.assign(runs_to_add=runs, hours_to_add=hours.round(2))[COLUMNS]
    return plan.sort_values(["hours_to_add", "runs_to_add"], na_position="last", kind="stable")


def shared(todo: pd.DataFrame, cells: pd.DataFrame) -> pd.DataFrame:
    """`todo` with, per cell, the other cells of its claims tables' folder (one paper and profile) that runs of
    its arms' settings enter (an arm of theirs whose settings, as claims/<paper>.yaml names them, are all among
    one arm's of this cell): other_cells, other_decided of them decided now, and other_at_risk of those
    (`at_risk`); NaN for a cell that the claims file does not hold. Seeds added to this cell are a look for
    each."""
    keys = list(cells[KEY].itertuples(index=False, name=None))
    arms = {key: _arms(*key) for key in keys}
    decided, risky = cells.verdict.isin(DECIDED).to_numpy(), at_risk(cells).to_numpy()
    counts = []
    for mine in todo[KEY].itertuples(index=False, name=None):
        if arms[mine] is None:
            counts.append((math.nan, math.nan, math.nan))
            continue
        entered = [
            key != mine
            and Path(key[0]).parent == Path(mine[0]).parent
            and any(_among(b, a) for a in arms[mine] for b in arms[key] or ())
            for key in keys
        ]
        counts.append((sum(entered), int(decided[entered].sum()), int(risky[entered].sum())))
    columns = ["other_cells", "other_decided", "other_at_risk"]
    return todo.join(pd.DataFrame(counts, columns=columns, index=todo.index))


def at_risk(cells: pd.DataFrame) -> pd.Series:
    """The decided cells whose deciding adjusted p (the smaller of p_adjusted and p_delta_adjusted) is above
    their next look's level (alpha_next): at the same p, a look at new seed counts would undecide them.
    False where the table gives no p (a bound, an exact value)."""
    nan = pd.Series(math.nan, index=cells.index)
    p = pd.concat([cells.get(c, nan) for c in ("p_adjusted", "p_delta_adjusted")], axis=1).min(axis=1)
    return cells.verdict.isin(DECIDED) & (p > cells.get("alpha_next", nan))


def _arms(file: str, claim: str, cell: str) -> list[dict] | None:
    """The settings of each arm of a cell with runs; None where claims/<paper>.yaml holds no such cell."""
    try:
        found = claims_data.load(Path(file).parts[0])[claim].cell(cell)
    except (FileNotFoundError, KeyError):  # no claims file for the folder, or a table older than the file
        return None
    return [found.select[arm] for arm in found.arms if found.select.get(arm)]


def _among(settings: dict, of: dict) -> bool:
    """Every setting of `settings` is one of `of`'s."""
    return all(key in of and of[key] == value for key, value in settings.items())


def left_out(cells: pd.DataFrame, up_to: int = LOOK_UP_TO) -> pd.DataFrame:
    """The undecided cells that up_to seeds per arm would decide but that have had the looks validated."""
    return cells[_within_reach(cells, up_to) & (cells.looks >= cells.max_looks)]


def beyond_validation(cells: pd.DataFrame) -> pd.DataFrame:
    """The decided cells judged after more looks than validated for them."""
    return cells[cells.verdict.isin(DECIDED) & (cells.looks > cells.max_looks)]


def _within_reach(cells: pd.DataFrame, up_to: int) -> pd.Series:
    """Undecided, and at most up_to seeds per arm would decide it."""
    return cells.verdict.isin([CONSISTENT, INCONCLUSIVE]) & (cells.seeds_to_decide <= up_to)


def decided_share(cells: pd.DataFrame) -> tuple[int, int]:
    """(cells decided at the adjusted level, cells)."""
    return int(cells.verdict.isin(DECIDED).sum()), len(cells)
