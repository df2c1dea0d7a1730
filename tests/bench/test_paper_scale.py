"""The paper-scale benchmark's machinery on smoke-sized settings (its numbers are not asserted): rows
composed from an experiment's sweep, the trainer's step and the plain-PyTorch baseline timed, every
column filled; the synthetic stand-in where the data is missing; the CSV and the docs block."""

import math

import pandas as pd
import pytest

from noneuclid.bench import paper_scale, paper_scale_docs, standins

NUMBERS = ["samples_per_s", "baseline_samples_per_s", "ratio", "peak_mem_gib", "sweep_hours", "steps_per_s"]


def _smoke_table(data_dir, runs_dir) -> pd.DataFrame:
    """Brantner's Fig. 3a (tiny MNIST, 2 blocks) and Ganea et al.'s Table 2 (no embedding run: the stand-in)."""

    def run(experiment, *overrides):
        return paper_scale.table(
            [experiment],
            "cpu",
            0.01,
            "smoke",
            [f"paths.data_dir={data_dir}", "trainer.threads=1", *overrides],
            log=print,
        )

    return pd.concat([run("brantner/fig3a", "model.depth=2"), run("hnn/table2", f"paths.runs_dir={runs_dir}")])


def test_rows_have_every_column_finite_and_positive_and_reach_the_docs(tiny_mnist, tmp_path):
    t = _smoke_table(tiny_mnist, tmp_path / "runs")
    assert list(t.columns) == paper_scale.COLUMNS
    assert list(t.model) == [
        "adam-euclidean",
        "adam-stiefel",
        "mlr-hyperbolic-animal.n.01-d2",
        "mlr-euclidean-animal.n.01-d2",
        "mlr-euclidean_log0-animal.n.01-d2",
    ]
    assert all(math.isfinite(v) and v > 0 for c in NUMBERS for v in t[c])
    assert all(0 <= v < 1 for v in t.data_wait_share)
    assert list(t.data) == ["real"] * 2 + ["synthetic"] * 3 and set(t.device) == {"cpu"}
    fig3a = t.iloc[0]  # 3 seeds, one job each; Table 2: 16 (dim, subtree) jobs per geometry
    assert (fig3a.runs, fig3a.jobs, fig3a.stacked) == (3, 3, 1) and list(t.jobs[2:]) == [16] * 3
    assert fig3a.sweep_hours == pytest.approx(
        fig3a.jobs * fig3a.epochs * fig3a.steps_per_epoch / fig3a.steps_per_s / 3600
    )
    csv, docs = tmp_path / "paper_scale_cpu.csv", tmp_path / "benchmarks.md"
    t.to_csv(csv, index=False)
    block = paper_scale_docs.BLOCK
    docs.write_text(f"before\n<!-- {block}:start -->\nold\n<!-- {block}:end -->\nafter\n")
    paper_scale_docs.update(docs, [csv])
    text = docs.read_text()
    assert "old" not in text and "adam-stiefel" in text and text.startswith("before") and text.endswith("after\n")
    assert "Per paper" in text and "| brantner " in text


def test_table2_reuses_the_runs_of_fig3(monkeypatch):
    """Rows of equal composed settings are timed once; the paper's total counts their runs once."""
    monkeypatch.setattr(
        paper_scale,
        "row",
        lambda e, k, v, *a: {
            "paper": "brantner",
            "experiment": e,
            "model": v,
            "sweep_hours": 1.0,
            "runs": 3,
            "same_runs_as": "",
        },
    )
    t = paper_scale.table(["brantner/fig3a", "brantner/table2"], "cpu", 0.0, log=lambda _: None)
    assert list(t.same_runs_as) == ["", "", "brantner/fig3a", "brantner/fig3a", "", ""]
    assert paper_scale_docs.totals(t.assign(device="cpu")).sweep_hours.tolist() == [4.0]


def test_random_closure_is_a_closure_of_the_size_asked():
    """(node, ancestor) pairs of the closure of a random tree rooted at node 0, cut to `edges` pairs where
    it has more: the cut is a subset of the same tree's whole closure."""
    edges, whole = (standins.random_closure(nodes=2000, edges=k) for k in (6000, 10**9))
    assert len(whole) > 6000 and len(edges) == 6000  # cut to the size asked
    assert bool((edges[:, 1] < edges[:, 0]).all())  # ancestors come first
    assert len(set(map(tuple, edges.tolist()))) == len(edges)
    assert set(map(tuple, edges.tolist())) <= set(map(tuple, whole.tolist()))
    small = standins.random_closure(nodes=40, edges=10**9)  # not cut: the whole closure of a 40-node tree
    ancestors = {v: set() for v in range(40)}
    for v, a in small.tolist():
        ancestors[v].add(a)
    assert sum(map(len, ancestors.values())) == len(small) and ancestors[0] == set()
    assert all(ancestors[a] <= ancestors[v] for v in ancestors for a in ancestors[v])  # transitive
    for v in range(1, 40):  # a tree: v's ancestors are its parent (the nearest, the largest) and the parent's
        parent = max(ancestors[v])
        assert ancestors[v] == {parent} | ancestors[parent] and 0 in ancestors[v]
