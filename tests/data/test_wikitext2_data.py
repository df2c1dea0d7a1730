"""WikiText-2: plain and gzipped files, checksums, torchtext's basic_english tokens and vocabulary order,
padding the vocabulary to a multiple of n, batchify / get_batch layout, and what a missing file says."""

import math

import pytest
import torch
from data_files import TEXT, write

from noneuclid.data import DataError, wikitext2


def test_basic_english_tokenizer():
    assert wikitext2.tokenize('The game \'s "story" began (in 2011); it was <unk>.\n') == [
        "the",
        "game",
        "'",
        "s",
        "story",
        "began",
        "(",
        "in",
        "2011",
        ")",
        "it",
        "was",
        "<unk>",
        ".",
    ]
    assert wikitext2.tokenize(" 3 @,@ 000 @-@ a : b ! c ? ") == [
        "3",
        "@",
        ",",
        "@",
        "000",
        "@-@",
        "a",
        "b",
        "!",
        "c",
        "?",
    ]
    assert wikitext2.tokenize(" \n") == []


def test_vocabulary_order_is_torchtexts():
    words = wikitext2.build_vocab(["b", "a", "<unk>", "c", "a", "b", "<unk>", "<unk>", "d"])
    assert words == ["<unk>", "a", "b", "c", "d"]  # '<unk>' first, then count desc, ties by code point
    # max_tokens keeps the first max_tokens - 1 of that order, '<unk>' included, then puts '<unk>' first
    assert wikitext2.build_vocab(["b", "a", "<unk>", "c", "a", "b", "<unk>", "<unk>", "d"], max_tokens=4) == [
        "<unk>",
        "a",
        "b",
    ]
    assert wikitext2.build_vocab(["x", "y", "y"], max_tokens=3) == ["<unk>", "y", "x"]


@pytest.mark.parametrize("gz", [(), ("train", "valid", "test"), ("train",)])
def test_plain_and_gzip_read_alike(tmp_path, monkeypatch, gz):
    c = wikitext2.load(write(tmp_path, monkeypatch, gz))
    assert (
        c.itos[:6] == ["<unk>", "the", "=", "end", "game", "story"]
        and c.padding == 0
        and c.vocab_size == c.words == len(c.itos)
    )
    decoded = [c.itos[i] for i in c.train.tolist()]
    assert decoded == wikitext2._tokens(TEXT["train"])  # the whole split, lines concatenated, no <eos>
    assert decoded[:8] == ["=", "valkyria", "chronicles", "=", "the", "game", "'", "s"]
    # words unseen in train are <unk> (id 0)
    assert [c.itos[i] for i in c.valid] == [
        "the",
        "<unk>",
        "game",
        "was",
        "<unk>",
        ",",
        "<unk>",
        "<unk>",
        "<unk>",
        "<unk>",
        "<unk>",
        ".",
    ]
    assert c.test.tolist() == [c.itos.index("the"), c.itos.index("end"), c.itos.index(".")]
    assert all(t.dtype == torch.int64 and t.dim() == 1 for t in (c.train, c.valid, c.test))


def test_plain_file_wins_over_gz(tmp_path, monkeypatch):
    write(tmp_path, monkeypatch, gz=("train",))
    (tmp_path / "wikitext-2" / "train.txt").write_text("corrupt")
    with pytest.raises(DataError, match=r"corrupt data file .*train\.txt: content sha256"):
        wikitext2.load(tmp_path)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 8])
def test_vocabulary_padded_to_a_multiple_of_n(tmp_path, monkeypatch, n):
    base = wikitext2.load(write(tmp_path, monkeypatch))
    c = wikitext2.load(tmp_path, multiple_of=n)
    assert c.vocab_size % n == 0 and c.vocab_size - c.padding == c.words == base.words
    assert 0 <= c.padding < n and c.itos[: c.words] == base.itos
    assert c.itos[c.words :] == [f"<pad{k}>" for k in range(c.padding)]
    for split in ("train", "valid", "test"):  # padding ids never occur; the data does not change
        assert torch.equal(getattr(c, split), getattr(base, split))
        assert int(getattr(c, split).max()) < c.words


def test_padding_names_in_the_text_are_not_padding(tmp_path, monkeypatch):
    monkeypatch.setitem(TEXT, "valid", "<pad0> <pad1>\n")  # unseen in train: <unk>, never a padding id
    c = wikitext2.load(write(tmp_path, monkeypatch), multiple_of=64)
    assert c.valid.tolist() == [0, 0]


