"""The claims files (<paper>.yaml beside this module), loaded and validated: a missing, unknown or
ill-typed key is a ClaimsError naming the file, the claim, the cell and the key.

A file:  paper (its stem), title, claims; optionally reference: the paper's facts the report reads beside
         the claims, each once, in three optional parts: labels (group -> name -> the paper's label, e.g.
         the models of a table), numbers (name -> {value, source}: a single number, such as the paper's
         epochs or threshold or a rule of ours) and references (name -> {source, values}: published numbers
         keyed by settings, such as the paper's table per run or another paper's, printed beside ours). A
         cell's paper number may be a YAML alias of one of them, so that it is written once.
A claim: id; kind (paper: a sentence, table or figure of the paper; ours: a claim the suite adds);
         claim (the paper's words, quoted); source (its table, figure or section); metric and unit;
         better (lower or higher: which values of the metric are better); relation, as the paper's
         words make it: better (superiority: "outperforms", "improves"), on_par (equivalence: "on
         par", "comparable"), at_least (non-inferiority: "outperform or are on par"); delta, the
         smallest effect of interest in the metric's units (a superiority cell whose interval lies
         inside +-delta contradicts; an equivalence cell reproduces inside it; a non-inferiority cell
         holds down to -delta), and delta_source (from the paper's own numbers where it has them,
         else ours, saying so); cells; optionally precondition, note and learned.
learned: the claim compares the gains of models (across datasets or dimensions) and is judged only
         where every model a cell involves has learned the task: metric (the models' own, e.g. test
         accuracy %), better (lower or higher), within (how far, in that metric's units, the mean over
         seeds of a model may fall behind the paper's own value for it) and source (why that far).
A cell:  cell (its name); arms, [a, b] with a the arm the claim favours (or holds on par with b), or
         [a] with bound and bound_source (a against a fixed value); optionally paper (arm, or another
         name such as M2, -> the paper's number) with paper_source, paper_se (arm -> the paper's
         standard error), relation, delta or precondition in place of the claim's, and paired
         (true: the arms' runs of one seed share their initial weights, so the engine pairs them by seed).
Runs:    which runs an arm's values come from, as settings (a config key such as model.depth -> its
         value, as in runs.csv's cfg.<key> columns): a claim's where (what all its cells share) and a
         cell's where (what its arms share; not one of the claim's keys); the claim's arm_key (the
         key whose value an arm names, e.g. model.init for arms [phydi, wkp]) or arm_where (arm ->
         its settings, for an arm that is not one key's value, e.g. depth152: {model.depth: 152}).
         Where a claim or a cell has any of them, every arm of its cells resolves to settings
         (Cell.select, read by runs/select.py), else the claim's arms select nothing (Cell.select {}).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from noneuclid import extensions

DIR = Path(__file__).resolve().parent
BETTER = ("lower", "higher")
BETTER_RELATION, ON_PAR, AT_LEAST = RELATIONS = ("better", "on_par", "at_least")
KINDS = ("paper", "ours")
TABLES = "_tables"  # <paper>_tables.yaml: the paper's tables (report/table_engine.py), not claims
CLAIM_KEYS = (
    {"id", "kind", "claim", "source", "metric", "unit", "better", "relation", "delta", "delta_source", "cells"},
    {"precondition", "note", "learned", "where", "arm_key", "arm_where"},
)
LEARNED_KEYS = ({"metric", "better", "within", "source"}, set())
NUMBER_KEYS = ({"value", "source"}, set())
REFERENCE_KEYS = (set(), {"labels", "numbers", "references"})
CELL_KEYS = (
    {"cell", "arms"},
    {
        "paper",
        "paper_source",
        "paper_se",
        "relation",
        "delta",
        "bound",
        "bound_source",
        "precondition",
        "paired",
        "where",
    },
)


class ClaimsError(ValueError):
    """A claims file that does not follow the format of the module doc."""


@dataclass(frozen=True)
class Cell:
    name: str
    arms: tuple[str, ...]
    relation: str
    delta: float  # the smallest effect of interest, > 0, in the metric's units (module doc)
    paper: dict[str, float]
    paper_se: dict[str, float]
    paper_source: str
    bound: float | None  # the fixed value a one-arm cell is held against
    bound_source: str
    precondition: str
    paired: bool = False  # the arms' runs of one seed share their initial weights: judged paired by seed
    where: dict = field(default_factory=dict)  # config key -> value: what the cell's runs share (claim's and cell's)
    select: dict[str, dict] = field(default_factory=dict)  # arm -> config key -> value of its runs ({}: none)


@dataclass(frozen=True)
class Learned:
    """The precondition of a claim on gains: each model within `within` of the paper's value (module doc)."""

    metric: str
    better: str
    within: float
    source: str


