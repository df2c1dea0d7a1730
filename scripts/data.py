"""Thin entry point used by the Makefile: the same as `python -m noneuclid.data` (run with --help)."""

import sys

from noneuclid.data.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
