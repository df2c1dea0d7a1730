"""Thin entry point used by the Makefile: the same as `python -m noneuclid.report` (run with --help)."""

import sys

from noneuclid.report.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