@dataclass(frozen=True)
class Claim:
    id: str
    kind: str  # KINDS: the paper's own claim, or one the suite adds
    text: str
    source: str
    metric: str
    unit: str
    better: str
    delta_source: str
    precondition: str
    note: str
    cells: tuple[Cell, ...]
    learned: Learned | None = None  # judged only where every model of a cell has learned the task

    def cell(self, name: str) -> Cell:
        return _named(self.cells, "name", name, f"claim {self.id!r}", "cell")


@dataclass(frozen=True)
class Reference:
    """Published numbers (the paper's own or another paper's) reported beside ours: values (a key, such as a
    run's name, -> its numbers) and their source."""

    source: str
    values: dict


@dataclass(frozen=True)
class Claims:
    paper: str
    title: str
    claims: tuple[Claim, ...]
    numbers: dict[str, float] = field(default_factory=dict)  # name -> value (reference: numbers)
    labels: dict[str, dict[str, str]] = field(default_factory=dict)  # group -> name -> label (reference: labels)
    references: dict[str, Reference] = field(default_factory=dict)  # reference: references

    def __getitem__(self, claim_id: str) -> Claim:
        return _named(self.claims, "id", claim_id, self.paper, "claim")


def _named(items, attr: str, value: str, owner: str, noun: str):
    """The item of `items` whose `attr` is `value`; otherwise a KeyError listing what `owner` has."""
    for item in items:
        if getattr(item, attr) == value:
            return item
    raise KeyError(f"{owner} has no {noun} {value!r}; its {noun}s: {[getattr(i, attr) for i in items]}")


def papers() -> list[str]:
    """The papers that have a claims file (<paper>_tables.yaml beside it declares its tables:
    report/table_engine.py)."""
    folders = [DIR, *extensions.roots("claims")]  # and those of the papers kept outside (NONEUCLID_PAPERS)
    return sorted({p.stem for folder in folders for p in folder.glob("*.yaml") if not p.stem.endswith(TABLES)})


@functools.cache
def load(paper: str) -> Claims:
    """The claims of `paper` (claims/<paper>.yaml), read and checked once per process (every module that
    needs them calls this)."""
    path = extensions.file(DIR, f"{paper}.yaml")
    if not path.is_file():
        raise FileNotFoundError(f"no claims file {path}; the papers with one: {papers()}")
    return load_file(path)


def load_file(path: Path) -> Claims:
    """A claims file, validated (see the module doc)."""
    path = Path(path)
    where = str(path)
    try:
        data = yaml.safe_load(path.read_text())
    except yaml.YAMLError as e:
        raise ClaimsError(f"{where}: not valid YAML: {e}") from e
    _keys(data, ({"paper", "title", "claims"}, {"reference"}), where)
    if data["paper"] != path.stem:
        raise ClaimsError(f"{where}: key 'paper' is {data['paper']!r}, not the file's name {path.stem!r}")
    claims = tuple(_claim(c, where) for c in _list(data, "claims", where))
    _unique([c.id for c in claims], "claim id", where)
    reference, inside = data.get("reference", {}), f"{where}: reference"
    _keys(reference, REFERENCE_KEYS, inside)
    return Claims(
        _text(data, "paper", where),
        _text(data, "title", where),
        claims,
        _named_numbers(reference, inside),
        _labels(reference, inside),
        _references(reference, inside),
    )


def _named_numbers(reference: dict, where: str) -> dict[str, float]:
    """The reference's optional `numbers`: name -> {value, source}, as name -> value."""
    raw = reference.get("numbers", {})
    if not isinstance(raw, dict):
        raise ClaimsError(f"{where}: key 'numbers' must map names to {{value, source}}, not {raw!r}")
    for name, entry in raw.items():
        _keys(entry, NUMBER_KEYS, f"{where}: numbers, {name}")
        _text(entry, "source", f"{where}: numbers, {name}")
    return {str(name): _number(entry, "value", f"{where}: numbers, {name}") for name, entry in raw.items()}


def _labels(reference: dict, where: str) -> dict[str, dict[str, str]]:
    """The reference's optional labels: group -> name -> non-empty text."""
    labels = reference.get("labels", {})
    if not isinstance(labels, dict) or not all(isinstance(g, dict) for g in labels.values()):
        raise ClaimsError(f"{where}: key 'labels' must map groups to mappings of names to labels, not {labels!r}")
    return {
        group: {str(k): _text(names, k, f"{where}: labels {group!r}") for k in names} for group, names in labels.items()
    }


