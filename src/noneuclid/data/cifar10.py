"""CIFAR-10 for the PHResNets of PHYDI (Tables 1 and 2), read from the official release files.

Files, under <root>/cifar10/ for root in (data_dir, generated_dir), the first complete form found:
    cifar-10-batches-py/{data_batch_1..5, test_batch}
        the python version (cifar-10-python.tar.gz): pickled dicts, b'data' uint8 [10000, 3072]
        (R, G, B planes of 32 x 32, row-major) and b'labels' (10000 ints); checked against the official md5
    cifar-10-batches-bin/{data_batch_1..5, test_batch}.bin
        the binary version (cifar-10-binary.tar.gz, or what ../shared/data/cifar10/materialize.py writes):
        10000 records of 1 label byte + 3072 pixel bytes (same layout); checked against the sha256 in
        files.DATASETS["cifar10"] (the published md5 of these files are in BIN_MD5)
Both forms hold the same images in the same order: train = data_batch_1 ... data_batch_5, test = test_batch.

Splits (PHYDI: "validation = a fixed random 20 % of the test split"):
    val   2000 test images, val_test_split()'s indices: the first 20 % of
          numpy.random.default_rng(SPLIT_SEED).permutation(10000), kept in file order
    test  the other 8000 test images, in file order
    train the 50000 training images, or with train_size=k the first k of
          numpy.random.default_rng(TRAIN_SUBSET_SEED).permutation(50000), kept in file order (nested in k)
The PHYDI code drew its split with an unseeded torch random_split and scored "test" on all 10000 images;
here the split is fixed so that every run validates on the same 2000 images and never tests on them.

Normalisation as PHYDI: x / 255, then per channel (x - MEAN) / STD; zero_channel=True prepends a channel
of zeros after normalising (the 4-channel input of the n = 2, 4 PHResNets).
"""

from __future__ import annotations

import hashlib
import io
import os
import pickle
import shutil
import subprocess
import sys
import tarfile
import urllib.request
from pathlib import Path

import numpy as np
import torch
from torch import Tensor

from noneuclid.data import files
from noneuclid.data.files import DataError

FOLDER = "cifar10"
URL = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
TAR_MD5 = "c58f30108f718f92721af3b95e74349a"
BATCHES = ("data_batch_1", "data_batch_2", "data_batch_3", "data_batch_4", "data_batch_5", "test_batch")
PY_DIR, BIN_DIR = "cifar-10-batches-py", "cifar-10-batches-bin"
PY_MD5 = {  # the python-version files, as published (also torchvision's list)
    "data_batch_1": "c99cafc152244af753f735de768cd75f",
    "data_batch_2": "d4bba439e000b95fd0a9bffe97cbabec",
    "data_batch_3": "54ebc095f3ab1f0389bbae665268c751",
    "data_batch_4": "634d18415352ddfa80567beed471001a",
    "data_batch_5": "482c414d41f54cd18b22e5b47cb7c3cb",
    "test_batch": "40351d587109b95175f43aff81a1287e",
}
BIN_MD5 = {  # the binary-version files, as published; materialize.py checks these
    "data_batch_1.bin": "5dd7e06a14cb22eb9f671a540d1b7c25",
    "data_batch_2.bin": "5ea93a67294ea407fff1d09f752e9692",
    "data_batch_3.bin": "942cd6a4bcdd0dd3c604fbe906cb4421",
    "data_batch_4.bin": "ae636b3ba5c66a11e91e8cb52e771fcb",
    "data_batch_5.bin": "53f37980c15c3d472c316c40844f3f0d",
    "test_batch.bin": "803d5f7f4d78ea53de84dbe85f74fb6d",
}
CLASSES = ("airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck")
MEAN = (0.4914, 0.4822, 0.4465)
STD = (0.2023, 0.1994, 0.2010)
VAL_FRACTION = 0.2
SPLIT_SEED = 0  # validation / test split of the test set
TRAIN_SUBSET_SEED = 1  # order in which train_size picks training images

Split = tuple[Tensor, Tensor]  # images [count, C, 32, 32], int64 labels [count]


def _check(path: Path, actual: str, expected: str, kind: str) -> None:
    if actual != expected:
        raise DataError(
            f"corrupt data file {path}: {kind} {actual}, expected {expected}. Delete the "
            f"{path.parent.name} folder and get CIFAR-10 again (python -m noneuclid.data fetch "
            f"cifar10 --data-dir {path.parents[2]})"
        )


