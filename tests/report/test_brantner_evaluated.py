"""Brantner's drift and CPU timing, redrawn and judged from their CSVs alone (report.brantner_evaluated):
hand-made drift.csv, drift_authors.csv and timing.csv."""

from __future__ import annotations

import pandas as pd
import pytest

from noneuclid.claims import engine
from noneuclid.report import brantner_claims as claims, brantner_evaluated as evaluated

PAPER_STEPS = 15_000


def _drift_csvs(out, last_step=PAPER_STEPS, ours=2e-6, theirs=(6e-3, 4e-4, 2e-4)):
    rows = [
        {
            "optimizer": o,
            "retraction": r,
            "section": "householder",
            "seed": s,
            "step": t,
            "max_dev": ours * (1 + s / 10) * t / last_step + 4e-8,
            "median_dev": 2e-8,
        }
        for o in ("adam", "momentum", "gd")
        for r, seeds in (("geodesic", (0, 1, 2)), ("cayley", (0,)))
        for s in seeds
        for t in (0, last_step // 2, last_step)
    ]
    pd.DataFrame(rows).to_csv(out / "drift.csv", index=False)
    pd.DataFrame(
        [
            {
                "optimizer": o,
                "file": f"mnist_nn{k}.h5",
                "projections": 336,
                "step": PAPER_STEPS,
                "max_dev": v,
                "median_dev": 1e-6,
            }
            for (o, k), v in zip((("adam", 2), ("momentum", 4), ("gd", 3)), theirs)
        ]
    ).to_csv(out / "drift_authors.csv", index=False)


def _rows(out) -> dict:
    return {(v.claim, v.cell): v for v in claims.verdicts(pd.DataFrame(), out)}


def test_drift_cells_judge_our_seeds_and_the_authors_networks_exactly(tmp_path):
    _drift_csvs(tmp_path)
    rows = _rows(tmp_path)
    ours = rows[("orthonormality_to_machine_precision", "Adam + Stiefel, our optimizer for 500 epochs' steps")]
    assert ours.verdict == engine.REPRODUCES and ours.n_a == 3  # geodesic, the paper's retraction: 3 seeds
    assert ours.mean_a == pytest.approx(2e-6 * 1.1 + 4e-8)
    theirs = rows[("orthonormality_to_machine_precision", "Adam + Stiefel, the authors' network (500 epochs)")]
    assert theirs.verdict == engine.CONTRADICTS and theirs.n_a == 1 and theirs.mean_a == 6e-3
    assert theirs.ci_high - theirs.difference == pytest.approx(claims.float32_rounding(49))
    assert claims.float32_rounding(49) == pytest.approx(49 * 2.0**-24, rel=1e-5)


def test_drift_cells_need_the_papers_number_of_steps_and_the_csvs(tmp_path):
    rows = _rows(tmp_path)
    cell = ("orthonormality_to_machine_precision", "Gradient + Stiefel, our optimizer for 500 epochs' steps")
    assert rows[cell].verdict == engine.NOT_TESTABLE and "noneuclid.evaluate drift" in rows[cell].reason
    _drift_csvs(tmp_path, last_step=300)
    assert "ends at step 300" in _rows(tmp_path)[cell].reason


def test_drift_figure_and_table_are_drawn_from_the_csvs(tmp_path):
    _drift_csvs(tmp_path)
    section = evaluated.drift_section(tmp_path)
    assert {p.name for p in tmp_path.iterdir()} >= {"drift.png", "drift.pdf", "drift_summary.csv", "drift_summary.md"}
    table = pd.read_csv(tmp_path / "drift_summary.csv")
    assert len(table) == 6 and set(table.seeds) == {1, 3}
    adam = table[(table.optimizer == "adam") & (table.retraction == "geodesic")].iloc[0]
    assert adam.authors_max_dev == 6e-3 and adam.max_dev_max == pytest.approx(2e-6 * 1.2 + 4e-8)
    assert "![drift](drift.png)" in section
    assert evaluated.drift_section(tmp_path / "empty") == ""


def _timing_csv(out, slower=1.02, rounds=4, device="cpu", name="timing.csv"):
    rows = [
        {
            "arm": arm,
            "repeat": r,
            "steps": 30,
            "steps_per_epoch": 30,
            "seconds": 30 * t,
            "seconds_per_step": t,
            "threads": 1,
            "device": device,
            "processor": "x86_64" if device == "cpu" else "H200",
        }
        for r in range(rounds)
        for arm, base in (
            ("adam_euclidean", 2.0),
            ("adam_stiefel", 2.0 * slower),
            ("momentum_stiefel", 1.9),
            ("gd_stiefel", 2.5),
        )
        for t in [base * (1 + 0.05 * (-1) ** r)]
    ]  # the load of a round slows every arm alike
    pd.DataFrame(rows).to_csv(out / name, index=False)


def test_cpu_timing_cells_pair_the_arms_by_round(tmp_path):
    _timing_csv(tmp_path)
    rows = _rows(tmp_path)
    adam = rows[("stiefel_epoch_time_on_par_cpu", "CPU, Adam + Stiefel vs Adam")]
    assert adam.paired and adam.n_a == 4 and adam.verdict == engine.REPRODUCES  # 2 % slower: on par within 10 %
    assert adam.mean_a == pytest.approx(1.02) and adam.mean_b == pytest.approx(1.0)
    assert rows[("stiefel_epoch_time_on_par_cpu", "CPU, Gradient + Stiefel vs Adam")].verdict == engine.CONTRADICTS
    assert "interleaved rounds" in evaluated.timing_section(tmp_path)
    data = pd.read_csv(tmp_path / "timing_summary.csv")
    assert data.set_index("arm").ratio_to_base["gd_stiefel"] == pytest.approx(1.25)
    assert data.set_index("arm").seconds_per_epoch["adam_euclidean"] == pytest.approx(60.0)


def test_cpu_timing_cells_need_one_device_and_thread_count(tmp_path):
    _timing_csv(tmp_path)
    timing = pd.read_csv(tmp_path / "timing.csv")
    timing.loc[0, "threads"] = 2
    timing.to_csv(tmp_path / "timing.csv", index=False)
    cell = _rows(tmp_path)[("stiefel_epoch_time_on_par_cpu", "CPU, Momentum + Stiefel vs Adam")]
    assert cell.verdict == engine.NOT_TESTABLE and "threads [1, 2]" in cell.reason


def test_the_gpu_timing_cell_reads_timing_gpu_csv_alone(tmp_path):
    """The GPU cell: the same rule on timing_gpu.csv (Adam + Stiefel 3.5 times Adam's time: the paper's
    gap, reproduced); a CPU timing never decides it, nor a GPU timing the CPU cells."""
    gpu = ("stiefel_epoch_time_gap_gpu", "GPU, Adam vs Adam + Stiefel")
    _timing_csv(tmp_path, slower=1.02)
    assert _rows(tmp_path)[gpu].verdict == engine.NOT_TESTABLE
    (tmp_path / "timing.csv").unlink()
    _timing_csv(tmp_path, slower=3.5, device="cuda", name="timing_gpu.csv")
    rows = _rows(tmp_path)
    assert rows[gpu].verdict == engine.REPRODUCES and rows[gpu].paired and rows[gpu].mean_b == pytest.approx(3.5)
    assert rows[("stiefel_epoch_time_on_par_cpu", "CPU, Adam + Stiefel vs Adam")].verdict == engine.NOT_TESTABLE
    assert "(GPU)" in evaluated.timing_section(tmp_path) and (tmp_path / "timing_gpu_summary.csv").is_file()
    _timing_csv(tmp_path, slower=3.5, device="cpu", name="timing_gpu.csv")
    assert _rows(tmp_path)[gpu].verdict == engine.NOT_TESTABLE
