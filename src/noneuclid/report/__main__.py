"""python -m noneuclid.report brantner [--runs runs] [--profile cpu] [--out results/brantner/cpu]

Redraws results/<paper>/<profile>/ from run folders. For the cpu and paper profiles it also
refreshes that paper's results block in README.md (smoke results never replace it).
"""

import argparse
import sys
from pathlib import Path

from noneuclid.report import brantner, hnn, phydi, readme

PAPERS = {"brantner": brantner, "hnn": hnn, "phydi": phydi}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m noneuclid.report")
    parser.add_argument("paper", choices=sorted(PAPERS))
    parser.add_argument("--runs", type=Path, default=Path("runs"))
    parser.add_argument("--profile", default="cpu")
    parser.add_argument("--out", type=Path, default=None, help="default: results/<paper>/<profile>")
    parser.add_argument("--seeds", default=None, help="comma-separated seeds (default: brantner 0, hnn the seeds found)")
    parser.add_argument("overrides", nargs="*", help="the training overrides of the runs, e.g. optim.lr=3e-3")
    parser.add_argument("--readme", type=Path, default=Path("README.md"),
                        help="README whose results block is refreshed (default --out, not smoke)")
    args = parser.parse_args(argv)
    try:
        out = args.out or Path("results") / args.paper / args.profile
        seeds = {"seeds": [int(x) for x in args.seeds.split(",")]} if args.seeds else {}
        written = PAPERS[args.paper].make(args.runs, args.profile, out, overrides=args.overrides, **seeds)
    except (FileNotFoundError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    for path in written:
        print(path)
    if args.out is None and args.profile != "smoke" and readme.update(args.readme, out, args.paper):
        print(f"{args.readme}: results of {args.paper} ({args.profile} profile) updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
