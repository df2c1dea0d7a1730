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
    assert main(["fetch", "mnist", "--data-dir", str(tmp_path), "--mirror", str(tmp_path / "typo")]) == 1
    assert f"no mirror folder {tmp_path / 'typo'}" in capsys.readouterr().err  # not a download instead


def test_reproduce_names_the_fix_for_an_unknown_dataset(tmp_path):
    from noneuclid.data.registry import missing

    assert "add its row to noneuclid/data/registry.py" in missing("cifar100", tmp_path, tmp_path)
    assert "missing data file" in missing("mnist", tmp_path, tmp_path)


def test_without_names_fetch_takes_every_dataset_of_make_data_each_into_its_root(tmp_path, monkeypatch, capsys):
    from noneuclid.data import registry

    fetched = []
    for name, row in registry.SOURCES.items():
        monkeypatch.setitem(
            registry.SOURCES,
            name,
            registry.Source(
                lambda root, mirror, name=name: fetched.append((name, root.name, mirror and mirror.name)),
                row.verify,
                row.root,
                row.mirrored_root,
                row.mirror,
                row.make_data,
            ),
        )
    assert (
        main(
            [
                "fetch",
                "--data-dir",
                str(tmp_path / "data"),
                "--generated-dir",
                str(tmp_path / "generated"),
                "--mirror",
                str(tmp_path / "mirror"),
            ]
        )
        == 0
    )
    assert fetched == [
        ("mnist", "data", "mirror"),
        ("cifar10", "generated", "mirror"),
        ("wikitext2", "data", "mirror"),
        ("wordnet", "generated", None),
    ]