def _references(reference: dict, where: str) -> dict[str, Reference]:
    """The reference's optional references: name -> {source, values}."""
    raw = reference.get("references", {})
    if not isinstance(raw, dict):
        raise ClaimsError(f"{where}: key 'references' must map names to {{source, values}}, not {raw!r}")
    return {name: _reference(entry, f"{where}, {name!r}") for name, entry in raw.items()}


def _reference(raw, where: str) -> Reference:
    _keys(raw, ({"source", "values"}, set()), where)
    if not isinstance(raw["values"], dict) or not raw["values"]:
        raise ClaimsError(f"{where}: key 'values' must be a non-empty mapping, not {raw['values']!r}")
    return Reference(_text(raw, "source", where), raw["values"])


def _claim(raw, file_where: str) -> Claim:
    where = f"{file_where}: claim {_name(raw, 'id')!r}"
    _keys(raw, CLAIM_KEYS, where)
    better, relation = _choice(raw, "better", BETTER, where), _choice(raw, "relation", RELATIONS, where)
    delta, runs = _delta(raw, where), _runs(raw, where)
    cells = tuple(
        _cell(c, relation, delta, runs, f"{where}, cell {_name(c, 'cell')!r}") for c in _list(raw, "cells", where)
    )
    unused = sorted(set(runs.arm_where) - {arm for c in cells for arm in c.arms})
    if unused:
        raise ClaimsError(f"{where}: key 'arm_where' names {unused}, an arm of no cell")
    _unique([c.name for c in cells], "cell", where)
    return Claim(
        _text(raw, "id", where),
        _choice(raw, "kind", KINDS, where),
        _text(raw, "claim", where),
        _text(raw, "source", where),
        _text(raw, "metric", where),
        _text(raw, "unit", where),
        better,
        _text(raw, "delta_source", where),
        _optional_text(raw, "precondition", where),
        _optional_text(raw, "note", where),
        cells,
        _learned(raw["learned"], where) if "learned" in raw else None,
    )


def _delta(raw: dict, where: str) -> float:
    """The smallest effect of interest: a finite number > 0."""
    delta = _number(raw, "delta", where)
    if delta <= 0:
        raise ClaimsError(
            f"{where}: key 'delta' must be > 0 (the smallest effect of interest, in the metric's units), not {delta}"
        )
    return delta


def _learned(raw, claim_where: str) -> Learned:
    where = f"{claim_where}, learned"
    _keys(raw, LEARNED_KEYS, where)
    within = _number(raw, "within", where)
    if within < 0:
        raise ClaimsError(f"{where}: key 'within' must be >= 0 (in the units of its metric), not {within}")
    return Learned(
        _text(raw, "metric", where), _choice(raw, "better", BETTER, where), within, _text(raw, "source", where)
    )


def _cell(raw, claim_relation: str, claim_delta: float, runs: Runs, where: str) -> Cell:
    _keys(raw, CELL_KEYS, where)
    arms = _list(raw, "arms", where)
    if len(arms) not in (1, 2) or not all(isinstance(a, str) and a for a in arms) or len(set(arms)) != len(arms):
        raise ClaimsError(f"{where}: key 'arms' must be one or two distinct names, not {arms!r}")
    bound = _number(raw, "bound", where) if "bound" in raw else None
    if (len(arms) == 1) != (bound is not None) or (bound is None and "bound_source" in raw):
        raise ClaimsError(f"{where}: a cell has two arms, or one arm and key 'bound' (with 'bound_source')")
    relation = _choice(raw, "relation", RELATIONS, where) if "relation" in raw else claim_relation
    delta = _delta(raw, where) if "delta" in raw else claim_delta
    paper, paper_se = _numbers(raw, "paper", where), _numbers(raw, "paper_se", where)
    if paper and "paper_source" not in raw:
        raise ClaimsError(f"{where}: missing key 'paper_source' (where the paper's numbers come from)")
    if set(paper_se) - set(paper):
        raise ClaimsError(f"{where}: key 'paper_se' names {sorted(set(paper_se) - set(paper))}, not in 'paper'")
    paired = raw.get("paired", False)
    if not isinstance(paired, bool) or (paired and len(arms) != 2):
        raise ClaimsError(f"{where}: key 'paired' is true or false, and true only for a cell of two arms")
    return Cell(
        _text(raw, "cell", where),
        tuple(arms),
        relation,
        delta,
        paper,
        paper_se,
        _optional_text(raw, "paper_source", where),
        bound,
        _text(raw, "bound_source", where) if bound is not None else "",
        _optional_text(raw, "precondition", where),
        paired,
        *_selected(raw, arms, runs, where),
    )


