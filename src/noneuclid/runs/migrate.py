"""Bringing run folders and committed results of earlier settings versions up to SETTINGS_VERSION.

    python -m noneuclid.runs migrate [--runs DIR] [--results DIR] [--dry-run]

A run folder is named by the hash of its settings (settings.py), so a setting added to the configs or
renamed would give every earlier run a new name: the trainer would not find them. Each version's step
below says what changed; this command rewrites each earlier run's config.yaml as today's configs would
compose it (the added settings at the value those runs computed with) and renames its folder to the
new hash, and does the same to the rows of results/<paper>/<profile>/runs.csv and curves.csv.gz (whose
run folders may be gone). Run it once after pulling a change that raises SETTINGS_VERSION.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import yaml

from noneuclid.config import CONFIG_DIR
from noneuclid.runs.folder import CSV_COMPRESSION, atomic_write, is_held
from noneuclid.runs.settings import SETTINGS_VERSION, device_type, digest_settings, flatten, settings_id

MIGRATED_FROM = "MIGRATED_FROM"  # in a renamed run folder: the names it had before, one per line


@dataclass(frozen=True)
class Added:
    """A setting added to the configs: the value that computes what earlier runs did, in the runs
    whose config has `where` (a dotted key) at one of `values` (None: every run)."""

    key: str
    former: object
    where: str | None = None
    values: tuple = ()

    def applies(self, c: dict) -> bool:
        return self.where is None or _get(c, self.where) in self.values


@dataclass(frozen=True)
class Step:
    """What changed in the settings at one version."""

    renamed: dict = field(default_factory=dict)  # earlier dotted key -> its dotted key from this version
    added: tuple = ()  # Added settings


SENTENCE_PAIR, NOUNS = ("model.name", ("sentence_pair",)), ("data.name", ("wordnet_nouns",))
STEPS = {
    # `paper` (the paper a run belongs to and its run name) became `study`; the settings added before
    # there were versions, which version 1 left out of the hash at their former value, are written out.
    2: Step(
        renamed={"paper.name": "study.paper", "paper.run_name": "study.run_name"},
        added=(
            Added("optim.compensated", False, "optim.name", ("adam_rsgd",)),
            Added("model.clip_per_tensor", False, *SENTENCE_PAIR),
            Added("model.project_results", False, *SENTENCE_PAIR),
            Added("model.carry_gaps", False, *SENTENCE_PAIR),
            Added("data.order", "shuffled", "data.name", ("snli", "prefix")),
            Added("trainer.init_dtype", None),
            Added("data.burnin_negatives", None, *NOUNS),
            Added("data.burnin_dampening", 1.0, *NOUNS),
            Added("data.fused_batches", None, *NOUNS),
        ),
    ),
}
assert max(STEPS) == SETTINGS_VERSION, "a new settings version needs its step in STEPS"


MISSING = object()  # _get's answer for a setting a config does not have


def _get(c: dict, key: str, default=None):
    for part in key.split("."):
        if not isinstance(c, dict) or part not in c:
            return default
        c = c[part]
    return c


def _set(c: dict, key: str, value) -> None:
    *parents, last = key.split(".")
    for part in parents:
        c = c.setdefault(part, {})
    c[last] = value


def _pop(c: dict, key: str):
    *parents, last = key.split(".")
    for part in parents:
        c = c.get(part, {})
    return c.pop(last, None)


def version(c: dict) -> int:
    """The settings version of a run's config (1: from before versions were written)."""
    return c.get("settings_version", 1)


def earlier_hash(c: dict, device: str) -> str:
    """The hash that named the folder of a config `c` of an earlier version (to check what is
    migrated): version 1 left the settings that step 2 adds out of it where they had the former value."""
    if version(c) > 1:
        return digest_settings(c, device)
    former = [a.key for a in STEPS[2].added if type(_get(c, a.key)) is type(a.former) and _get(c, a.key) == a.former]
    return digest_settings(c, device, former)


def upgraded(c: dict) -> dict:
    """A copy of the config `c` as SETTINGS_VERSION composes the same run."""
    c = json.loads(json.dumps(c))
    for v in range(version(c) + 1, SETTINGS_VERSION + 1):
        step = STEPS[v]
        for old, new in step.renamed.items():
            if _get(c, old, MISSING) is not MISSING:
                _set(c, new, _pop(c, old))
        parents = {old.rsplit(".", 1)[0] for old in step.renamed if "." in old}
        for parent in parents:
            if _get(c, parent) == {}:
                _pop(c, parent)
        for added in step.added:
            if added.applies(c) and _get(c, added.key, MISSING) is MISSING:
                _set(c, added.key, added.former)
    c["settings_version"] = SETTINGS_VERSION
    return c


