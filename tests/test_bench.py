"""The benchmarks run and print the keys the issues name (their timings are not asserted)."""

import json
import os
import subprocess
import sys

import pytest


@pytest.mark.parametrize("name, args, keys", [
    ("stiefel", ["--batch", "8"], {"train_step_ratio", "optimizer_speedup_vs_geoopt", "geotorch_train_step_ratio",
                                   "optimizer_speedup_vs_geoopt_random", "optimizer_speedup_vs_geoopt_cayley"}),
    ("hyperbolic", ["--batch", "4"], {"train_step_ratio"}),
])
def test_benchmark_json_keys(name, args, keys):
    pytest.importorskip("geoopt")
    if name == "stiefel":
        pytest.importorskip("geotorch")
    out = subprocess.run([sys.executable, "-m", "noneuclid.bench", name, "--json", "--repeats", "1", *args],
                         check=True, capture_output=True, text=True, timeout=300,
                         env=dict(os.environ, OMP_NUM_THREADS="1"))
    result = json.loads(out.stdout)
    assert keys <= set(result) and all(result[k] > 0 for k in keys)


def test_hypercomplex_benchmark_smoke():
    """No geoopt needed; every ratio of the PH layers over the real ones is reported."""
    out = subprocess.run([sys.executable, "-m", "noneuclid.bench", "hypercomplex", "--json", "--repeats", "1",
                          "--batch", "1"], check=True, capture_output=True, text=True, timeout=300,
                         env=dict(os.environ, OMP_NUM_THREADS="1"))
    result = json.loads(out.stdout)
    assert result["worst_ratio"] == max(result["ratios"].values()) > 0
    assert len(result["ratios"]) == 2 * 4 + 4 + 2 * 4  # convs at n = 2, 4 and n = 3; linear maps at n = 2, 4
