"""python -m noneuclid.report brantner|hnn|phydi|html|all [--runs runs] [--profile cpu]

A paper: redraws results/<paper>/<profile>/ from run folders; for the cpu and paper profiles it also
refreshes the results block of that paper's report, docs/<paper>.md (smoke results never replace it).
html: writes results/index.html from those folders. all: every paper that has runs (the others are
named and left as they are), then html.

    python -m noneuclid.report export PAPER [--runs runs] [--profile cpu] [--results results]

writes (merges into) results/<paper>/<profile>/runs.csv and curves.csv, the per-run data of the ended
runs (see report/run_table.py); every paper report writes them too.

    python -m noneuclid.report runs ROOT [ROOT ...] [--csv FILE]

prints every run folder under the roots (any sweeps, any papers) as one tidy table, runs of the same
settings with different seeds grouped (mean and s.d. of the final metrics, failed runs marked).
"""

import argparse
import importlib
import os
import sys
from pathlib import Path

from noneuclid import papers
from noneuclid.report import aggregate, docs, html, run_table
from noneuclid.runs.lookup import seed_list

PAPERS = {key: importlib.import_module(paper.reports[0]) for key, paper in papers.PAPERS.items()}


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["runs"]:
        return tidy_table(argv[1:])
    if argv[:1] == ["export"]:
        return export(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m noneuclid.report", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paper", choices=[*sorted(PAPERS), "html", "all"])
    parser.add_argument("--runs", type=Path, default=Path(os.environ.get("NONEUCLID_RUNS_DIR", "runs")),
                        help="the run folders (default: $NONEUCLID_RUNS_DIR, else runs)")
    parser.add_argument("--profile", default="cpu")
    parser.add_argument("--results", type=Path, default=Path("results"))
    parser.add_argument("--out", type=Path, default=None, help="default: <results>/<paper>/<profile>")
    parser.add_argument("--seeds", type=seed_list, default=None,
                        help="seeds and ranges, e.g. 0,1,2 or 0-17 (default: brantner 0, hnn the seeds found)")
    parser.add_argument("overrides", nargs="*", help="the training overrides of the runs, e.g. optim.lr=3e-3")
    parser.add_argument("--docs", type=Path, default=Path("docs"),
                        help="folder of the reports <paper>.md whose results block is refreshed "
                             "(only without --out, and never for smoke)")
    args = parser.parse_intermixed_args(argv)  # options may come after the overrides
    if args.paper == "html":
        print(html.make(args.profile, args.results))
        return 0
    if args.paper == "all":
        if args.out or args.seeds or args.overrides:
            parser.error("`all` redraws every paper with its defaults: --out, --seeds and overrides need one paper")
        codes = [0]
        for paper in sorted(PAPERS):
            if (args.runs / paper / args.profile).is_dir():
                codes.append(report_paper(paper, args))
            else:
                print(f"{paper}: no runs under {args.runs / paper / args.profile}, its results are left as they are")
        print(html.make(args.profile, args.results))
        return max(codes)
    return report_paper(args.paper, args)


def tidy_table(argv) -> int:
    parser = argparse.ArgumentParser(prog="python -m noneuclid.report runs")
    parser.add_argument("roots", nargs="+", type=Path, help="folders holding run folders (searched recursively)")
    parser.add_argument("--csv", type=Path, default=None, help="also write the table here")
    args = parser.parse_args(argv)
    table = aggregate.grouped(aggregate.runs(args.roots))
    if table.empty:
        print(f"error: no run folders under {', '.join(map(str, args.roots))}", file=sys.stderr)
        return 1
    print(table.to_markdown(index=False, floatfmt=".4g"))
    if args.csv:
        table.to_csv(args.csv, index=False)
    return 0


def export(argv) -> int:
    parser = argparse.ArgumentParser(prog="python -m noneuclid.report export")
    parser.add_argument("paper", choices=sorted(PAPERS))
    parser.add_argument("--runs", type=Path, default=Path(os.environ.get("NONEUCLID_RUNS_DIR", "runs")))
    parser.add_argument("--profile", default="cpu")
    parser.add_argument("--results", type=Path, default=Path("results"))
    args = parser.parse_args(argv)
    for path in run_table.export(args.runs, args.paper, args.profile, args.results / args.paper / args.profile):
        print(path)
    return 0


def report_paper(paper: str, args) -> int:
    for path in run_table.export(args.runs, paper, args.profile, args.results / paper / args.profile):
        print(path)
    try:
        out = args.out or args.results / paper / args.profile
        seeds = {"seeds": args.seeds} if args.seeds else {}
        written = PAPERS[paper].make(args.runs, args.profile, out, overrides=args.overrides, **seeds)
    except (FileNotFoundError, ValueError) as e:
        print(f"error: {paper}: {e}", file=sys.stderr)
        return 1
    for path in written:
        print(path)
    if args.out is None and args.profile != "smoke" and docs.update(args.docs, out, paper):
        print(f"{docs.path(args.docs, paper)}: results of {paper} ({args.profile} profile) updated")
    return 0

if __name__ == "__main__":
    sys.exit(main())
