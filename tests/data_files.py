"""Tiny files in the official formats of the datasets, for the tests: CIFAR-10's python and binary
batches, WikiText-2's three splits (their checksums registered by the caller or here)."""

import gzip
import hashlib
import pickle

import numpy as np

from noneuclid.data import files, wikitext2

PER_BATCH = {
    "data_batch_1": 3,
    "data_batch_2": 2,
    "data_batch_3": 3,
    "data_batch_4": 1,
    "data_batch_5": 2,
    "test_batch": 10,
}


def cifar10_batches(seed=0):
    """A few random images and labels per official batch name."""
    rng = np.random.default_rng(seed)
    return {
        b: (rng.integers(0, 256, (k, 3072), dtype=np.uint8), rng.integers(0, 10, k).tolist())
        for b, k in PER_BATCH.items()
    }


def write_python(root, batches):
    """cifar-10-batches-py as in cifar-10-python.tar.gz: pickled dicts with bytes keys."""
    folder = root / "cifar10" / "cifar-10-batches-py"
    folder.mkdir(parents=True)
    for name, (data, labels) in batches.items():
        d = {
            b"batch_label": name.encode(),
            b"labels": labels,
            b"data": data,
            b"filenames": [f"img_{i}.png".encode() for i in range(len(labels))],
        }
        (folder / name).write_bytes(pickle.dumps(d, protocol=2))
    return {name: hashlib.md5((folder / name).read_bytes()).hexdigest() for name in batches}


def write_binary(root, batches):
    """cifar-10-batches-bin as in cifar-10-binary.tar.gz: 1 label byte + 3072 pixel bytes per image."""
    folder = root / "cifar10" / "cifar-10-batches-bin"
    folder.mkdir(parents=True)
    for name, (data, labels) in batches.items():
        rec = np.concatenate([np.array(labels, dtype=np.uint8)[:, None], data], axis=1)
        (folder / f"{name}.bin").write_bytes(rec.tobytes())
    return {f"cifar-10-batches-bin/{name}.bin": files.sha256sum(folder / f"{name}.bin") for name in batches}


TEXT = {
    "train": ' = Valkyria Chronicles = \n\n The game \'s "story" began ( in 2011 ) ; it was <unk> .\n'
    " the game , the story : the end ! the @-@ end ?\n",
    "valid": " The new game was <unk> , unseen words map to <unk> .\n",
    "test": " the end .\n",
}


def write(root, monkeypatch, gz=("train",)):
    """The three splits in <root>/wikitext-2, the ones named in gz gzipped; their sha256 registered."""
    folder = root / "wikitext-2"
    folder.mkdir(parents=True, exist_ok=True)
    for split, text in TEXT.items():
        raw = text.encode()
        if split in gz:
            (folder / f"{split}.txt.gz").write_bytes(gzip.compress(raw))
        else:
            (folder / f"{split}.txt").write_bytes(raw)
        monkeypatch.setitem(wikitext2.CONTENT_SHA256, split, hashlib.sha256(raw).hexdigest())
    return root