def new_name(c: dict, device: str) -> str:
    """The folder name of the upgraded config `c`."""
    return f"{c['study']['run_name']}-{digest_settings(c, device)}"


# -- run folders -------------------------------------------------------------------------------------
def _folder_device(folder: Path, c: dict) -> str:
    env = json.loads((folder / "env.json").read_text()) if (folder / "env.json").exists() else {}
    return device_type(c["trainer"]["device"], bool(env.get("cuda")))


def migrate_folder(folder: Path, dry_run: bool) -> tuple[str, str, dict] | str:
    """(old name, new name, config) of a run folder brought up to SETTINGS_VERSION (renamed unless
    dry_run), or why it was left as it is."""
    c = yaml.safe_load((folder / "config.yaml").read_text())
    device = _folder_device(folder, c)
    if version(c) == SETTINGS_VERSION:
        target = new_name(c, device)
        if target == folder.name:
            return "up to date"
    else:
        if earlier_hash(c, device) != folder.name.rsplit("-", 1)[-1]:
            return "its name is not the hash of its config.yaml (not made by the trainer?)"
        c = upgraded(c)
        target = new_name(c, device)
    if is_held(folder):
        return "a process trains it now: migrate when it has ended"
    if (folder.parent / target).exists():
        return f"{target} exists already: the same run twice; keep one of them and migrate again"
    if not dry_run:  # config first: a folder cut off here has a current config and is renamed next time
        atomic_write(folder / "config.yaml", yaml.safe_dump(c, sort_keys=False))
        earlier = (folder / MIGRATED_FROM).read_text() if (folder / MIGRATED_FROM).exists() else ""
        atomic_write(folder / MIGRATED_FROM, earlier + folder.name + "\n")  # every name it had, oldest first
        os.rename(folder, folder.parent / target)
    return folder.name, target, c


def _fix_extends(runs_dir: Path, renamed: dict[str, str]) -> None:
    """EXTENDS names the shorter run a run started from: point it at that run's new folder."""
    for marker in runs_dir.rglob("EXTENDS"):
        shorter = Path(marker.read_text().strip())
        if shorter.name in renamed:
            atomic_write(marker, str(shorter.parent / renamed[shorter.name]))


def migrate_runs(runs_dir: Path, dry_run: bool, say=print) -> dict[str, tuple[str, dict]]:
    """Migrate every run folder under runs_dir; returns {old name: (new name, its config)}."""
    migrated = {}
    configs = sorted(Path(runs_dir).glob("*/*/*/config.yaml"))  # <paper>/<profile>/<run>/, not W&B's copies
    if not configs and any(Path(runs_dir).rglob("config.yaml")):
        say(
            f"left as it is: {runs_dir}: no run folders at <paper>/<profile>/<run>/ under it (give the runs root, "
            f"the folder that holds brantner/, hnn/, phydi/)"
        )
    for config in configs:
        outcome = migrate_folder(config.parent, dry_run)
        if isinstance(outcome, tuple):
            migrated[outcome[0]] = outcome[1:]
        elif outcome != "up to date":
            say(f"left as it is: {config.parent}: {outcome}")
    if not dry_run:
        _fix_extends(Path(runs_dir), {old: new for old, (new, _) in migrated.items()})
    return migrated


# -- committed results ---------------------------------------------------------------------------------
_EXPONENT_FLOAT = re.compile(r"[-+]?[0-9]+(\.[0-9]*)?[eE][-+]?[0-9]+")


def float_settings(config_dir: Path = CONFIG_DIR) -> set[str]:
    """The dotted settings that some config file sets to a float (runs.csv writes 1.0 as 1)."""
    keys = set()
    for path in Path(config_dir).rglob("*.yaml"):
        text = path.read_text()
        group = path.relative_to(config_dir).parts[0]
        prefix = "" if "@package _global_" in text or group == path.name else group + "."
        keys.update(
            prefix + k
            for k, v in flatten(yaml.safe_load(text) or {}).items()
            if isinstance(v, float) or isinstance(v, str) and _EXPONENT_FLOAT.fullmatch(v)
        )
    return keys


def _parsed(key: str, text: str, floats: set[str]):
    """A runs.csv cell as the value it was written from (pandas writes None as an empty cell, 1.0 as 1
    and 3e-07 without the dot that YAML 1.1 needs to read a float)."""
    value = None if text == "" else yaml.safe_load(text)
    if isinstance(value, str) and _EXPONENT_FLOAT.fullmatch(value):
        return float(value)
    return float(value) if key in floats and type(value) is int else value


