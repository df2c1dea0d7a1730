"""The table engine: a paper's tables as declared in claims/<paper>_tables.yaml, built from its finished runs.

A table:  metric (a column of runs.csv), scale (it times this, e.g. 100 for %), spread (sd or se: beside the
          mean over seeds), digits (of the numbers shown), optionally best_by (a column: the number shown is
          the metric of the seed with the best best_by, the lowest of those tied, as a paper picks its run;
          without it, the mean) and paper ({claim, key}: the paper's number of a row and column is the
          paper value, named by the settings' `key`, of that claim's cell whose where they have; or
          {reference, keys}: the value of a reference of the claims file, nested by those settings' values),
          paper_missing (the text where the paper has no number), also (name -> [column, how]: each cell's
          runs' column aggregated, e.g. [train_loss, max]), notes (name -> format: added to a cell's text
          where its value of `also` is not zero; inside the parentheses with best_by), bold: highest (the
          highest mean of a row, of 2 or more), paper_column (the paper's number once per row, in a column of
          that name: for a paper whose number is the same in every column), per (title, labels, key, from:
          [experiment, key]: the table drawn once per value that the experiment sets at `from`'s key, those
          values the settings of `key`, the page's label in a first column `title`);
          rows and columns: title (the data's column naming them), labels (a group of the claims file's
          reference labels) and settings (name -> config key -> value: the runs of a row or column), or
          sweep and keys (every combination of the values experiment `sweep` sweeps `keys` over, the first
          slowest; title: a list, one column per key).
The data: one row per row and column (row title, column title, selected and selected_seed with best_by,
mean, sd, se, n, also, paper); shown: one row per row, per column '(ours)' and '(paper)'.
A table of data made elsewhere (a run reader's frame, an evaluation's CSV) declares `shown` (and `data`, a
column of the runs -> the data's, where the data are runs' columns: `frame`; `integers`: those of int): each
column of the display from one or more columns of the data (`from`), as `format` (default '{}'), a group of
`labels`, `values` (value -> text; other values as format) or `plus_minus` (mean, spread[, n] to that many
decimals); `missing`: the text where a value is NaN; `single`: the format where the last value (a count of
seeds) is below 2; `optional`: left out where the data lack its columns. A name may hold {fields} that the
caller fills in.
A table summarising a frame of runs or measurements (`summarised`) declares how its data is made: `before`
(column -> an expression of a row's columns), `group` (data column -> frame column: one row per group, in
the order met), `aggregate` (column -> [frame column, a pandas aggregation such as mean, std, size,
nunique, first; or join, word: the values as integers after `word`, comma-separated]), `labels` (column -> a
group of the claims file's reference labels) and `reference` (a reference of the claims file -> its fields),
both by the first group column's value, and `after` (column -> an expression of the data's columns).
Expressions: DataFrame.eval, @name a number of the claims file's reference numbers or one the caller gives.
A shown column may `round` its values to that many decimals (then written by `format`).
"""

from __future__ import annotations

import functools
import itertools
import math

import pandas as pd
import yaml

from noneuclid import extensions, prose, tables
from noneuclid.claims import data as claims_data
from noneuclid.claims.estimates import estimate, plus_minus, summary
from noneuclid.config import experiment_value, sweep_params
from noneuclid.runs import select


@functools.cache
def load(paper: str) -> dict[str, dict]:
    """table id -> its declaration in claims/<paper>_tables.yaml."""
    return yaml.safe_load(extensions.file(claims_data.DIR, f"{paper}_tables.yaml").read_text())["tables"]


def data(paper: str, table: str, finished: pd.DataFrame, cells, where=None) -> pd.DataFrame:
    """One row per (row, column) of `cells` (names of the table's rows and columns, in their order): the
    metric over the finished runs of their settings (and of `where`: config key -> value, e.g. one dataset
    of a table drawn per dataset), and the paper's number."""
    spec, labels = load(paper)[table], claims_data.load(paper).labels
    rows, columns = spec["rows"], spec["columns"]
    of_row, of_column, out = axis(rows), axis(columns), []  # once: a swept axis composes its experiment
    for (page, of_page), (row, column) in itertools.product(_pages(spec, labels), cells):
        settings = {**(where or {}), **of_page, **of_row[row], **of_column[column]}
        found = select.arm_values(finished, settings, [spec["metric"], spec.get("best_by", spec["metric"])])
        values, by = spec.get("scale", 1) * found.iloc[:, 0], found.iloc[:, 1]
        best = values[by == by.max()].head(1)  # its one seed, none without runs
        stats = summary(values)
        runs = finished[select.chosen(finished, settings)] if "also" in spec else None  # only `also` reads them
        out.append(
            {
                **page,
                **_titles(rows, row, labels),
                **_titles(columns, column, labels),
                **({"selected": best.max(), "selected_seed": best.index.max()} if "best_by" in spec else {}),
                **{k: stats[k] for k in ("mean", "sd", "se", "n")},
                **{name: runs[c].agg(how) for name, (c, how) in spec.get("also", {}).items()},
                "paper": _paper(paper, spec, settings),
            }
        )
    return pd.DataFrame(out)