def read_python_batch(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """uint8 [count, 3, 32, 32] and int64 [count] from one pickled batch (checked against PY_MD5 first:
    only the official files are unpickled)."""
    _check(path, files.digest(path, "md5"), PY_MD5[path.name], "md5")
    with open(path, "rb") as f:
        d = pickle.load(f, encoding="bytes")
    data = d[b"data"] if b"data" in d else d["data"]
    labels = d[b"labels"] if b"labels" in d else d["labels"]
    return np.asarray(data, dtype=np.uint8).reshape(-1, 3, 32, 32), np.asarray(labels, dtype=np.int64)


def read_binary_batch(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """uint8 [count, 3, 32, 32] and int64 [count] from one .bin batch (checked against its sha256)."""
    _check(path, files.sha256sum(path), files.DATASETS["cifar10"].sha256[f"{BIN_DIR}/{path.name}"], "sha256")
    raw = np.fromfile(path, dtype=np.uint8)
    if raw.size % 3073:
        raise DataError(f"corrupt data file {path}: {raw.size} bytes is not a whole number of 3073-byte records")
    raw = raw.reshape(-1, 3073)
    return raw[:, 1:].reshape(-1, 3, 32, 32), raw[:, 0].astype(np.int64)


FORMATS = {PY_DIR: (lambda b: b, read_python_batch), BIN_DIR: (lambda b: b + ".bin", read_binary_batch)}


def find(data_dir, generated_dir=None) -> Path:
    """The first folder, among <root>/cifar10/{cifar-10-batches-py, cifar-10-batches-bin} for root in
    (data_dir, generated_dir), that holds all six batches. DataError, saying what to run, if none does."""
    roots = [Path(data_dir)] + ([Path(generated_dir)] if generated_dir is not None else [])
    for root in roots:
        for sub, (name, _) in FORMATS.items():
            folder = root / FOLDER / sub
            if all((folder / name(b)).is_file() for b in BATCHES):
                return folder
    data_root, out = Path(data_dir), roots[-1] / FOLDER
    script = data_root / FOLDER / "materialize.py"
    tried = ", ".join(str(r / FOLDER / sub) for r in roots for sub in FORMATS)
    if script.is_file():  # a shared/data style copy: lossless sprites plus the script that rebuilds the files
        how = f"{sys.executable} {script} {out}"
        if generated_dir is None:
            how += (
                f"  (if {data_root} is read-only, write DIR/cifar10 for a writable DIR instead and pass DIR "
                f"as generated_dir, e.g. paths.generated_dir)"
            )
    else:
        how = (
            f"python -m noneuclid.data fetch cifar10 --data-dir {data_root} (downloads {URL}, md5 {TAR_MD5}, "
            f"and extracts {PY_DIR}/ into {data_root / FOLDER}; or do that by hand), or from a copy of "
            f"shared/data: python -m noneuclid.data fetch cifar10 --data-dir {data_root} --mirror SHARED_DATA"
        )
    raise DataError(f"missing CIFAR-10: none of {tried} holds all of {', '.join(BATCHES)}. Get it with: {how}")


def load_uint8(data_dir, generated_dir=None) -> tuple[Split, Split]:
    """(train, test) of the official release: uint8 images [50000 | 10000, 3, 32, 32] (RGB planes) and
    int64 labels, in file order."""
    folder = find(data_dir, generated_dir)
    name, read = FORMATS[folder.name]
    parts = [read(folder / name(b)) for b in BATCHES]
    train = (np.concatenate([p[0] for p in parts[:-1]]), np.concatenate([p[1] for p in parts[:-1]]))
    return tuple((torch.from_numpy(x), torch.from_numpy(y)) for x, y in (train, parts[-1]))


def val_test_split(
    count: int = 10_000, fraction: float = VAL_FRACTION, seed: int = SPLIT_SEED
) -> tuple[Tensor, Tensor]:
    """(validation indices, test indices), each sorted: the first round(fraction * count) of a fixed
    permutation, and the rest."""
    perm = np.random.default_rng(seed).permutation(count)
    k = round(fraction * count)
    return torch.from_numpy(np.sort(perm[:k])), torch.from_numpy(np.sort(perm[k:]))


def train_subset(count: int, size: int, seed: int = TRAIN_SUBSET_SEED) -> Tensor:
    """Sorted indices of `size` training images: the first `size` of a fixed permutation of `count`."""
    if not 0 < size <= count:
        raise ValueError(f"train_size must be in 1..{count}, got {size}")
    return torch.from_numpy(np.sort(np.random.default_rng(seed).permutation(count)[:size]))


def normalize(images: Tensor, zero_channel: bool = False) -> Tensor:
    """uint8 [count, 3, H, W] -> float32, (x / 255 - MEAN) / STD per channel; with zero_channel a channel
    of zeros is prepended after normalising ([count, 4, H, W], channel 0 = 0)."""
    count, channels, h, w = images.shape
    out = torch.empty(count, channels + zero_channel, h, w, dtype=torch.float32, device=images.device)
    if zero_channel:
        out[:, 0] = 0
    x = out[:, int(zero_channel) :]
    x.copy_(images).div_(255)
    mean = torch.tensor(MEAN, device=x.device).view(1, 3, 1, 1)
    std = torch.tensor(STD, device=x.device).view(1, 3, 1, 1)
    x.sub_(mean).div_(std)
    return out


def splits(data_dir, generated_dir=None, train_size: int | None = None) -> dict[str, Split]:
    """{'train', 'val', 'test'} -> (uint8 images [count, 3, 32, 32], int64 labels): see the module doc."""
    (x_train, y_train), (x_test, y_test) = load_uint8(data_dir, generated_dir)
    if train_size is not None:
        keep = train_subset(len(y_train), train_size)
        x_train, y_train = x_train[keep], y_train[keep]
    val, test = val_test_split(len(y_test))
    return {"train": (x_train, y_train), "val": (x_test[val], y_test[val]), "test": (x_test[test], y_test[test])}


def load(data_dir, generated_dir=None, zero_channel: bool = False, train_size: int | None = None) -> dict[str, Split]:
    """{'train', 'val', 'test'} -> (normalised float32 images [count, 3 or 4, 32, 32], int64 labels).

    Normalised float32 train images take 614 MB (819 MB with the zero channel); to save memory keep
    splits()'s uint8 images and normalize() each batch instead.
    """
    return {k: (normalize(x, zero_channel), y) for k, (x, y) in splits(data_dir, generated_dir, train_size).items()}


def verify(data_dir, generated_dir=None) -> Path:
    """The folder of the batches found, after checking every one (DataError if missing or corrupt)."""
    folder = find(data_dir, generated_dir)
    name, read = FORMATS[folder.name]
    for b in BATCHES:
        read(folder / name(b))
    return folder


def fetch(data_dir, mirror=None) -> Path:
    """Fill <data_dir>/cifar10 and verify it. With a mirror: copy its batches (same layout), or run its
    cifar10/materialize.py (shared/data keeps lossless sprites and that script); else download the
    official python tarball (md5-checked) and extract the six batches."""
    try:
        return verify(data_dir)  # already there and intact
    except DataError:
        pass
    dest = Path(data_dir) / FOLDER
    dest.mkdir(parents=True, exist_ok=True)
    if mirror is not None:
        src = Path(mirror) / FOLDER
        for sub, (name, _) in FORMATS.items():
            if all((src / sub / name(b)).is_file() for b in BATCHES):
                (dest / sub).mkdir(exist_ok=True)
                for b in BATCHES:
                    shutil.copyfile(src / sub / name(b), dest / sub / name(b))
                return verify(data_dir)
        if not (src / "materialize.py").is_file():
            raise DataError(f"the mirror {mirror} has no CIFAR-10 batches nor cifar10/materialize.py")
        if subprocess.run([sys.executable, str(src / "materialize.py"), str(dest)], check=False).returncode:
            raise DataError(f"{src / 'materialize.py'} failed (its message is above)")
        return verify(data_dir)
    try:
        with urllib.request.urlopen(URL, timeout=300) as r:
            blob = r.read()
    except OSError as e:
        raise DataError(
            f"could not download {URL}: {e}. Offline? Use a copy of shared/data: "
            f"python -m noneuclid.data fetch cifar10 --data-dir {data_dir} --mirror PATH"
        ) from e
    if hashlib.md5(blob).hexdigest() != TAR_MD5:
        raise DataError(f"{URL} does not match md5 {TAR_MD5}; the download is corrupt")
    (dest / PY_DIR).mkdir(exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(blob), mode="r:gz") as tar:
        for b in BATCHES:  # only these members, written to fixed paths: nothing else leaves the archive
            tmp = files.temporary_sibling(dest / PY_DIR / b)
            with tar.extractfile(f"{PY_DIR}/{b}") as src_f, open(tmp, "wb") as out:
                shutil.copyfileobj(src_f, out)
            os.replace(tmp, dest / PY_DIR / b)
    return verify(data_dir)
