"""python -m noneuclid.evaluate authors-networks|drift|timing|table2-reference|table2-boundaries|engine-validation|
float32-atlas [options]: see noneuclid.evaluate."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from noneuclid.data.brantner_gml import reference_dir
from noneuclid.data.files import DataError
from noneuclid.evaluate import (
    authors_networks,
    drift,
    engine_validation,
    float32_atlas,
    table2_boundaries,
    table2_reference,
    timing,
)
from noneuclid.runs.cli import PROFILES, device, positive, seed_list

EVALUATIONS = (
    "authors-networks",
    "drift",
    "timing",
    "table2-reference",
    "table2-boundaries",
    "engine-validation",
    "float32-atlas",
)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m noneuclid.evaluate", description=__doc__)
    parser.add_argument("what", choices=EVALUATIONS)
    parser.add_argument(
        "--data",
        type=Path,
        default=Path(os.environ.get("NONEUCLID_DATA_DIR", "data")),
        help="authors-networks, drift: the data root with mnist/ and reference/brantner_gml/",
    )
    parser.add_argument("--runs", type=Path, default=Path(os.environ.get("NONEUCLID_RUNS_DIR", "runs")))
    parser.add_argument("--profile", choices=PROFILES, default="cpu")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="default: results/brantner/<profile> (authors-networks, drift, timing), "
        "results/hnn/<profile> (table2-reference, table2-boundaries), results/engine (engine-validation), "
        "results/geometry (float32-atlas)",
    )
    parser.add_argument(
        "--train-images",
        type=int,
        default=None,
        help="authors-networks: the training loss over the first N training images (default: all 60,000)",
    )
    parser.add_argument(
        "--steps",
        type=positive,
        default=None,
        help="drift: optimizer steps (default: the paper profile's epochs x batches per epoch); "
        "timing: training steps per timed block (default: one epoch)",
    )
    parser.add_argument(
        "--repeats", type=positive, default=5, help="timing: interleaved rounds (one block per arm each)"
    )
    parser.add_argument("--threads", type=positive, default=1, help="timing: torch threads")
    parser.add_argument(
        "--device",
        type=device,
        default="cpu",
        help="timing: where to time (cuda writes timing_gpu.csv)",
    )
    parser.add_argument(
        "--drift-seeds",
        nargs="+",
        type=retraction_seeds,
        default=None,
        metavar="RETRACTION=SEEDS",
        help="drift: seeds per retraction (default: "
        + " ".join(f"{r}={s[0]}" + (f"-{s[-1]}" if len(s) > 1 else "") for r, s in drift.SEEDS.items())
        + ")",
    )
    parser.add_argument(
        "overrides",
        nargs="*",
        help="drift: the optimizers' overrides (default: "
        "optim.section=householder); timing: the arms' training overrides",
    )
    return parser


def _evaluate(args: argparse.Namespace) -> list:
    """Runs the evaluation args.what; the files it wrote."""
    if args.what == "authors-networks":
        return authors_networks.make(
            reference_dir(args.data),
            args.data,
            args.out or Path("results") / "brantner" / args.profile,
            args.train_images,
        )
    if args.what == "drift":
        out = args.out or Path("results") / "brantner" / args.profile
        seeds = dict(args.drift_seeds or drift.SEEDS.items())
        return drift.make(
            reference_dir(args.data), args.data, out, args.steps, seeds=seeds, overrides=args.overrides or drift.SECTION
        )
    if args.what == "timing":
        return timing.make(
            args.profile,
            args.out or Path("results") / "brantner" / args.profile,
            args.repeats,
            args.steps,
            args.threads,
            args.overrides,
            args.device,
        )
    if args.what == "engine-validation":
        return engine_validation.make(args.out or engine_validation.OUT)
    if args.what == "float32-atlas":
        return float32_atlas.make(args.out or Path("results") / "geometry")
    hnn = args.out or Path("results") / "hnn" / args.profile
    if args.what == "table2-boundaries":
        return table2_boundaries.make(args.runs, args.profile, hnn)
    return [table2_reference.make(args.runs, args.profile, hnn)]


def main(argv=None) -> int:
    parser = _parser()
    args = parser.parse_intermixed_args(argv)
    try:
        written = _evaluate(args)
    except (FileNotFoundError, DataError) as e:  # what to train, evaluate or fetch first
        print(f"error: {e}", file=sys.stderr)
        return 1
    print("\n".join(map(str, written)))
    return 0


def retraction_seeds(text: str) -> tuple[str, list[int]]:
    """'geodesic=0-2' -> ("geodesic", [0, 1, 2])."""
    retraction, _, seeds = text.partition("=")
    if retraction not in ("geodesic", "cayley") or not seeds:
        raise argparse.ArgumentTypeError(f"expected geodesic=SEEDS or cayley=SEEDS, got {text!r}")
    return retraction, seed_list(seeds)


if __name__ == "__main__":
    sys.exit(main())
