"""Writing a figure the same way for every paper: no creation date (PDF) or software version (PNG) in its
files, so the same runs give the same bytes and a redrawn figure shows up in git only when it changed."""

from contextlib import contextmanager
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

METADATA = {"png": {"Software": None}, "pdf": {"CreationDate": None, "Producer": None, "Creator": None}}


def save(fig, stem: Path) -> None:
    """stem.png and stem.pdf at 150 dpi, then close the figure."""
    for ext, metadata in METADATA.items():
        fig.savefig(stem.with_suffix(f".{ext}"), dpi=150, metadata=metadata)
    plt.close(fig)


@contextmanager
def axes(stem: Path, size: tuple[float, float], *grid: int, **options):
    """The axes of a new figure of `size` inches (`grid` and `options`: plt.subplots' rows, columns and keywords);
    on leaving the block, its layout tightened and `save`d."""
    fig, ax = plt.subplots(*grid, figsize=size, **options)
    yield ax
    fig.tight_layout()
    save(fig, stem)
