"""The one place that finds, verifies (sha256) and fetches dataset files in the data root.

The data root is `paths.data_dir` (environment variable NONEUCLID_DATA_DIR); each dataset lives in
its own folder there with the official file names, e.g. <root>/mnist/train-images-idx3-ubyte.gz.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

FIX_HINT = "make data DATA_DIR={root}  (or: python -m noneuclid.data fetch {name} --data-dir {root})"


def temporary_sibling(path: Path) -> Path:
    """A file name beside `path` for writing it atomically (write, then os.replace), unique to this
    process: two processes writing the same file (two sweeps generating one split) never share it."""
    return path.with_name(f"{path.name}.{os.getpid()}.tmp")


class DataError(RuntimeError):
    """A dataset file is missing or does not match its checksum."""


@dataclass(frozen=True)
class Dataset:
    folder: str
    sha256: dict[str, str]
    urls: tuple[str, ...] = field(default=())  # base URLs tried in order; file name appended


DATASETS = {
    "mnist": Dataset(
        folder="mnist",
        sha256={
            "train-images-idx3-ubyte.gz": "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609",
            "train-labels-idx1-ubyte.gz": "3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c",
            "t10k-images-idx3-ubyte.gz": "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6",
            "t10k-labels-idx1-ubyte.gz": "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6",
        },
        urls=("https://ossci-datasets.s3.amazonaws.com/mnist/", "http://yann.lecun.com/exdb/mnist/"),
    ),
    # The official binary batches (md5 = the published ones, see cifar10.BIN_MD5); the python batches are
    # checked against their published md5 in cifar10.PY_MD5. Fetched by cifar10.fetch, not by fetch().
    "cifar10": Dataset(
        folder="cifar10",
        sha256={
            "cifar-10-batches-bin/data_batch_1.bin": "cee916563c9f80d84e3cc88e17fdc0941787f1244f00a67874d45b261883ada5",
            "cifar-10-batches-bin/data_batch_2.bin": "a591ca11fa1708a91ee40f54b3da4784ccd871ecf2137de63f51ada8b3fa57ed",
            "cifar-10-batches-bin/data_batch_3.bin": "bbe8596564c0f86427f876058170b84dac6670ddf06d79402899d93ceea26f67",
            "cifar-10-batches-bin/data_batch_4.bin": "014e562d6e23c72197cc727519169a60359f5eccd8945ad5a09d710285ff4e48",
            "cifar-10-batches-bin/data_batch_5.bin": "755304fc0b379caeae8c14f0dac912fbc7d6cd469eb67a1029a08a39453a9add",
            "cifar-10-batches-bin/test_batch.bin": "8e2eb146ae340b09e24670f29cabc6326dba54da8789dab6768acf480273f65b",
        },
    ),
    # wiki.{train,valid,test}.tokens renamed, gzipped as in shared/data (gzip -9 -n); fetch() copies them
    # from a mirror. wikitext2 also reads plain .txt files and checks the uncompressed content's sha256
    # (wikitext2.CONTENT_SHA256); without a mirror, wikitext2.fetch downloads the official zip.
    "wikitext2": Dataset(
        folder="wikitext-2",
        sha256={
            "train.txt.gz": "0c202e0b5d919429261b7291d9b5998f0db680c0a6700c0ff2a886d0abe055d4",
            "valid.txt.gz": "3ac34ae2b6509075d52302c50a04a8a1970739ffe1a904f2cd374fefbea3cbf2",
            "test.txt.gz": "a2b26b5d2619cc1f6cd34c8e116a451aed09af51479346aadfbf508ceb8b192e",
        },
    ),
    # WordNet 3.0 (Debian's wordnet-base and wordnet-sense-index) prepared as an NLTK data root by
    # wordnet.fetch (under the generated-data root); lexnames is written by the suite (wordnet.LEXNAMES).
    "wordnet": Dataset(
        folder="nltk_data/corpora/wordnet",
        sha256={
            "data.noun": "fea17d2f9656611334eac790e5d69e47645fa180c4aa481fb4cd9b3520754ca2",
            "data.verb": "adcf43e35b581e8036d8b5a52d63d9cd3d3b4870b2720d3c03c799df44777bc2",
            "data.adj": "c89120dfc1f046ddff4a631bf9b7e9fa1a36b5e86565a23bf82dbe14f30b88a7",
            "data.adv": "444a63bf3955080ab7524f5079cfc07ff9bc682cb98bdb1db73b0fb9829f1139",
            "index.noun": "a490d99d93d017bf4822fe2f0ffa51fd73911ce271dc7535fade21f8814b5a04",
            "index.verb": "e2ac24816c3a8289dcb72aaa9cf8db81fdf25ec34d792bfc96ac5b7a20c8b4ae",
            "index.adj": "c9865d7b4d1f805bdef82ccdcea5282436e23083e6f6f1b33e716327c4eda810",
            "index.adv": "6f5465ed5758fe9c8a2f7ec17b1300f3aa875756c70ff7cba162f7e71bcf88ea",
            "index.sense": "ce997000ec806318ff1dfadf77d314ac527358e127d7bbe3d1f4e83a1c5c1c2b",
            "noun.exc": "2b5d675c380b39ecf595af9fa9d4e7feb1d58c643b0bff08c40ed5bfe41fab7a",
            "verb.exc": "dbbcf9a601b2d77e934e413b91d90e88ec7f933a8b77cfc00602a923b891b42c",
            "adj.exc": "8824cc24bbedd797b9702316b27f07cd4c2b76b629539f0a1276f03926758016",
            "adv.exc": "e7291461b629abfe63301bbe1998cee09fd575ed7107abd7ea9763adb05bf0a8",
            "cntlist.rev": "a198580b8f705fa02797bba8b13e5cbe4a9f9f40cb1697e774c7fc6a5865b035",
            "lexnames": "c871b6797d2109f563f7a162b64e8ebf18f6f42d00918572846034c7f393a214",
        },
    ),
}


def digest(path: Path, algorithm: str = "sha256", opener=open) -> str:
    """The hex digest of a file's bytes (as `opener` reads them: e.g. gzip.open for the content)."""
    h = hashlib.new(algorithm)
    with opener(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def sha256sum(path: Path) -> str:
    return digest(path, "sha256")


def require(name: str, data_dir: str | os.PathLike, files: list[str] | None = None) -> Path:
    """The dataset's folder, after checking that every needed file exists and matches its sha256.

    Raises DataError naming the file, the expected checksum and the command that fixes it.
    """
    ds, root = DATASETS[name], Path(data_dir)
    folder = root / ds.folder
    for fname in files or ds.sha256:
        path, expected = folder / fname, ds.sha256[fname]
        hint = FIX_HINT.format(root=root, name=name)
        if not path.is_file():
            raise DataError(f"missing data file {path} (dataset {name!r}). Fetch it with: {hint}")
        actual = sha256sum(path)
        if actual != expected:
            raise DataError(
                f"corrupt data file {path}: sha256 {actual}, expected {expected}. "
                f"Delete it and fetch it again with: {hint}"
            )
    return folder


def fetch(name: str, data_dir: str | os.PathLike, mirror: str | os.PathLike | None = None) -> Path:
    """Fill <data_dir>/<folder> from a local mirror (same layout; a file it lacks is downloaded) or by
    downloading; verify each file. A mirror that is not a folder is an error."""
    if mirror is not None and not Path(mirror).is_dir():
        raise DataError(f"no mirror folder {mirror}: give the folder that holds the data root's layout")
    ds = DATASETS[name]
    folder = Path(data_dir) / ds.folder
    folder.mkdir(parents=True, exist_ok=True)
    for fname, expected in ds.sha256.items():
        dest = folder / fname
        if dest.is_file() and sha256sum(dest) == expected:
            continue
        tmp = temporary_sibling(dest)
        if mirror is not None and (Path(mirror) / ds.folder / fname).is_file():
            shutil.copyfile(Path(mirror) / ds.folder / fname, tmp)
        else:
            _download(ds, fname, tmp, None if mirror is None else Path(mirror) / ds.folder)
        if sha256sum(tmp) != expected:
            tmp.unlink()
            raise DataError(f"{fname} of {name!r} does not match sha256 {expected}; the source is corrupt")
        os.replace(tmp, dest)
    return folder


def _download(ds: Dataset, fname: str, dest: Path, mirrored: Path | None = None) -> None:
    """Download `fname` from the first of the dataset's URLs that serves it; `mirrored`: the mirror's folder
    that lacked it, named where every download fails."""
    errors = [f"{mirrored / fname}: not in the mirror"] if mirrored is not None else []
    for base in ds.urls:
        try:
            with urllib.request.urlopen(base + fname, timeout=60) as r, open(dest, "wb") as f:
                shutil.copyfileobj(r, f)
            return
        except OSError as e:  # URLError is an OSError
            errors.append(f"{base + fname}: {e}")
    hint = "Put it in the mirror" if mirrored is not None else "Offline? Copy the files from a mirror"
    raise DataError(
        f"could not download {fname}; tried:\n  "
        + "\n  ".join(errors)
        + f"\n{hint}: make data DATA_MIRROR=/path/to/mirror"
    )
