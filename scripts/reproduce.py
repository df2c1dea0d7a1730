"""Thin entry point used by the Makefile: the same as `python -m noneuclid.reproduce` (run with --help)."""

import sys

from noneuclid.reproduce import main

if __name__ == "__main__":
    sys.exit(main())
