"""Papers kept outside the package, e.g. a test's toy paper in a temporary folder: NONEUCLID_PAPERS names
their folders (separated by os.pathsep). Each folder is a Python package named after its paper, laid out as
the suite is, every part but paper.py optional:

    <paper>/paper.py                  PAPER, its papers.Paper (added to papers.PAPERS, after the suite's)
    <paper>/models.py                 MODELS: name -> model class (added to models.MODELS)
    <paper>/tasks.py                  TASKS: data.name -> task builder (added to train.tasks.TASKS)
    <paper>/data.py                   SOURCES: name -> data.registry.Source (added to data.registry.SOURCES)
    <paper>/claims/<paper>.yaml       its claims, and <paper>_tables.yaml its tables (as claims/ of the package)
    <paper>/templates/<paper>.md      its prose (as templates/)
    <paper>/configs/                  configs/ of its own, e.g. experiment/<paper>/ (Hydra's search path, after
                                      configs/)
    <paper>/<module>.py               its report modules, named in PAPER as Report("<paper>.<module>")

Each registry reads them where it reads its own; a model, task, dataset or file name the suite has already
is the suite's, and a paper named as one of the suite's is an error. The folder's parent goes on sys.path, so
its modules import as <paper>.<module>; docs/running.md's recipe for a paper says which file goes where.
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

VARIABLE = "NONEUCLID_PAPERS"
DECLARED = {"PAPER": "paper", "MODELS": "models", "TASKS": "tasks", "SOURCES": "data"}  # name -> its module


def folders() -> list[Path]:
    """The folders of the papers added ($NONEUCLID_PAPERS), in order."""
    return [Path(p).resolve() for p in os.environ.get(VARIABLE, "").split(os.pathsep) if p.strip()]


def roots(kind: str) -> list[Path]:
    """The added papers' folders of `kind` (claims, templates, configs) that exist."""
    return [folder / kind for folder in folders() if (folder / kind).is_dir()]


def file(own: Path, name: str) -> Path:
    """own/name (own: the suite's claims/, templates/ or configs/), else that of the first added paper's folder
    of the same kind that has it, else own/name (so that an error names the suite's place)."""
    candidates = [own / name, *(root / name for root in roots(own.name))]
    return next((path for path in candidates if path.is_file()), own / name)


def declared(name: str) -> dict:
    """What the added papers declare under `name` (see DECLARED): PAPER as {paper: Paper}, the others merged."""
    out = {}
    for folder in folders():
        module_file = folder / f"{DECLARED[name]}.py"
        if not module_file.is_file():
            if name == "PAPER":
                raise FileNotFoundError(f"{VARIABLE} names {folder}, which has no paper.py declaring PAPER")
            continue
        if str(folder.parent) not in sys.path:
            sys.path.append(str(folder.parent))
        value = getattr(importlib.import_module(f"{folder.name}.{DECLARED[name]}"), name)
        out.update({folder.name: value} if name == "PAPER" else value)
    return out
