"""python -m noneuclid.data fetch|verify NAME... --data-dir DIR [--mirror DIR]"""

import argparse
import sys

from noneuclid.data import snli
from noneuclid.data.files import DATASETS, DataError, fetch, require

# Datasets with their own download (an archive with its own checksum) beside the sha256 registry.
OTHER = {"snli": (lambda root, mirror: snli.fetch(root), lambda root: [snli.load(root, s) for s in ("dev", "test")])}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m noneuclid.data", description=__doc__)
    parser.add_argument("action", choices=["fetch", "verify"])
    parser.add_argument("names", nargs="*", default=sorted(DATASETS),
                        help=f"datasets (default: {sorted(DATASETS)}; also {sorted(OTHER)})")
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--mirror", default=None, help="a local folder with the same layout to copy from")
    args = parser.parse_args(argv)
    try:
        for name in args.names:
            if name in OTHER:
                fetch_other, verify_other = OTHER[name]
                fetch_other(args.data_dir, args.mirror) if args.action == "fetch" else verify_other(args.data_dir)
                print(f"{name}: ok")
                continue
            if name not in DATASETS:
                raise DataError(f"unknown dataset {name!r}: choose from {sorted(DATASETS) + sorted(OTHER)}")
            folder = fetch(name, args.data_dir, args.mirror) if args.action == "fetch" else require(name, args.data_dir)
            print(f"{name}: ok ({folder})")
    except DataError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
