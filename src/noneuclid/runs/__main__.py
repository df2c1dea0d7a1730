"""python -m noneuclid.runs migrate [--runs runs] [--results results] [--dry-run]

Brings the run folders under --runs and the per-run data under --results (runs.csv, curves.csv.gz) of
earlier settings versions up to the current one (see runs/migrate.py): rewrites each earlier run's
config.yaml as today's configs compose it and renames its folder to its new hash. Exits with 1 when
it left something as it was (each is named, with why).
"""

import argparse
import os
import sys
from pathlib import Path

from noneuclid.runs.migrate import migrate
from noneuclid.runs.settings import SETTINGS_VERSION


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m noneuclid.runs", description=__doc__.split("\n\n")[1])
    parser.add_argument("command", choices=["migrate"])
    parser.add_argument("--runs", type=Path, default=Path(os.environ.get("NONEUCLID_RUNS_DIR", "runs")),
                        help="the run folders (default: $NONEUCLID_RUNS_DIR, else runs)")
    parser.add_argument("--results", type=Path, default=Path("results"), help="the committed results")
    parser.add_argument("--dry-run", action="store_true", help="say what would change; change nothing")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    left = []

    def say(message: str) -> None:
        print(message)
        left.append(message)

    renamed, names = migrate(args.runs, args.results, args.dry_run, say)
    verb = "would rename" if args.dry_run else "renamed"
    for old, new in renamed.items():
        print(f"{verb} {old} -> {new}")
    print(f"settings version {SETTINGS_VERSION}: {verb} {len(renamed)} run folders under {args.runs} and "
          f"{len(names)} runs in the tables under {args.results}")
    if left:
        print(f"{len(left)} left as they were (above): migrate them, or remove them, and run this again")
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main())
