"""python -m noneuclid.claims register [paper ...]: register the current rules of the papers' claims (every
paper's by default) in claims/registered.csv, with HEAD and today's date, before their runs are trained;
commit the claims files first, and the register after.

python -m noneuclid.claims next [paper ...] [--results results] [--kind paper|ours] [--up-to N]: the undecided cells
that at most N seeds per arm in all would decide and that another look keeps within the validated number of
looks, cheapest first (claims/plan.py); of the papers named, else of every paper."""

import argparse
import sys
from pathlib import Path

import pandas as pd

from noneuclid.claims import data, ledger, levels, plan


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m noneuclid.claims", description=__doc__)
    parser.add_argument("command", choices=["register", "next"])
    parser.add_argument("papers", nargs="*", help=f"default every paper ({', '.join(data.papers())})")
    parser.add_argument("--results", type=Path, default=Path("results"), help="next: the results folder")
    parser.add_argument("--kind", choices=data.KINDS, default="paper", help="next: the paper's claims or ours")
    parser.add_argument("--up-to", type=int, default=plan.LOOK_UP_TO, help="next: seeds per arm at most")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    unknown = sorted(set(args.papers) - set(data.papers()))
    if unknown:
        parser.error(f"no claims file for {unknown}; the papers: {data.papers()}")
    if args.command == "next":
        return next_seeds(args.results, args.kind, args.up_to, args.papers)
    try:
        new = ledger.register(args.papers or data.papers())
    except RuntimeError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    for row in new:
        print(f"registered {row['paper']} {row['claim']} {row['rule_hash']} at {row['commit']}")
    print(f"{len(new)} rules registered in {ledger.LEDGER}" if new else "every rule is registered already")
    return 0


def next_seeds(results: Path, kind: str, up_to: int, papers: list[str]) -> int:
    """Print plan.next_seeds of the kind's cells under results (of `papers`; none: all) as Markdown, after the
    share decided."""
    cells = plan.read(results)
    cells = cells[(cells.kind == kind) & (cells.file.str.split("/").str[0].isin(papers) if papers else True)]
    if cells.empty:
        where = f"{results}/<{'|'.join(papers) or 'paper'}>/<profile>/"
        print(f"error: no claims tables with {kind} cells under {where}", file=sys.stderr)
        return 2
    decided, total = plan.decided_share(cells)
    table = results / plan.LEVELS
    if not table.is_file():
        print(f"error: no {table}: `python -m noneuclid.evaluate engine-validation` writes it", file=sys.stderr)
        return 2
    if "looks" not in cells or cells.looks.isna().any():  # the reports count them (plan.looked)
        print(f"error: claims tables under {results} without looks: redraw them in a git clone", file=sys.stderr)
        return 2
    validated = levels.validated(pd.read_csv(table))
    cells = cells.assign(max_looks=plan.max_looks(cells, validated))
    todo = plan.shared(plan.next_seeds(cells, up_to), cells)
    print(f"{kind} cells decided: {decided} of {total} ({decided / total:.1%}); at most {up_to} seeds per arm would")
    print(f"decide {len(todo)} more (hours_to_add: runs_to_add times the mean train time of the runs the cell reads")
    print("now; other_cells: the other cells the added runs enter, a look for each, other_decided of them decided,")
    print("other_at_risk of those whose adjusted p is above the next look's level: the same p would undecide them):\n")
    print(todo.to_markdown(index=False) if len(todo) else "(none)")
    kinds = ", ".join(f"{interval} {n}" for interval, n in sorted(validated.items()))
    print(f"\nlooks validated per kind of interval (results/{plan.LEVELS}): {kinds}; others 1")
    if len(spent := plan.left_out(cells, up_to)):
        print("\nleft out, at their last validated look: " + "; ".join(_named(spent)))
    if len(beyond := plan.beyond_validation(cells)):
        print("\ndecided after more looks than validated: " + "; ".join(_named(beyond)))
    return 0


def _named(cells) -> list[str]:
    """'claim: cell (interval, looks)' of each row."""
    return [f"{c.claim}: {c.cell} ({c.interval}, {c.looks} looks)" for c in cells.itertuples()]


if __name__ == "__main__":
    sys.exit(main())
