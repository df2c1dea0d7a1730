"""python -m noneuclid.claims register [paper ...]: register the current rules of the papers' claims (every
paper's by default) in claims/registered.csv, with HEAD and today's date, before their runs are trained;
commit the claims files first, and the register after."""

import argparse
import sys

from noneuclid.claims import data, ledger


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m noneuclid.claims", description=__doc__)
    parser.add_argument("command", choices=["register"])
    parser.add_argument("papers", nargs="*", help=f"default: every paper ({', '.join(data.papers())})")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    unknown = sorted(set(args.papers) - set(data.papers()))
    if unknown:
        parser.error(f"no claims file for {unknown}; the papers: {data.papers()}")
    try:
        new = ledger.register(args.papers or data.papers())
    except RuntimeError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    for row in new:
        print(f"registered {row['paper']} {row['claim']} {row['rule_hash']} at {row['commit']}")
    print(f"{len(new)} rules registered in {ledger.LEDGER}" if new else "every rule is registered already")
    return 0


if __name__ == "__main__":
    sys.exit(main())
