"""Finding the run folder of a run that another run reads (e.g. the Poincare embedding a Table 2
classifier classifies): the config it would have, composed, gives its exact folder name."""

from __future__ import annotations

from pathlib import Path

from noneuclid.config import compose
from noneuclid.runs.folder import RunDir


def finished_run(overrides: list[str], what: str) -> Path:
    """The folder of the finished run of `python -m noneuclid.train <overrides>`; when it is not
    finished, FileNotFoundError naming `what` and the command that trains it."""
    run = RunDir(compose(overrides))
    if not run.done:
        command = " ".join(o for o in overrides if not o.startswith("paths."))
        raise FileNotFoundError(f"no finished {what} in {run.path}: train it first with python -m noneuclid.train {command}")
    return run.path
