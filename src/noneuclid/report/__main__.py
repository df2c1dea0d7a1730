"""python -m noneuclid.report brantner|hnn|phydi|html|all [PART] [--runs runs] [--profile cpu]

A paper: merges its ended runs under runs/<paper>/<profile>/ into results/<paper>/<profile>/runs.csv
and curves.csv.gz, then runs each of its reports (papers.PAPERS[paper].reports; PART picks one, e.g.
`hnn table2` for report.hnn_table2), which redraw results/<paper>/<profile>/; for the cpu and paper
profiles each also refreshes its results block of the paper's report, docs/<paper>.md (smoke
results never replace it). A report that needs run folders and finds none leaves its results as they
are and says so; the PHYDI report and Ganea et al.'s Table 2 draw from runs.csv and curves.csv.gz alone.
html: writes results/index.html from the files in results/. all: every paper, then html.

    python -m noneuclid.report export PAPER [--runs runs] [--profile cpu] [--results results]

writes (merges into) results/<paper>/<profile>/runs.csv and curves.csv.gz, the per-run data of the ended
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

PAPERS = papers.PAPERS


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["runs"]:
        return tidy_table(argv[1:])
    if argv[:1] == ["export"]:
        return export(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m noneuclid.report", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paper", choices=[*sorted(PAPERS), "html", "all"])
    parser.add_argument("part", nargs="?", default=None,
                        help="one report of the paper, e.g. table2 (report.hnn_table2); default: all of them")
    parser.add_argument("--runs", type=Path, default=Path(os.environ.get("NONEUCLID_RUNS_DIR", "runs")),
                        help="the run folders (default: $NONEUCLID_RUNS_DIR, else runs)")
    parser.add_argument("--profile", default="cpu")
    parser.add_argument("--results", type=Path, default=Path("results"))
    parser.add_argument("--out", type=Path, default=None, help="default: <results>/<paper>/<profile>")
    parser.add_argument("--seeds", type=seed_list, default=None,
                        help="seeds and ranges, e.g. 0,1,2 or 0-17 (default: the seeds found)")
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
        codes = [report_paper(paper, args, missing_ok=True) for paper in sorted(PAPERS)]
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


def report_paper(paper: str, args, missing_ok: bool = False) -> int:
    """Merge the paper's ended runs into its runs.csv and curves.csv.gz, then run its reports (or the one
    named args.part). missing_ok: a report that finds no runs says so and leaves its results (exit 0)."""
    entry = PAPERS[paper]
    parts = [(i, name) for i, name in enumerate(entry.reports)
             if args.part is None or name.rsplit(".", 1)[-1] in (args.part, f"{paper}_{args.part}")]
    if not parts:  # before anything is written
        names = ", ".join(name.rsplit(".", 1)[-1].removeprefix(f"{paper}_") for name in entry.reports)
        print(f"error: {paper} has no report {args.part!r} (its parts: {names})", file=sys.stderr)
        return 2
    for path in run_table.export(args.runs, paper, args.profile, args.results / paper / args.profile):
        print(path)
    return max(_run_report(paper, i, name, args, missing_ok) for i, name in parts)


def _run_report(paper: str, index: int, name: str, args, missing_ok: bool) -> int:
    """Run the report module `name` (the paper's `index`-th: the first takes --seeds and overrides,
    and its page is summary.md) and refresh its block of docs/<paper>.md."""
    out = args.out or args.results / paper / args.profile
    options = {"overrides": args.overrides, **({"seeds": args.seeds} if args.seeds else {})} if index == 0 else {}
    try:
        written = importlib.import_module(name).make(args.runs, args.profile, out, **options)
    except (FileNotFoundError, ValueError) as e:
        if missing_ok and isinstance(e, FileNotFoundError):
            print(f"{paper}: {e}; its results are left as they are")
            return 0
        print(f"error: {paper}: {e}", file=sys.stderr)
        return 1
    for path in written:
        print(path)
    if args.out is None and args.profile != "smoke" and docs.update(args.docs, out, paper):
        print(f"{docs.path(args.docs, paper)}: claims digest ({args.profile} profile) updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
