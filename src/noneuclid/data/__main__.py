"""python -m noneuclid.data fetch|verify NAME... --data-dir DIR [--mirror DIR]"""

import argparse
import sys

from noneuclid.data import cifar10, snli, wikitext2, wordnet
from noneuclid.data.files import DATASETS, DataError, fetch, require


def fetch_one(name: str, data_dir: str, mirror: str | None) -> None:
    if name == "snli":  # an archive with its own checksum, downloaded whole
        snli.fetch(data_dir)
    elif name == "cifar10":  # a mirror's batches or materialize.py, else the official tarball
        cifar10.fetch(data_dir, mirror)
    elif name == "wikitext2" and mirror is None:  # the official zip, unpacked to plain .txt
        wikitext2.fetch(data_dir)
    elif name == "wordnet":  # an NLTK data root made from a WordNet 3.0 dict folder (Debian's by default)
        wordnet.fetch(data_dir, mirror)
    else:
        fetch(name, data_dir, mirror)


def verify_one(name: str, data_dir: str) -> None:
    if name == "snli":  # dev and test are checked while read; train may be absent (it is here)
        for split in ("dev", "test"):
            snli.load(data_dir, split)
    elif name == "cifar10":  # python or binary batches, whichever is there
        cifar10.verify(data_dir)
    elif name == "wikitext2":  # plain or gzipped
        wikitext2.verify(data_dir)
    elif name == "wordnet":
        wordnet.require(data_dir)
    else:
        require(name, data_dir)


def main(argv=None) -> int:
    names = sorted(DATASETS) + ["snli"]
    parser = argparse.ArgumentParser(prog="python -m noneuclid.data", description=__doc__)
    parser.add_argument("action", choices=["fetch", "verify"])
    parser.add_argument("names", nargs="*", default=sorted(DATASETS), help=f"datasets among {names}")
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--mirror", default=None, help="a local folder with the same layout to copy from "
                        "(wordnet: any WordNet 3.0 dict folder; default /usr/share/wordnet)")
    args = parser.parse_args(argv)
    try:
        for name in args.names:
            if name not in names:
                raise DataError(f"unknown dataset {name!r}: choose from {names}")
            if args.action == "fetch":
                fetch_one(name, args.data_dir, args.mirror)
            else:
                verify_one(name, args.data_dir)
            print(f"{name}: ok")
    except DataError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