def test_batchify_columns():
    data = torch.arange(23)
    b = wikitext2.batchify(data, 4)  # 5 rows; tokens 20..22 dropped
    assert b.shape == (5, 4) and b.is_contiguous()
    assert b[:, 0].tolist() == [0, 1, 2, 3, 4] and b[:, 3].tolist() == [15, 16, 17, 18, 19]
    assert b[0].tolist() == [0, 5, 10, 15]
    with pytest.raises(ValueError, match="fewer than 2 rows"):
        wikitext2.batchify(torch.arange(7), 4)


def test_get_batch_input_and_target():
    source = wikitext2.batchify(torch.arange(100), 4)  # [25, 4]
    x, y = wikitext2.get_batch(source, 0, bptt=10)
    assert x.shape == (10, 4) and y.shape == (40,)
    assert torch.equal(x, source[:10]) and torch.equal(y, source[1:11].reshape(-1))
    assert torch.equal(y.view(10, 4), x + 1)  # target[t*columns + j] is the token after input[t, j]
    rows = [wikitext2.get_batch(source, i, bptt=10) for i in range(0, source.size(0) - 1, 10)]
    assert [len(x) for x, _ in rows] == [10, 10, 4]  # the last window is short: 24 - 20
    assert torch.equal(torch.cat([x for x, _ in rows]), source[:-1])
    assert wikitext2.get_batch(source, 0)[0].shape == (24, 4)  # default bptt 35, cut at the end
    with pytest.raises(IndexError):
        wikitext2.get_batch(source, 24)


def test_missing_file_says_how_to_fetch(tmp_path, monkeypatch):
    write(tmp_path, monkeypatch)
    (tmp_path / "wikitext-2" / "test.txt").unlink()
    with pytest.raises(DataError, match=r"missing data file .*test\.txt \(or test\.txt\.gz\).*fetch wikitext2"):
        wikitext2.load(tmp_path)


def test_cli_fetches_from_a_mirror_and_verifies(tmp_path, monkeypatch, capsys):
    from noneuclid.data import files
    from noneuclid.data.__main__ import main

    mirror = write(tmp_path / "mirror", monkeypatch, gz=("train", "valid", "test"))
    sums = {p.name: files.sha256sum(p) for p in (mirror / "wikitext-2").iterdir()}
    monkeypatch.setitem(files.DATASETS, "wikitext2", files.Dataset(folder="wikitext-2", sha256=sums))
    dest = tmp_path / "dest"
    assert main(["fetch", "wikitext2", "--data-dir", str(dest), "--mirror", str(mirror)]) == 0
    assert main(["verify", "wikitext2", "--data-dir", str(dest)]) == 0
    assert capsys.readouterr().out.count("wikitext2: ok") == 2
    assert main(["verify", "wikitext2", "--data-dir", str(tmp_path / "none")]) == 1
    assert "missing data file" in capsys.readouterr().err


@pytest.mark.shared_data("wikitext-2")
def test_real_files_match_the_torchtext_tutorial(shared_data):
    c = wikitext2.load(shared_data, multiple_of=4)
    assert c.words == 28_782 and c.vocab_size == 28_784
    assert (len(c.train), len(c.valid), len(c.test)) == (2_049_990, 214_417, 241_859)
    assert wikitext2.batchify(c.train, 20).shape == (102_499, 20)  # the tutorial's train_data
    assert c.itos[:6] == ["<unk>", "the", ",", ".", "of", "and"]
    phydi = wikitext2.build_vocab([c.itos[i] for i in c.train.tolist()], max_tokens=28_781)  # PHYDI configs
    assert len(phydi) == 28_780 and phydi[-1] == "ストップ"


def test_unigram_perplexity_on_a_tiny_corpus():
    """p(w) = (c(w) + 1) / (N + words): train counts [2, 1, 1] -> p = 3/7, 2/7, 2/7."""
    train, words = torch.tensor([0, 0, 1, 2]), 3
    assert wikitext2.unigram_perplexity(train, torch.tensor([0, 1]), words) == pytest.approx(7 / math.sqrt(6))
    # equal counts: every word 1/words, perplexity = words
    assert wikitext2.unigram_perplexity(torch.tensor([0, 1, 2]), torch.tensor([2, 2, 0]), 3) == pytest.approx(3)
    # a word missing from the training tokens still has p > 0
    assert math.isfinite(wikitext2.unigram_perplexity(torch.tensor([0, 0]), torch.tensor([1]), 2))
    with pytest.raises(ValueError, match="not below words"):
        wikitext2.unigram_perplexity(torch.tensor([5]), torch.tensor([0]), 3)
