"""The benchmark runs and prints the keys the issue names (its timings are not asserted)."""

import json
import os
import subprocess
import sys

import pytest


def test_stiefel_benchmark_json_keys():
    pytest.importorskip("geoopt")
    out = subprocess.run([sys.executable, "-m", "noneuclid.bench", "stiefel", "--json", "--batch", "8",
                          "--repeats", "1"], check=True, capture_output=True, text=True, timeout=300,
                         env=dict(os.environ, OMP_NUM_THREADS="1"))
    result = json.loads(out.stdout)
    assert {"train_step_ratio", "optimizer_speedup_vs_geoopt"} <= set(result)
    assert result["train_step_ratio"] > 0 and result["optimizer_speedup_vs_geoopt"] > 0
