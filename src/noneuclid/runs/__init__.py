"""Run folders, shared by the trainer (which writes them) and the reports (which read them).

settings: the settings identity (the hash that names a run's folder); folder: the run folder, its
lock, atomic writes and its files (see folder.py for the layout); migrate: bringing run folders
and results of earlier settings versions up to date; lookup: the folder of a run another run reads;
table: run folders and the committed per-run data (runs.csv, curves.csv.gz) as tidy tables, which the
reports read; select: the one way runs are selected (by their settings) and what "finished" means;
curves: runs with their curves by epoch; hnn_table2, phydi: a paper's runs read into per-run frames (F1 values,
reconstructions, validation curves) where its report needs more than a row of runs.csv.
"""

from noneuclid.runs.folder import RunDir, atomic_write, environment, is_held, read_metrics
from noneuclid.runs.settings import (
    NOT_SETTINGS,
    SETTINGS_VERSION,
    digest_without,
    drop_keys,
    resolve_device,
    settings_hash,
    settings_id,
)

__all__ = [
    "NOT_SETTINGS",
    "SETTINGS_VERSION",
    "RunDir",
    "atomic_write",
    "digest_without",
    "drop_keys",
    "environment",
    "is_held",
    "read_metrics",
    "resolve_device",
    "settings_hash",
    "settings_id",
]
