"""SNLI 1.0 as Ganea et al. use it: binary (entailment = 1; neutral, contradiction = 0; pairs without
a gold label dropped), lower-cased and split on non-letters.

Reads, in <data_dir>/snli/, the first of these forms found for a split:
    snli_1.0_<split>.jsonl(.gz)   the official release (inside snli_1.0.zip)
    snli_1.0_<split>.txt(.gz)     the official tab-separated files (same zip)
    <split>-*.parquet             the Hugging Face export (columns premise, hypothesis, label)
The official .jsonl content is checked against its published md5.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import re
import shutil
import urllib.request
import zipfile
from pathlib import Path

from noneuclid.data import files
from noneuclid.data.files import DataError

URL = "https://nlp.stanford.edu/projects/snli/snli_1.0.zip"
ZIP_MD5 = "981c3df556bbaea3f17f752456d0088c"
JSONL_MD5 = {
    "train": "ff0cea1eb2dd6d4cec2d5698f6f66ee5",
    "dev": "b23798a0751d9a3dccac16a232496ca5",
    "test": "2392a35de49893c84b08fb92de6fc5e4",
}
HF_LABELS = {0: "entailment", 1: "neutral", 2: "contradiction"}


def tokenize(sentence: str) -> list[str]:
    """Lower-case, split on non-letters."""
    return re.findall(r"[a-z]+", sentence.lower())


def _open_text(path: Path):
    return gzip.open(path, "rt", encoding="utf-8") if path.suffix == ".gz" else open(path, encoding="utf-8")


def _md5(path: Path) -> str:
    """md5 of the (uncompressed) content."""
    return files.digest(path, "md5", gzip.open if path.suffix == ".gz" else open)


def split_files(folder: Path, split: str) -> list[Path]:
    """The files of `split` in `folder` that the loader can read (empty where there are none): the jsonl or
    text release, or the Hugging Face export's parts."""
    names = (f"snli_1.0_{split}.{ext}" for ext in ("jsonl", "jsonl.gz", "txt", "txt.gz"))
    return [folder / name for name in names if (folder / name).is_file()] + sorted(folder.glob(f"{split}-*.parquet"))


def _triples(split: str, folder: Path):
    """(gold label, sentence1, sentence2) of every pair in the split's file."""
    for name in (f"snli_1.0_{split}.jsonl", f"snli_1.0_{split}.jsonl.gz"):
        if (folder / name).is_file():
            path = folder / name
            if _md5(path) != JSONL_MD5[split]:
                raise DataError(
                    f"corrupt data file {path}: its content's md5 is not {JSONL_MD5[split]}. "
                    f"Fetch SNLI again: python -m noneuclid.data fetch snli --data-dir {folder.parent}"
                )
            with _open_text(path) as f:
                for line in f:
                    d = json.loads(line)
                    yield d["gold_label"], d["sentence1"], d["sentence2"]
            return
    for name in (f"snli_1.0_{split}.txt", f"snli_1.0_{split}.txt.gz"):
        if (folder / name).is_file():
            with _open_text(folder / name) as f:
                header = f.readline().rstrip("\n").split("\t")
                g, s1, s2 = (header.index(k) for k in ("gold_label", "sentence1", "sentence2"))
                for line in f:
                    cols = line.rstrip("\n").split("\t")
                    yield cols[g], cols[s1], cols[s2]
            return
    parquet = sorted(folder.glob(f"{split}-*.parquet"))
    if parquet:
        import pandas as pd

        for part in parquet:
            df = pd.read_parquet(part)
            for p, h, y in zip(df.premise, df.hypothesis, df.label):
                yield HF_LABELS.get(int(y), "-"), p, h
        return
    hint = "SNLI's training split is not on this machine (see ../shared/data/README.md); " if split == "train" else ""
    raise DataError(
        f"missing data file {folder}/snli_1.0_{split}.jsonl (or .txt, .jsonl.gz, or the "
        f"Hugging Face {split}-*.parquet). {hint}Fetch it with: "
        f"python -m noneuclid.data fetch snli --data-dir {folder.parent} (needs a network)"
    )


def load(data_dir, split: str) -> tuple[list[list[str]], list[list[str]], list[int]]:
    """Tokenised (first sentences, second sentences, binary labels) of a split."""
    first, second, labels = [], [], []
    for gold, s1, s2 in _triples(split, Path(data_dir) / "snli"):
        if gold not in ("entailment", "neutral", "contradiction"):
            continue
        first.append(tokenize(s1))
        second.append(tokenize(s2))
        labels.append(int(gold == "entailment"))
    return first, second, labels


def fetch(data_dir) -> Path:
    """Download the official zip (md5-checked) and extract the three .jsonl files into <data_dir>/snli."""
    folder = Path(data_dir) / "snli"
    folder.mkdir(parents=True, exist_ok=True)
    try:
        with urllib.request.urlopen(URL, timeout=120) as r:
            blob = r.read()
    except OSError as e:
        raise DataError(f"could not download {URL}: {e}") from e
    if hashlib.md5(blob).hexdigest() != ZIP_MD5:
        raise DataError(f"{URL} does not match md5 {ZIP_MD5}; the download is corrupt")
    with zipfile.ZipFile(io.BytesIO(blob)) as z:
        for split in JSONL_MD5:
            with (
                z.open(f"snli_1.0/snli_1.0_{split}.jsonl") as src,
                open(folder / f"snli_1.0_{split}.jsonl", "wb") as dst,
            ):
                shutil.copyfileobj(src, dst)
    return folder
