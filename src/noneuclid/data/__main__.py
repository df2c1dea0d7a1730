"""python -m noneuclid.data fetch|verify NAME... --data-dir DIR [--mirror DIR]"""

import argparse
import sys

from noneuclid.data.files import DATASETS, DataError, fetch, require


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m noneuclid.data", description=__doc__)
    parser.add_argument("action", choices=["fetch", "verify"])
    parser.add_argument("names", nargs="*", default=sorted(DATASETS), help=f"datasets (default: all of {sorted(DATASETS)})")
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--mirror", default=None, help="a local folder with the same layout to copy from")
    args = parser.parse_args(argv)
    try:
        for name in args.names:
            folder = fetch(name, args.data_dir, args.mirror) if args.action == "fetch" else require(name, args.data_dir)
            print(f"{name}: ok ({folder})")
    except DataError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