def _row_config(row: dict, floats: set[str], nulls=()) -> dict:
    """The config of a runs.csv row: its non-empty cfg.* cells, and the settings `nulls` as None."""
    c = {}
    for column, text in row.items():
        if column.startswith("cfg.") and (text != "" or column[4:] in nulls):
            _set(c, column[4:], _parsed(column[4:], text, floats))
    return c


def _verified_config(row: dict, device: str, floats: set[str]) -> dict | None:
    """The config of a runs.csv row whose hash is the one in its name, else None. An empty cell is a
    null setting or one that the run did not have: each group of empty cells under one node (e.g.
    trainer.*) is tried both ways."""
    empty = [column[4:] for column, text in row.items() if column.startswith("cfg.") and text == ""]
    nodes = sorted({key.rsplit(".", 1)[0] if "." in key else "" for key in empty})
    for mask in range(2 ** len(nodes)):
        chosen = {node for i, node in enumerate(nodes) if mask >> i & 1}
        nulls = {key for key in empty if (key.rsplit(".", 1)[0] if "." in key else "") in chosen}
        c = _row_config(row, floats, nulls)
        if earlier_hash(c, device) == row["run"].rsplit("-", 1)[-1]:
            return c
    return None


def _upgraded_cells(row: dict, c: dict) -> dict:
    """The cells of a runs.csv row of config `c` as SETTINGS_VERSION names its settings (other cells
    kept as written)."""
    row = dict(row)
    for v in range(version(c) + 1, SETTINGS_VERSION + 1):
        for old, new in STEPS[v].renamed.items():
            row[f"cfg.{new}"] = row.pop(f"cfg.{old}", "")
        for added in STEPS[v].added:
            if added.applies(c) and row.get(f"cfg.{added.key}", "") == "" and added.former is not None:
                row[f"cfg.{added.key}"] = str(added.former)
    row["cfg.settings_version"] = str(SETTINGS_VERSION)
    return row


def _migrated_row(row: dict, folders: dict, floats: set[str]) -> dict | str:
    """The row with its upgraded cells, run name and settings id, or why it stays as it is. `folders`:
    {old name: (new name, config)} of the migrated run folders, which are the authority on their runs."""
    if row.get("cfg.settings_version", "") == str(SETTINGS_VERSION):
        return "up to date"
    cuda = row.get("env.cuda", "") != ""
    device = device_type(row["cfg.trainer.device"], cuda)
    earlier = _verified_config(row, device, floats)
    if row["run"] in folders:
        name, c = folders[row["run"]]
    elif earlier is not None:
        c = upgraded(earlier)
        name = new_name(c, device)
    else:
        return "its cells do not give back the hash of its name"
    return dict(_upgraded_cells(row, earlier or _row_config(row, floats)), run=name, settings_id=settings_id(c, cuda))


def migrate_table(folder: Path, folders: dict, floats: set[str], dry_run: bool, say=print) -> dict[str, str]:
    """Migrate folder/runs.csv and the run names of folder/curves.csv.gz; returns {old name: new name}."""
    runs = pd.read_csv(folder / "runs.csv", dtype=str, keep_default_na=False)
    names, rows = {}, []
    for row in runs.to_dict("records"):
        migrated = _migrated_row(row, folders, floats)
        if isinstance(migrated, str) and migrated != "up to date":
            say(f"left as it is: {folder / 'runs.csv'} row {row['run']}: {migrated}")
        if isinstance(migrated, dict):
            names[row["run"]] = migrated["run"]
        rows.append(migrated if isinstance(migrated, dict) else row)
    if names and not dry_run:
        table = pd.DataFrame(rows).fillna("")
        settings = sorted(c for c in table if c.startswith("cfg."))
        table[[c for c in runs.columns if not c.startswith("cfg.")] + settings].to_csv(folder / "runs.csv", index=False)
        curves = folder / "curves.csv.gz"
        if curves.exists():
            curve_table = pd.read_csv(curves, dtype=str, keep_default_na=False)
            curve_table["run"] = curve_table.run.replace(names)
            curve_table.to_csv(curves, index=False, compression=CSV_COMPRESSION)
    return names


def migrate(runs_dir: Path, results_dir: Path, dry_run: bool, say=print) -> tuple[dict, dict]:
    """Migrate the run folders under runs_dir, then results_dir/<paper>/<profile>/{runs,curves}.csv:
    ({old: new folder name}, {old: new runs.csv name})."""
    folders = migrate_runs(runs_dir, dry_run, say) if Path(runs_dir).is_dir() else {}
    names, floats = {}, float_settings()
    for table in sorted(Path(results_dir).glob("*/*/runs.csv")):
        names.update(migrate_table(table.parent, folders, floats, dry_run, say))
    return {old: new for old, (new, _) in folders.items()}, names
