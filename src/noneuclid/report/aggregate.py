"""Read run folders into tidy tables: one row per run (`runs`) or per run and epoch (`curves`)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import yaml


def _flatten(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, key + "."))
        else:
            out[key] = v
    return out


def run_folders(roots) -> list[Path]:
    """Every run folder (a folder with config.yaml) under the given roots, sorted."""
    found = set()
    for root in map(Path, roots):
        found.update(p.parent for p in root.rglob("config.yaml"))
    return sorted(found)


def runs(roots) -> pd.DataFrame:
    """One row per run: its folder, status (done | unfinished), flattened config and summary."""
    rows = []
    for folder in run_folders(roots):
        cfg = yaml.safe_load((folder / "config.yaml").read_text())
        row = {"run": folder.name, "path": str(folder),
               "status": "done" if (folder / "DONE").exists() else "unfinished"}
        row.update(_flatten(cfg, "cfg."))
        if (folder / "summary.json").exists():
            row.update(json.loads((folder / "summary.json").read_text()))
        if (folder / "env.json").exists():
            row.update(_flatten(json.loads((folder / "env.json").read_text()), "env."))
        rows.append(row)
    return pd.DataFrame(rows)


def curves(roots) -> pd.DataFrame:
    """One row per run and logged epoch, from metrics.jsonl."""
    frames = []
    for folder in run_folders(roots):
        lines = [json.loads(l) for l in (folder / "metrics.jsonl").read_text().splitlines() if l.strip()] \
            if (folder / "metrics.jsonl").exists() else []
        if lines:
            frames.append(pd.DataFrame(lines).assign(run=folder.name))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
