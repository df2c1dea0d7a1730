"""WikiText-2 (word level, with <unk>) for the PHTransformer language models of PHYDI (Fig. 4).

Files, in <data_dir>/wikitext-2/: train.txt, valid.txt, test.txt, the official wiki.{train,valid,test}.tokens
of wikitext-2-v1.zip renamed as in the PyTorch word_language_model example, each plain or gzipped (.txt.gz;
the plain file is read if both are there). The uncompressed content is checked against CONTENT_SHA256.

Tokens and vocabulary reproduce PHYDI's loader (github.com/mancanelli/PHYDI, PH-Transformers/utils/dataloaders.py,
which is the PyTorch transformer tutorial's): torchtext's WikiText2 lines, the `basic_english` tokenizer,
build_vocab_from_iterator(map(tokenizer, train_lines), specials=['<unk>']) with unknown words mapped to
'<unk>', and every split's tokens concatenated into one stream (no end-of-line token). Without torchtext:
    tokenize()     lower-case; ' -> " '  "; drop "; put spaces around . , ( ) ! ?; ; and : -> space;
                   split on whitespace (torchtext.data.utils._basic_english_normalize)
    the vocabulary '<unk>' = 0, then every training token by descending count, ties in code-point order;
                   with max_tokens, torchtext's cut: only the first max_tokens - 1 of that order are
                   considered ('<unk>' among them), so the vocabulary has max_tokens - 1 words
                   when '<unk>' is a training token (it is in WikiText-2); then padded (below)
On the real files: 28,782 words; train 2,049,990 tokens, valid 214,417, test 241,859 (the tutorial's
train_data of [102499, 20]). PHYDI's configs pass max_tokens=28781, which gives 28,780 words (a multiple
of 4: the two rarest, last-sorted training words become <unk>); the suite instead pads the vocabulary
to a multiple of n (docs/phydi.md, "Values taken from the paper"), which is load(multiple_of=n):
padding entries '<pad0>', '<pad1>', ... get ids after every word and never occur in the data.

Layout: a split is a 1-D int64 stream of token ids. batchify(stream, columns) -> [rows, columns], column j
= stream[j*rows:(j+1)*rows] (the tail that fills no whole row is dropped). get_batch(source, i, bptt) ->
input = source[i:i+L] [L, columns] (sequence first, as nn.Transformer's default) and target =
source[i+1:i+1+L].reshape(-1) [L*columns], so target[t*columns + j] is the token after input[t, j];
L = min(bptt, rows - 1 - i). An epoch walks i over range(0, rows - 1, bptt).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import math
import os
import re
import urllib.request
import zipfile
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

import torch
from torch import Tensor

from noneuclid.data.files import DataError, temporary_sibling

FOLDER = "wikitext-2"
SPLITS = ("train", "valid", "test")
UNK = "<unk>"
ZIP_URL = "https://s3.amazonaws.com/research.metamind.io/wikitext/wikitext-2-v1.zip"
ZIP_MD5 = "542ccefacc6c27f945fb54453812b3cd"
# the same files as in the zip, byte for byte (shared/data/README.md): used when the zip cannot be had
RAW_URL = "https://raw.githubusercontent.com/pytorch/examples/main/word_language_model/data/wikitext-2/{split}.txt"
CONTENT_SHA256 = {  # of the uncompressed files
    "train": "9e9fa1ad55b1c2c95b08e37dd8e653f638fac2c6de904b79e813611eefbc985f",
    "valid": "f0737ed31fc1329026e95cb8b98e19c2a182c39c240ab909dc31abf2f8af58e8",
    "test": "d790b833ef8cf03a90db7bf1271b7520b83c45ce07ba3c1a9699df81e239eca0",
}

_RULES = [
    (re.compile(p), r)
    for p, r in [
        (r"\'", " '  "),
        (r"\"", ""),
        (r"\.", " . "),
        (r"<br \/>", " "),
        (r",", " , "),
        (r"\(", " ( "),
        (r"\)", " ) "),
        (r"\!", " ! "),
        (r"\?", " ? "),
        (r"\;", " "),
        (r"\:", " "),
        (r"\s+", " "),
    ]
]


def tokenize(line: str) -> list[str]:
    """torchtext's basic_english tokenizer."""
    line = line.lower()
    for pattern, replacement in _RULES:
        line = pattern.sub(replacement, line)
    return line.split()


