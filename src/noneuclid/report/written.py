"""The files a report writes, recorded as it opens them for writing (the interpreter's audit event `open`,
which every writer raises: pandas, matplotlib, Path.write_text), so that the report command says what a
report drew from what it wrote, not from the files' times."""

import os
import sys
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

_FOUND: ContextVar[set[Path] | None] = ContextVar("written", default=None)  # the files recorded, while recording


def _opened(event: str, args: tuple) -> None:
    """An audit hook: while recording, the path of each file opened for writing, creating or appending."""
    if event != "open" or (found := _FOUND.get()) is None:
        return
    path, mode, flags = args
    writes = any(c in mode for c in "wax+") if isinstance(mode, str) else bool(flags & (os.O_WRONLY | os.O_RDWR))
    if writes and isinstance(path, (str, os.PathLike)):
        found.add(Path(path).absolute())


sys.addaudithook(_opened)


@contextmanager
def recording():
    """Within the block, the set (yielded) of the absolute paths of the files opened for writing."""
    found: set[Path] = set()
    token = _FOUND.set(found)
    try:
        yield found
    finally:
        _FOUND.reset(token)
