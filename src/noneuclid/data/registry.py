"""The datasets of the suite, one object each in one table: how `python -m noneuclid.data fetch` gets it,
how `verify` and `reproduce` tell whether it is here and whole, where `make data` puts it and from which
mirror. Two roots: the data root (NONEUCLID_DATA_DIR: files as published, downloaded or copied from a
mirror) and the generated-data root (NONEUCLID_GENERATED_DIR: files the suite makes, WordNet's NLTK root and
CIFAR-10's batches written from a mirror's images). To add a dataset: its module under data/ and its row
here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from noneuclid import extensions
from noneuclid.data import cifar10, files, snli, wikitext2, wordnet
from noneuclid.data.files import DataError


@dataclass(frozen=True)
class Source:
    """fetch(root, mirror or None): into `root`; verify(data root, generated root): raises DataError, saying
    what to run, where it is not here or not whole. root: where it is fetched with the others ("data" or
    "generated"; mirrored_root: where, when copied from a mirror); mirror: the fetch command's option that
    names its mirror; make_data: `make data` fetches it."""

    fetch: Callable[[Path, Path | None], object]
    verify: Callable[[Path, Path], object]
    root: str = "data"
    mirrored_root: str | None = None
    mirror: str = "mirror"
    make_data: bool = True

    def root_of(self, mirror: Path | None) -> str:
        """The root it is fetched into, from `mirror` (None: downloaded)."""
        return self.mirrored_root if mirror is not None and self.mirrored_root else self.root


def _wikitext2(root: Path, mirror: Path | None) -> None:
    """The official zip unpacked to plain .txt; from a mirror, its gzipped files as they are."""
    if mirror is None:
        wikitext2.fetch(root)
    else:
        files.fetch("wikitext2", root, mirror)


def _snli_dev_and_test(data_dir: Path, generated_dir: Path) -> None:
    """SNLI's dev and test splits, checked while read (train may be absent: it is in the shared data)."""
    for split in ("dev", "test"):
        snli.load(data_dir, split)


SOURCES = {
    "mnist": Source(
        lambda root, mirror: files.fetch("mnist", root, mirror),
        lambda data_dir, generated_dir: files.require("mnist", data_dir),
    ),
    "cifar10": Source(cifar10.fetch, cifar10.verify, mirrored_root="generated"),  # a mirror's images: batches written
    "wikitext2": Source(_wikitext2, lambda data_dir, generated_dir: wikitext2.verify(data_dir)),
    "wordnet": Source(
        wordnet.fetch,
        lambda data_dir, generated_dir: wordnet.require(generated_dir),
        root="generated",
        mirror="wordnet_dict",
    ),  # a WordNet 3.0 dict folder, Debian's by default
    "snli": Source(lambda root, mirror: snli.fetch(root), _snli_dev_and_test, make_data=False),  # a large archive
}


def sources() -> dict[str, Source]:
    """SOURCES, then the datasets of papers kept outside the package (extensions.py)."""
    return {**extensions.declared("SOURCES"), **SOURCES}


def source(name: str) -> Source:
    """The dataset `name`'s row; an unknown name is a DataError that says where to add it."""
    known = sources()
    if name not in known:
        raise DataError(
            f"unknown dataset {name!r}: choose from {sorted(known)}, or add its row to "
            "noneuclid/data/registry.py (SOURCES) with its loader under noneuclid/data/"
        )
    return known[name]


def missing(name: str, data_dir: Path, generated_dir: Path) -> str | None:
    """Why dataset `name` cannot be used (unknown, absent or not whole: DataError's words), or None when it can."""
    try:
        source(name).verify(Path(data_dir), Path(generated_dir))
    except DataError as e:
        return str(e)
    return None
