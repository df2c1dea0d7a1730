"""Thin entry point used by the Makefile: the same as `python -m noneuclid.bench` (run with --help)."""

import sys

from noneuclid.bench.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
