"""CIFAR-10: both official formats (python pickles, binary records) read alike, checksums, normalisation,
the zero channel, the fixed validation split and the training subset, and what a missing file says."""

import pytest
import torch
from data_files import cifar10_batches, write_binary, write_python

from noneuclid.data import DataError, cifar10, files


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    """(root with the python batches, root with the binary batches, the batches), registered with the
    tiny files' own checksums (the real ones would not match)."""
    batches = cifar10_batches()
    py_root, bin_root = tmp_path / "py", tmp_path / "bin"
    for name, md5 in write_python(py_root, batches).items():
        monkeypatch.setitem(cifar10.PY_MD5, name, md5)
    monkeypatch.setitem(
        files.DATASETS, "cifar10", files.Dataset(folder="cifar10", sha256=write_binary(bin_root, batches))
    )
    return py_root, bin_root, batches


def test_both_formats_give_the_same_tensors(tiny):
    py_root, bin_root, batches = tiny
    (xp, yp), (xtp, ytp) = cifar10.load_uint8(py_root)
    (xb, yb), (xtb, ytb) = cifar10.load_uint8(bin_root)
    assert xp.shape == (11, 3, 32, 32) and xtp.shape == (10, 3, 32, 32)
    assert xp.dtype == torch.uint8 and yp.dtype == torch.int64
    for a, b in ((xp, xb), (yp, yb), (xtp, xtb), (ytp, ytb)):
        assert torch.equal(a, b)
    # file order, and the pickle layout: R, G, B planes of 32 x 32, row-major
    first = batches["data_batch_1"][0][0].reshape(3, 32, 32)
    assert torch.equal(xp[0], torch.from_numpy(first))
    assert torch.equal(xp[3], torch.from_numpy(batches["data_batch_2"][0][0].reshape(3, 32, 32)))
    assert yp.tolist() == [y for i in range(1, 6) for y in batches[f"data_batch_{i}"][1]]
    assert ytp.tolist() == batches["test_batch"][1]


def test_python_batches_are_preferred_when_both_are_there(tiny, tmp_path):
    py_root, bin_root, _ = tiny
    (bin_root / "cifar10" / "cifar-10-batches-py").symlink_to(py_root / "cifar10" / "cifar-10-batches-py")
    assert cifar10.find(bin_root).name == "cifar-10-batches-py"
    assert cifar10.verify(bin_root).name == "cifar-10-batches-py"


def test_generated_dir_is_searched_after_the_data_root(tiny, tmp_path):
    _, bin_root, _ = tiny
    assert cifar10.find(tmp_path / "empty", generated_dir=bin_root) == bin_root / "cifar10" / "cifar-10-batches-bin"


def test_checksums_are_checked(tiny):
    py_root, bin_root, _ = tiny
    path = bin_root / "cifar10" / "cifar-10-batches-bin" / "data_batch_3.bin"
    path.write_bytes(path.read_bytes()[:-1] + b"\x00")
    with pytest.raises(DataError, match="corrupt data file .*data_batch_3.bin: sha256"):
        cifar10.load_uint8(bin_root)
    path = py_root / "cifar10" / "cifar-10-batches-py" / "test_batch"
    path.write_bytes(path.read_bytes() + b"x")
    with pytest.raises(DataError, match="corrupt data file .*test_batch: md5"):
        cifar10.verify(py_root)


def test_missing_files_say_what_to_run(tmp_path):
    with pytest.raises(DataError, match=r"missing CIFAR-10.*fetch cifar10 --data-dir .*cifar-10-python\.tar\.gz"):
        cifar10.load_uint8(tmp_path)
    (tmp_path / "cifar10").mkdir()
    (tmp_path / "cifar10" / "materialize.py").write_text("")  # a shared/data style folder: sprites + script
    with pytest.raises(DataError, match=r"materialize\.py .*gen.cifar10"):
        cifar10.load_uint8(tmp_path, generated_dir=tmp_path / "gen")


def test_incomplete_folder_is_not_used(tiny):
    _, bin_root, _ = tiny
    (bin_root / "cifar10" / "cifar-10-batches-bin" / "data_batch_5.bin").unlink()
    with pytest.raises(DataError, match="missing CIFAR-10"):
        cifar10.find(bin_root)