def _pages(spec: dict, labels: dict) -> list[tuple[dict, dict]]:
    """(the data's column naming a page, its settings) per page of a table drawn per value of a setting (`per`:
    title, labels, key, and from: [experiment, key], the values that the experiment sets there); one without."""
    if "per" not in spec:
        return [({}, {})]
    per = spec["per"]
    return [({per["title"]: labels[per["labels"]][v]}, {per["key"]: v}) for v in experiment_value(*per["from"])]


def cells(paper: str, table: str) -> list[tuple]:
    """Every (row, column) of the table, in its order."""
    spec = load(paper)[table]
    return list(itertools.product(axis(spec["rows"]), axis(spec["columns"])))


def axis(spec: dict) -> dict:
    """name -> settings of a table's rows or columns: as declared, or per combination of the values that
    experiment `sweep` sweeps `keys` over (name: the value, or the values of several keys), the first slowest."""
    if "settings" in spec:
        return spec["settings"]
    keys, swept = spec["keys"], sweep_params(spec["sweep"])
    every = itertools.product(*([yaml.safe_load(v) for v in swept[key]] for key in keys))
    return {(values if len(keys) > 1 else values[0]): dict(zip(keys, values)) for values in every}


def _titles(spec: dict, name, labels: dict) -> dict:
    """The data's columns naming a row or column: one per key of a swept one, else its label (or name)."""
    if isinstance(spec["title"], list):
        return dict(zip(spec["title"], name))
    return {spec["title"]: labels[spec["labels"]][name] if "labels" in spec else name}


def _paper(paper: str, spec: dict, settings: dict) -> float:
    """The paper's number of these settings: the value of spec's paper claim cell whose where they have, or
    of its reference nested by the settings' values of its keys (NaN where it has none)."""
    if "reference" in spec["paper"]:
        value = claims_data.load(paper).references[spec["paper"]["reference"]].values
        for key in spec["paper"]["keys"]:
            value = value.get(settings[key], {})
        return math.nan if isinstance(value, dict) else value
    claim, key = claims_data.load(paper)[spec["paper"]["claim"]], spec["paper"]["key"]
    cells = [c for c in claim.cells if c.where.items() <= settings.items() and settings[key] in c.paper]
    return cells[0].paper[settings[key]] if cells else math.nan


def frame(paper: str, table: str, runs: pd.DataFrame) -> pd.DataFrame:
    """The table's data: the columns of `runs` that its `data` declares, renamed, its `integers` as int."""
    spec = load(paper)[table]
    data = runs.reindex(columns=list(spec["data"])).rename(columns=spec["data"]).reset_index(drop=True)
    return data.astype(dict.fromkeys(spec.get("integers", []), int))


def shown(paper: str, table: str, data: pd.DataFrame, missing: dict[str, str] | None = None) -> pd.DataFrame:
    """`data` as the paper's table: per row (and page) and column ours (_ours) beside the paper's, or, with
    `paper_column`, the paper's number once per row under that name after the row's titles and ours alone."""
    spec = load(paper)[table]
    rows = [*([spec["per"]["title"]] if "per" in spec else []), *_list(spec["rows"]["title"])]
    column, one_paper = spec["columns"]["title"], spec.get("paper_column")
    out = {}
    for r in data.to_dict("records"):
        ours = _ours(spec, r, missing or {})
        theirs = spec.get("paper_missing", "nan") if pd.isna(r["paper"]) else f"{r['paper']:.{spec['digits']}f}"
        row = out.setdefault(
            tuple(r[k] for k in rows), {k: r[k] for k in rows} | ({one_paper: theirs} if one_paper else {})
        )
        row.update({r[column]: ours} if one_paper else {f"{r[column]} (ours)": ours, f"{r[column]} (paper)": theirs})
    return pd.DataFrame(list(out.values()))


def _ours(spec: dict, r: dict, missing: dict[str, str]) -> str:
    """A cell of ours: 'selected (mean ± spread, n=n[, notes])' with best_by, else 'mean ± spread (n=n)[,
    notes]'; without runs, `missing`'s text for its column (else 'not run')."""
    if not r["n"]:
        return missing.get(r[spec["columns"]["title"]], "not run")
    fmt = f".{spec['digits']}f"
    spread = plus_minus(r["mean"], 0 if r["n"] < 2 else r[spec["spread"]], fmt=fmt)
    notes = [note.format(r[name]) for name, note in spec.get("notes", {}).items() if r[name]]
    if "best_by" in spec:
        inside = ", ".join([spread, f"n={r['n']}", *notes])
        return f"{r['selected']:{fmt}} ({inside})"
    return ", ".join([f"{spread} (n={r['n']})", *notes])