@dataclass(frozen=True)
class Runs:
    """A claim's run selector as written (module doc): where, arm_key ('' for none) and arm_where."""

    where: dict
    arm_key: str
    arm_where: dict[str, dict]


def _runs(raw: dict, where: str) -> Runs:
    """The claim's run selector, validated."""
    arm_where = raw.get("arm_where", {})
    if not isinstance(arm_where, dict):
        raise ClaimsError(f"{where}: key 'arm_where' must map arms to settings, not {arm_where!r}")
    return Runs(
        _settings(raw, "where", where),
        _optional_text(raw, "arm_key", where),
        {arm: _settings(arm_where, arm, f"{where}, arm_where") for arm in arm_where},
    )


def _selected(raw: dict, arms: list[str], runs: Runs, where: str) -> tuple[dict, dict[str, dict]]:
    """(the settings the cell's runs share, arm -> the settings of its runs); ({}, {}) where neither the
    claim nor the cell selects runs."""
    own = _settings(raw, "where", where)
    if set(own) & set(runs.where):
        raise ClaimsError(f"{where}: key 'where' repeats the claim's {sorted(set(own) & set(runs.where))}")
    shared = {**runs.where, **own}
    if not (shared or runs.arm_key or runs.arm_where):
        return {}, {}
    unresolved = [arm for arm in arms if arm not in runs.arm_where and not runs.arm_key]
    if unresolved:
        raise ClaimsError(
            f"{where}: arm {unresolved[0]!r} selects no runs: name it in the claim's 'arm_where' "
            "or give the claim an 'arm_key'"
        )
    return shared, {arm: {**shared, **runs.arm_where.get(arm, {runs.arm_key: arm})} for arm in arms}


def _settings(raw: dict, key: str, where: str) -> dict:
    """An optional mapping config key (such as model.depth) -> a number, text or true/false."""
    value = raw.get(key, {})
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and k and isinstance(v, (str, int, float, bool)) for k, v in value.items()
    ):
        raise ClaimsError(f"{where}: key {key!r} must map config keys to values, not {value!r}")
    return value


def _name(raw, key: str) -> str:
    """A claim's id or a cell's name for messages, '?' where there is none."""
    return str(raw.get(key, "?")) if isinstance(raw, dict) else "?"


def _keys(raw, keys: tuple[set, set], where: str) -> None:
    required, optional = keys
    if not isinstance(raw, dict):
        raise ClaimsError(
            f"{where}: expected a mapping with keys {sorted(required or optional)}, got {type(raw).__name__}"
        )
    missing, unknown = sorted(required - set(raw)), sorted(set(raw) - required - optional)
    if missing:
        raise ClaimsError(f"{where}: missing key {missing[0]!r}" + (f" (and {missing[1:]})" if missing[1:] else ""))
    if unknown:
        raise ClaimsError(f"{where}: unknown key {unknown[0]!r}; allowed: {sorted(required | optional)}")


def _text(raw: dict, key: str, where: str) -> str:
    if key not in raw:
        raise ClaimsError(f"{where}: missing key {key!r}")
    if not isinstance(raw[key], str) or not raw[key].strip():
        raise ClaimsError(f"{where}: key {key!r} must be a non-empty string, not {raw[key]!r}")
    return raw[key].strip()


def _optional_text(raw: dict, key: str, where: str) -> str:
    return _text(raw, key, where) if key in raw else ""


def _number(raw: dict, key: str, where: str) -> float:
    value = raw[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ClaimsError(f"{where}: key {key!r} must be a finite number, not {value!r}")
    return float(value)


def _numbers(raw: dict, key: str, where: str) -> dict[str, float]:
    """An optional mapping name -> number."""
    value = raw.get(key, {})
    if not isinstance(value, dict):
        raise ClaimsError(f"{where}: key {key!r} must map names to numbers, not {value!r}")
    return {str(k): _number(value, k, f"{where}, {key}") for k in value}


def _choice(raw: dict, key: str, choices: tuple[str, ...], where: str) -> str:
    if raw[key] not in choices:
        raise ClaimsError(f"{where}: key {key!r} must be one of {list(choices)}, not {raw[key]!r}")
    return raw[key]


def _list(raw: dict, key: str, where: str) -> list:
    if not isinstance(raw[key], list) or not raw[key]:
        raise ClaimsError(f"{where}: key {key!r} must be a non-empty list, not {raw[key]!r}")
    return raw[key]


def _unique(names: list[str], what: str, where: str) -> None:
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ClaimsError(f"{where}: {what} {repeated[0]!r} appears more than once")
