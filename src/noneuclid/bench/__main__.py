"""python -m noneuclid.bench stiefel|hyperbolic|hypercomplex|poincare|mlr|charts [--device cpu|cuda] [--batch N]
    [--repeats 10] [--json] [--quick]
python -m noneuclid.bench paper-scale [--device cpu|cuda] [--seconds S] [--only <paper>/<experiment>]
    (bench/paper_scale.py)

Benchmarks print ratios against a baseline measured in the same run (never timed tests).
"""

import argparse
import inspect
import json
import sys

import torch

from noneuclid.bench import charts, hyperbolic, hypercomplex, mlr, paper_scale, poincare, stiefel
from noneuclid.runs.cli import device, positive

BENCHMARKS = {
    "stiefel": stiefel,
    "hyperbolic": hyperbolic,
    "hypercomplex": hypercomplex,
    "poincare": poincare,
    "mlr": mlr,
    "charts": charts,
}


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["paper-scale"]:  # its own options: every paper experiment, not one benchmark
        return paper_scale.main(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m noneuclid.bench")
    parser.add_argument("name", choices=sorted(BENCHMARKS), help="or paper-scale (see its --help)")
    parser.add_argument("--device", type=device, default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument(
        "--batch", type=positive, default=None, help="default: the paper's (2048 ViT, 64 HNN, 64 PHYDI)"
    )
    parser.add_argument("--repeats", type=positive, default=10)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="the smallest case, without torch.compile (a smoke run; the benchmarks whose run() takes quick)",
    )
    args = parser.parse_args(argv)
    bench = BENCHMARKS[args.name]
    kwargs = {"batch": args.batch} if args.batch else {}
    if args.quick:
        takes_quick = [n for n, b in sorted(BENCHMARKS.items()) if "quick" in inspect.signature(b.run).parameters]
        if args.name not in takes_quick:
            parser.error(f"--quick is only for {', '.join(takes_quick)}")
        kwargs["quick"] = True
    result = bench.run(torch.device(args.device), repeats=args.repeats, **kwargs)
    print(json.dumps(result) if args.json else bench.describe(result))


if __name__ == "__main__":
    main()