def _fix_hint(data_dir) -> str:
    return (
        f"python -m noneuclid.data fetch wikitext2 --data-dir {data_dir} (downloads {ZIP_URL}), or from a "
        f"copy of shared/data: python -m noneuclid.data fetch wikitext2 --data-dir {data_dir} --mirror PATH"
    )


def read_split(data_dir, split: str) -> str:
    """The split's text, after checking its sha256; DataError naming the file and the fix otherwise."""
    folder = Path(data_dir) / FOLDER
    for path in (folder / f"{split}.txt", folder / f"{split}.txt.gz"):
        if path.is_file():
            raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
            actual = hashlib.sha256(raw).hexdigest()
            if actual != CONTENT_SHA256[split]:
                raise DataError(
                    f"corrupt data file {path}: content sha256 {actual}, expected "
                    f"{CONTENT_SHA256[split]}. Delete it and fetch it again: {_fix_hint(data_dir)}"
                )
            return raw.decode("utf-8")
    raise DataError(
        f"missing data file {folder / split}.txt (or {split}.txt.gz), the official "
        f"wiki.{split}.tokens renamed. Fetch it with: {_fix_hint(data_dir)}"
    )


def _tokens(text: str) -> list[str]:
    return [t for line in text.split("\n") for t in tokenize(line)]


def build_vocab(train_tokens: list[str], max_tokens: int | None = None) -> list[str]:
    """Index -> word: '<unk>', then the training tokens by descending count, ties in code-point order
    (torchtext's build_vocab_from_iterator with specials=['<unk>'] and its max_tokens cut)."""
    ordered = sorted(Counter(train_tokens).items(), key=lambda kv: (-kv[1], kv[0]))
    if max_tokens is not None:
        if max_tokens < 2:
            raise ValueError(f"max_tokens must be >= 2 (it counts '<unk>'), got {max_tokens}")
        ordered = ordered[: max_tokens - 1]
    return [UNK] + [t for t, _ in ordered if t != UNK]


@dataclass
class Corpus:
    itos: list[str]  # id -> token; '<unk>' is 0; the last `padding` entries never occur
    padding: int
    train: Tensor  # int64 [tokens]
    valid: Tensor
    test: Tensor

    @property
    def words(self) -> int:
        """Entries that can occur: '<unk>' and the training words."""
        return len(self.itos) - self.padding

    @property
    def vocab_size(self) -> int:
        """Rows of the embedding / columns of the output layer: the words plus the padding."""
        return len(self.itos)


def load(data_dir, multiple_of: int = 1, max_tokens: int | None = None) -> Corpus:
    """The three splits as 1-D token-id streams, with the vocabulary built from train (see the module doc)."""
    if multiple_of < 1:
        raise ValueError(f"multiple_of must be >= 1, got {multiple_of}")
    tokens = {split: _tokens(read_split(data_dir, split)) for split in SPLITS}
    words = build_vocab(tokens["train"], max_tokens)
    stoi = {t: i for i, t in enumerate(words)}  # padding ids are never looked up
    ids = {s: torch.tensor([stoi.get(t, 0) for t in toks], dtype=torch.long) for s, toks in tokens.items()}
    padding = -len(words) % multiple_of
    return Corpus(itos=words + [f"<pad{k}>" for k in range(padding)], padding=padding, **ids)


