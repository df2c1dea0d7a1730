"""Read run folders into tidy tables: one row per run (`runs`) or per run and epoch (`curves`)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import yaml

from noneuclid.runs import is_held, read_metrics, settings_id
from noneuclid.runs.settings import flatten


def run_folders(roots) -> list[Path]:
    """Every run folder (a folder with config.yaml) under the given roots, sorted."""
    found = set()
    for root in map(Path, roots):
        found.update(p.parent for p in root.rglob("config.yaml"))
    return sorted(found)


def status(folder: Path) -> str:
    """done | diverged | failed | running (a live process trains it) | stopped (killed or interrupted:
    the same command resumes it)."""
    for marker in ("DONE", "DIVERGED", "FAILED"):
        if (folder / marker).exists():
            return marker.lower()
    return "running" if is_held(folder) else "stopped"


def runs(roots) -> pd.DataFrame:
    """One row per run: its folder, status, flattened config and summary."""
    rows = []
    for folder in run_folders(roots):
        cfg = yaml.safe_load((folder / "config.yaml").read_text())
        row = {"run": folder.name, "path": str(folder),
               "status": status(folder)}
        row.update(flatten(cfg, "cfg."))
        if (folder / "summary.json").exists():
            row.update(json.loads((folder / "summary.json").read_text()))
        env = json.loads((folder / "env.json").read_text()) if (folder / "env.json").exists() else {}
        row.update(flatten(env, "env."))
        row["settings_id"] = settings_id(cfg, bool(env.get("cuda")))
        rows.append(row)
    return pd.DataFrame(rows)


def grouped(table: pd.DataFrame) -> pd.DataFrame:
    """Runs of the same settings with different seeds as one row: the settings (folder name without
    seed and hash, and settings_id, which tells apart settings the name does not show), how many runs and in which state, the seeds, their training
    minutes (summed), and mean and standard deviation over the finished runs of each final
    accuracy, loss and perplexity."""
    if table.empty:
        return table
    table = table.assign(settings=table.run.str.replace(r"-s\d+-[0-9a-f]{8}$", "", regex=True))
    metrics = sorted(c for c in table.columns
                     if re.fullmatch(r"final_\w+_(accuracy|loss|perplexity)|test_accuracy_at_best_dev", c))
    rows = []
    keys = ["cfg.study.paper", "cfg.profile.name", "settings", "settings_id"]
    for (paper, profile, settings, sid), g in table.groupby(keys, sort=True):
        done = g[g.status == "done"]
        row = {"paper": paper, "profile": profile, "settings": settings, "settings_id": sid, "runs": len(g),
               "status": ", ".join(f"{n} {s}" for s, n in g.status.value_counts().sort_index().items()),
               "seeds": ",".join(str(x) for x in sorted(g["cfg.seed"])),
               "train minutes": g.train_seconds.sum() / 60 if "train_seconds" in g else float("nan")}
        for m in metrics:
            row[f"{m} mean"] = done[m].mean()
            row[f"{m} sd"] = done[m].std(ddof=1) if len(done) > 1 else float("nan")
        rows.append(row)
    return pd.DataFrame(rows)


def curves(roots) -> pd.DataFrame:
    """One row per run and logged epoch, from metrics.jsonl."""
    frames = []
    for folder in run_folders(roots):
        lines = read_metrics(folder / "metrics.jsonl")
        if lines:
            frames.append(pd.DataFrame(lines).assign(run=folder.name))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
