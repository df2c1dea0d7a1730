"""The benchmarks run and print the keys the issues name (their timings are not asserted).

The CLI's main() is called in this process (the same code as `python -m noneuclid.bench`, without a
Python start and torch import per call). The hyperbolic one runs --quick, eager: its compiled graphs
cost about four minutes on an empty compile cache, and test_hyperbolic_layers tests compiled ==
eager."""

import json
import math

import pytest

from noneuclid.bench.__main__ import main


def _bench_json(capsys, *args: str) -> dict:
    main([*args, "--json", "--repeats", "1"])
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(
    "name, args, keys",
    [
        (
            "stiefel",
            ["--batch", "8"],
            {
                "train_step_ratio",
                "optimizer_speedup_vs_geoopt",
                "geotorch_train_step_ratio",
                "optimizer_speedup_vs_geoopt_random",
                "optimizer_speedup_vs_geoopt_cayley",
            },
        ),
        (
            "hyperbolic",
            ["--batch", "4", "--quick"],
            {"train_step_ratio", "stacked_runs_speedup", "project_results_cost"},
        ),
    ],
)
def test_benchmark_json_keys(name, args, keys, capsys):
    pytest.importorskip("geoopt")
    if name == "stiefel":
        pytest.importorskip("geotorch")
    result = _bench_json(capsys, name, *args)
    assert keys <= set(result) and all(result[k] > 0 for k in keys)


def test_hypercomplex_benchmark_smoke(capsys):
    """No geoopt needed; every ratio of the PH layers over the real ones is reported."""
    result = _bench_json(capsys, "hypercomplex", "--batch", "1", "--quick")
    assert result["worst_ratio"] == max(result["ratios"].values()) > 0
    assert len(result["ratios"]) == 2 * 4 + 4 + 2 * 4  # convs at n = 2, 4 and n = 3; linear maps at n = 2, 4
    training = result["training"]  # PHResNet18 training steps, the ways of running them (compile only without --quick)
    ips, best = training["images_per_s"]["R18"], training["best"]["R18"]
    assert set(ips) == {"baseline", "uint8", "channels_last"} and all(0 < v < math.inf for v in ips.values())
    assert ips[best] == max(ips.values())  # the fastest way, and the speed-up is its ratio to the baseline
    assert training["speedup"]["R18"] == pytest.approx(ips[best] / ips["baseline"], rel=1e-12)


def test_mlr_benchmark_smoke(capsys):
    """Table 2's classifiers, 2 runs on 4,096 points: a speedup per geometry."""
    result = _bench_json(capsys, "mlr", "--quick")
    assert set(result["stacked_runs_speedup"]) == {"hyperbolic", "euclidean", "euclidean_log0"}
    assert result["stacked_runs"] == 2 and all(v > 0 for v in result["stacked_runs_speedup"].values())


def test_charts_benchmark_smoke(capsys):
    """The Lorentz / Poincare ratios of the GRU's train step (alone and stacked as its chart runs train), the
    MLR's epoch and the train step of Table 1's chart runs in both precisions, measured in one run."""
    result = _bench_json(capsys, "charts", "--batch", "4", "--quick")
    assert result["gru_ratio"] > 0 and result["mlr_ratio"] > 0 and result["gru_stack_ratio"] > 0
    assert result["gru_stack"] == 9  # experiment=hnn/charts: PREFIX-10/30/50 x seeds 0-2
    assert set(result["gru_step_seconds"]) == set(result["mlr_epoch_seconds"]) == {"poincare", "lorentz"}
    assert set(result["table1_ratio"]) == set(result["table1_step_seconds"]) == {"float64", "float32"}
    assert all(set(t) == {"poincare", "lorentz"} for t in result["table1_step_seconds"].values())
    assert all(r > 0 for r in result["table1_ratio"].values())