def test_normalisation_and_zero_channel():
    x = torch.randint(0, 256, (5, 3, 32, 32), dtype=torch.uint8)
    mean, std = torch.tensor(cifar10.MEAN).view(1, 3, 1, 1), torch.tensor(cifar10.STD).view(1, 3, 1, 1)
    expected = (x.float() / 255 - mean) / std
    out = cifar10.normalize(x)
    assert out.dtype == torch.float32 and out.shape == (5, 3, 32, 32)
    torch.testing.assert_close(out, expected)
    four = cifar10.normalize(x, zero_channel=True)
    assert four.shape == (5, 4, 32, 32)
    assert torch.equal(four[:, 0], torch.zeros(5, 32, 32))  # zero after normalising, not (0 - mean) / std
    assert torch.equal(four[:, 1:], out)
    assert cifar10.MEAN == (0.4914, 0.4822, 0.4465) and cifar10.STD == (0.2023, 0.1994, 0.2010)


def test_validation_split_is_fixed():
    val, test = cifar10.val_test_split()
    assert len(val) == 2000 and len(test) == 8000
    assert torch.equal(torch.sort(torch.cat([val, test])).values, torch.arange(10_000))
    assert torch.equal(val, torch.sort(val).values)  # kept in file order
    again_val, again_test = cifar10.val_test_split()
    assert torch.equal(val, again_val) and torch.equal(test, again_test)
    # pinned: a change of seed or of numpy's generator would silently move images between val and test
    assert val[:10].tolist() == [1, 4, 15, 17, 27, 36, 38, 40, 42, 47]


def test_splits_and_train_subset(tiny):
    py_root, _, batches = tiny
    s = cifar10.splits(py_root)
    assert {k: len(v[1]) for k, v in s.items()} == {"train": 11, "val": 2, "test": 8}
    val, test = cifar10.val_test_split(10)
    x_test = torch.from_numpy(batches["test_batch"][0]).reshape(10, 3, 32, 32)
    assert torch.equal(s["val"][0], x_test[val]) and torch.equal(s["test"][0], x_test[test])
    small = cifar10.splits(py_root, train_size=4)["train"]
    assert len(small[1]) == 4
    keep4, keep6 = cifar10.train_subset(11, 4), cifar10.train_subset(11, 6)
    assert set(keep4.tolist()) <= set(keep6.tolist())  # nested: a larger subset adds images
    assert torch.equal(small[0], s["train"][0][keep4]) and torch.equal(small[1], s["train"][1][keep4])
    with pytest.raises(ValueError, match="train_size"):
        cifar10.train_subset(11, 12)


def test_load_normalises_every_split(tiny):
    _, bin_root, _ = tiny
    d = cifar10.load(bin_root, zero_channel=True)
    raw = cifar10.splits(bin_root)
    for k in ("train", "val", "test"):
        assert d[k][0].shape[1:] == (4, 32, 32)
        assert torch.equal(d[k][0], cifar10.normalize(raw[k][0], zero_channel=True))
        assert torch.equal(d[k][1], raw[k][1])


def test_cli_verifies_and_fetches_from_a_mirror(tiny, tmp_path, capsys):
    from noneuclid.data.__main__ import main

    _, bin_root, _ = tiny
    dest = tmp_path / "dest"
    assert main(["fetch", "cifar10", "--data-dir", str(dest), "--mirror", str(bin_root)]) == 0
    assert main(["verify", "cifar10", "--data-dir", str(dest)]) == 0
    assert capsys.readouterr().out.count("cifar10: ok") == 2
    assert main(["verify", "cifar10", "--data-dir", str(tmp_path / "none")]) == 1
    assert "missing CIFAR-10" in capsys.readouterr().err


@pytest.mark.shared_data("cifar10/materialize.py")
def test_real_data_from_the_shared_sprites(tmp_path, shared_data):
    pytest.importorskip("PIL")
    assert cifar10.fetch(tmp_path, mirror=shared_data).name == "cifar-10-batches-bin"  # md5 + sha256 checked
    s = cifar10.splits(tmp_path)
    assert {k: tuple(v[0].shape) for k, v in s.items()} == {
        "train": (50_000, 3, 32, 32),
        "val": (2000, 3, 32, 32),
        "test": (8000, 3, 32, 32),
    }
    assert torch.bincount(s["train"][1]).tolist() == [5000] * 10
    assert s["train"][1][:10].tolist() == [6, 9, 9, 4, 1, 1, 2, 7, 8, 3]