def bold(paper: str, table: str, data: pd.DataFrame) -> set[tuple[int, str]]:
    """The (row, column) cells of the shown table to set in bold: with `bold: highest`, the highest mean of
    each row where 2 or more of its cells have runs (the first of those tied)."""
    spec = load(paper)[table]
    if spec.get("bold") != "highest":
        return set()
    rows, column = _list(spec["rows"]["title"]), spec["columns"]["title"]
    ran = data.assign(row=data.groupby(rows, sort=False).ngroup())[data.n > 0]
    best = ran.groupby("row").filter(lambda cells: len(cells) > 1).groupby("row")["mean"].idxmax()
    return {(row, f"{data.at[i, column]} (ours)") for row, i in best.items()}


def section(paper: str, out, stem: str, data: pd.DataFrame | None, shown=None, bold=frozenset(), **fields) -> str:
    """Table `stem` written into `out` (tables.section; data None: its CSV left as it is), shown as declared
    (`displayed`) unless `shown` is given, under templates/<paper>.md's <stem>_title and <stem>_caption with
    `fields` filled in; its section of a summary page."""
    shown = displayed(paper, stem, data, **fields) if shown is None else shown
    title, caption = (prose.fill(paper, f"{stem}_{part}", **fields) for part in ("title", "caption"))
    return tables.section(out, stem, data, shown, title, caption, bold)


def displayed(paper: str, table: str, data: pd.DataFrame, **fields) -> pd.DataFrame:
    """`data` in words, column by column as the table's `shown` declares them (none without rows), their
    names' {fields} filled in."""
    shown = load(paper)[table]["shown"]
    if data.empty:
        return pd.DataFrame()
    columns = {n: c for n, c in shown.items() if not c.get("optional") or set(_list(c["from"])) <= set(data)}
    return pd.DataFrame(
        {
            name.format(**fields): [_text(paper, c, row) for row in zip(*(data[f] for f in _list(c["from"])))]
            for name, c in columns.items()
        }
    )


def _text(paper: str, column: dict, values: tuple) -> str:
    """One cell of a `shown` column from its values: missing (any value NaN), labels, values (value -> text;
    other values as format), plus_minus (mean, spread[, n] to that many decimals), single (the last value
    below 2) or format, the values rounded to `round` decimals where it is given."""
    if "missing" in column and any(pd.isna(v) for v in values):
        return column["missing"]
    if "labels" in column:
        return claims_data.load(paper).labels[column["labels"]][values[0]]
    if values[0] in column.get("values", {}):
        return column["values"][values[0]]
    if "plus_minus" in column:
        return plus_minus(*values, fmt=f".{column['plus_minus']}f")
    values = tuple(round(v, column["round"]) for v in values) if "round" in column else values
    return column.get("single" if "single" in column and values[-1] < 2 else "format", "{}").format(*values)


def _list(value) -> list:
    return value if isinstance(value, list) else [value]


def summarised(paper: str, table: str, frame: pd.DataFrame, **numbers) -> pd.DataFrame:
    """The data of a table declared as a summary of `frame` (module doc): `before`, grouped by `group` into
    `aggregate`, the `labels` and `reference` fields beside them, then `after`; `numbers`: name -> a number of
    the expressions beside the claims file's reference numbers."""
    spec, claims = load(paper)[table], claims_data.load(paper)
    numbers = {**claims.numbers, **numbers}
    grouped = _derived(frame, spec.get("before", {}), numbers).groupby(list(spec["group"].values()), sort=False)
    data = grouped.agg(**{k: (column, _aggregation(*how)) for k, (column, *how) in spec["aggregate"].items()})
    data = data.reset_index().rename(columns={column: k for k, column in spec["group"].items()})
    key = data[next(iter(spec["group"]))]
    data = data.assign(**{c: key.map(claims.labels[group]) for c, group in spec.get("labels", {}).items()})
    for name, fields in spec.get("reference", {}).items():
        values = claims.references[name].values
        data = data.assign(**{f: [values.get(value, {}).get(f) for value in key] for f in fields})
    return _derived(data, spec.get("after", {}), numbers).astype(dict.fromkeys(spec.get("integers", []), int))


def _derived(frame: pd.DataFrame, columns: dict[str, str], numbers: dict) -> pd.DataFrame:
    """`frame` with the declared columns (name -> an expression of its columns and @numbers), in order."""
    for name, expression in columns.items():
        frame = frame.assign(**{name: frame.eval(expression, local_dict=numbers)})
    return frame


def _aggregation(function: str, *word: str):
    """A pandas aggregation by its name; join: the values as integers after `word`, comma-separated; se: the
    standard error of their mean (0 for one value; claims.estimates.estimate)."""

    def join(values: pd.Series) -> str:
        found = [str(int(v)) for v in values.dropna()]
        return " ".join([*word, ", ".join(found)]) if found else ""

    return {"join": join, "se": lambda values: estimate(values).se}.get(function, function)
