"""python -m noneuclid.data fetch|verify [NAME...] --data-dir DIR [--generated-dir DIR] [--mirror DIR]
[--wordnet-dict DIR]

Without names: the datasets `make data` fetches (data/registry.py, make_data). With --generated-dir, each
dataset goes into its own root (registry: root); without it, every one into --data-dir."""

import argparse
import sys
from pathlib import Path

from noneuclid.data.files import DataError
from noneuclid.data.registry import source, sources


def fetch_one(name: str, args: argparse.Namespace) -> None:
    """Fetch `name` into its root, from its mirror where one is given."""
    dataset = source(name)
    mirror = getattr(args, dataset.mirror)
    dataset.fetch(_root(args, dataset.root_of(mirror)), mirror)


def verify_one(name: str, args: argparse.Namespace) -> None:
    """Check `name` in its root (DataError where it is not there or not whole)."""
    source(name).verify(args.data_dir, _root(args, "generated"))


def _root(args: argparse.Namespace, root: str) -> Path:
    """The folder of `root` ("data" or "generated"): --generated-dir where given for the generated root."""
    return args.generated_dir if root == "generated" and args.generated_dir else args.data_dir


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m noneuclid.data", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("action", choices=["fetch", "verify"])
    parser.add_argument(
        "names",
        nargs="*",
        default=[n for n, s in sources().items() if s.make_data],
        help=f"datasets among {sorted(sources())}",
    )
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument(
        "--generated-dir",
        type=Path,
        default=None,
        help="the generated-data root (wordnet; cifar10 written from a mirror); default: --data-dir",
    )
    parser.add_argument(
        "--mirror", type=Path, default=None, help="a local folder with the data root's layout to copy from"
    )
    parser.add_argument(
        "--wordnet-dict", type=Path, default=None, help="a WordNet 3.0 dict folder to copy (default /usr/share/wordnet)"
    )
    args = parser.parse_args(argv)
    try:
        for name in args.names:
            (fetch_one if args.action == "fetch" else verify_one)(name, args)
            print(f"{name}: ok")
    except DataError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