def truncated(corpus: Corpus, train_tokens: int | None = None, eval_tokens: int | None = None) -> Corpus:
    """The corpus with only the first train_tokens of train and eval_tokens of valid and test (None:
    all); the vocabulary stays the one built from the whole training split (a reduced profile)."""

    def head(stream: Tensor, k: int | None) -> Tensor:
        if k is not None and not 0 < k:
            raise ValueError(f"token counts must be positive or null, got {k}")
        return stream if k is None else stream[:k]

    return replace(
        corpus,
        train=head(corpus.train, train_tokens),
        valid=head(corpus.valid, eval_tokens),
        test=head(corpus.test, eval_tokens),
    )


def unigram_perplexity(train: Tensor, evaluated: Tensor, words: int) -> float:
    """Perplexity on `evaluated` of the best model that ignores context, fitted on `train` (1-D token
    streams of ids < words): p(w) = (c(w) + 1) / (N + words), c the training counts, N = len(train)
    (add-one smoothing, so that a word the training tokens lack has p > 0); returns
    exp(-mean_t log p(evaluated_t)). A language model below it uses the context; at it, it has only
    learned the word frequencies (the padding ids never occur and are not counted in `words`)."""
    if evaluated.numel() == 0:
        raise ValueError("no tokens to evaluate the unigram baseline on")
    counts = torch.bincount(train, minlength=words).double()
    if counts.numel() > words:
        raise ValueError(f"token id {int(train.max())} is not below words={words}")
    log_p = (counts + 1).log() - math.log(len(train) + words)
    return math.exp(-float(log_p[evaluated].mean()))


def batchify(data: Tensor, columns: int) -> Tensor:
    """1-D stream -> [rows, columns], column j holding stream[j*rows:(j+1)*rows]; the tail is dropped."""
    rows = data.size(0) // columns
    if rows < 2:
        raise ValueError(f"{data.size(0)} tokens make fewer than 2 rows of {columns} columns")
    return data[: rows * columns].view(columns, rows).t().contiguous()


def get_batch(source: Tensor, i: int, bptt: int = 35) -> tuple[Tensor, Tensor]:
    """(input [L, columns], flattened next-token target [L * columns]) at row i, L = min(bptt, rows - 1 - i)."""
    seq_len = min(bptt, source.size(0) - 1 - i)
    if i < 0 or seq_len < 1:
        raise IndexError(f"row {i} has no next row to predict (source has {source.size(0)} rows)")
    return source[i : i + seq_len], source[i + 1 : i + 1 + seq_len].reshape(-1)


def verify(data_dir) -> Path:
    for split in SPLITS:
        read_split(data_dir, split)
    return Path(data_dir) / FOLDER


def fetch(data_dir) -> Path:
    """Download the official zip (md5-checked) and write train/valid/test.txt; if the zip cannot be had,
    the same three files from pytorch/examples. Either way each file's sha256 is checked."""
    folder = Path(data_dir) / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    try:
        with urllib.request.urlopen(ZIP_URL, timeout=300) as r:
            blob = r.read()
        if hashlib.md5(blob).hexdigest() != ZIP_MD5:
            raise DataError(f"{ZIP_URL} does not match md5 {ZIP_MD5}")
        with zipfile.ZipFile(io.BytesIO(blob)) as z:
            texts = {s: z.read(f"wikitext-2/wiki.{s}.tokens") for s in SPLITS}
    except (OSError, DataError) as e:
        try:
            texts = {}
            for s in SPLITS:
                with urllib.request.urlopen(RAW_URL.format(split=s), timeout=300) as r:
                    texts[s] = r.read()
        except OSError as e2:
            raise DataError(
                f"could not download WikiText-2: {e}; {e2}. Offline? Copy it from shared/data: "
                f"python -m noneuclid.data fetch wikitext2 --data-dir {data_dir} --mirror PATH"
            ) from e2
    for s, blob in texts.items():
        if hashlib.sha256(blob).hexdigest() != CONTENT_SHA256[s]:
            raise DataError(f"the downloaded {s} split does not match sha256 {CONTENT_SHA256[s]}")
        tmp = temporary_sibling(folder / f"{s}.txt")
        tmp.write_bytes(blob)
        os.replace(tmp, folder / f"{s}.txt")
    return verify(data_dir)
