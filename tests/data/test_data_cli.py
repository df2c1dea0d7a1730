"""`make data` is `python -m noneuclid.data fetch ...`: copies from a mirror, verifies, says what is wrong."""

from noneuclid.data.__main__ import main


def test_fetch_from_mirror_then_verify(tiny_mnist, tmp_path, capsys):
    dest = tmp_path / "root"
    assert main(["fetch", "mnist", "--data-dir", str(dest), "--mirror", str(tiny_mnist)]) == 0
    assert main(["verify", "mnist", "--data-dir", str(dest)]) == 0
    assert "mnist: ok" in capsys.readouterr().out


def test_errors_are_reported_with_exit_code_1(tmp_path, capsys):
    assert main(["verify", "mnist", "--data-dir", str(tmp_path)]) == 1
    assert "missing data file" in capsys.readouterr().err
    assert main(["verify", "cifar100", "--data-dir", str(tmp_path)]) == 1
    assert "unknown dataset" in capsys.readouterr().err
