"""SNLI loading: the three official formats, binarisation, tokenisation, checksums, missing train."""

import gzip
import json

import pytest

from noneuclid.data import DataError, snli

ROWS = [
    ("entailment", "A man, in a hat.", "A MAN is outside!"),
    ("neutral", "Dogs run.", "Two dogs"),
    ("contradiction", "It's 3 cats", "no cats"),
    ("-", "unclear", "pair"),
]
EXPECTED = (
    [["a", "man", "in", "a", "hat"], ["dogs", "run"], ["it", "s", "cats"]],
    [["a", "man", "is", "outside"], ["two", "dogs"], ["no", "cats"]],
    [1, 0, 0],
)


def test_official_txt_format(tmp_path):
    folder = tmp_path / "snli"
    folder.mkdir()
    header = "gold_label\tsentence1_binary_parse\tsentence2_binary_parse\tsentence1\tsentence2\tpairID\n"
    body = "".join(f"{g}\t( x )\t( y )\t{a}\t{b}\tid{i}\n" for i, (g, a, b) in enumerate(ROWS))
    (folder / "snli_1.0_dev.txt").write_text(header + body)
    assert snli.load(tmp_path, "dev") == EXPECTED


def test_jsonl_is_checked_against_the_official_md5(tmp_path, monkeypatch):
    folder = tmp_path / "snli"
    folder.mkdir()
    with gzip.open(folder / "snli_1.0_test.jsonl.gz", "wt") as f:
        for g, a, b in ROWS:
            f.write(json.dumps({"gold_label": g, "sentence1": a, "sentence2": b}) + "\n")
    with pytest.raises(DataError, match="corrupt data file .*md5"):
        snli.load(tmp_path, "test")
    monkeypatch.setitem(snli.JSONL_MD5, "test", snli._md5(folder / "snli_1.0_test.jsonl.gz"))
    assert snli.load(tmp_path, "test") == EXPECTED


def test_parquet_export(tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    folder = tmp_path / "snli"
    folder.mkdir()
    labels = {"entailment": 0, "neutral": 1, "contradiction": 2, "-": -1}
    pd.DataFrame(
        {"premise": [r[1] for r in ROWS], "hypothesis": [r[2] for r in ROWS], "label": [labels[r[0]] for r in ROWS]}
    ).to_parquet(folder / "validation-00000-of-00001.parquet")
    (folder / "validation-00000-of-00001.parquet").rename(folder / "dev-00000-of-00001.parquet")
    assert snli.load(tmp_path, "dev") == EXPECTED


def test_missing_train_says_so(tmp_path):
    with pytest.raises(DataError, match="training split is not on this machine"):
        snli.load(tmp_path, "train")


@pytest.mark.parametrize("name", ["snli_1.0_train.jsonl.gz", "snli_1.0_train.txt", "train-00000-of-00001.parquet"])
def test_split_files_finds_every_format_the_loader_reads(tmp_path, name):
    assert snli.split_files(tmp_path, "train") == []
    (tmp_path / name).touch()
    (tmp_path / "snli_1.0_dev.jsonl").touch()  # another split's file is not the training split
    assert snli.split_files(tmp_path, "train") == [tmp_path / name]


@pytest.mark.shared_data("snli")
def test_real_dev_split(shared_data):
    first, second, labels = snli.load(shared_data, "dev")
    assert len(labels) == 10_000 - 158 and sum(labels) == 3329
