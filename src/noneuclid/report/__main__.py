"""python -m noneuclid.report brantner|hnn|phydi|html|all [PART] [--profile P] [--runs runs] [--docs] [overrides]

A paper: merges its ended runs into results/<paper>/<profile>/runs.csv and curves.csv.gz, then runs its
reports (papers.PAPERS; PART picks one, e.g. `hnn table2`) and names each table it left out (papers.Extra);
--docs also refreshes the claims digest of docs/<paper>.md. The profile: --profile, else the one with
finished run folders, else the one with committed runs.csv. html: results/index.html. all: every paper,
then html. `export PAPER` writes the per-run data alone; `runs ROOT...` prints run folders grouped by settings.
"""

import argparse
import importlib
import os
import sys
from pathlib import Path

from noneuclid.config import CONFIG_DIR
from noneuclid.papers import PAPERS, Report
from noneuclid.report import docs, html
from noneuclid.runs import table as run_table
from noneuclid.runs.lookup import seed_list

PROFILES = tuple(sorted(p.stem for p in (CONFIG_DIR / "profile").glob("*.yaml")))


class ProfileError(Exception):
    """No profile was given and the runs found do not name one."""


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["runs"]:
        return tidy_table(argv[1:])
    args = _arguments(argv)
    if args.paper in PAPERS and not _parts(args.paper, args.part):  # before anything is read or written
        names = ", ".join(_part_name(args.paper, r.module) for r in PAPERS[args.paper].reports)
        print(f"error: {args.paper} has no report {args.part!r} (its parts: {names})", file=sys.stderr)
        return 2
    try:
        profile = chosen_profile(args, [args.paper] if args.paper in PAPERS else sorted(PAPERS))
    except ProfileError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.paper in PAPERS:
        return report_paper(args.paper, args, profile, parts=[] if argv[:1] == ["export"] else None)
    codes = [report_paper(p, args, profile, missing_ok=True) for p in sorted(PAPERS)] if args.paper == "all" else []
    print(html.make(profile, args.results))
    return max(codes, default=0)


def _arguments(argv: list[str]) -> argparse.Namespace:
    """The command line parsed: `export PAPER` takes only --runs, --profile and --results (and no part)."""
    parser = argparse.ArgumentParser(prog="python -m noneuclid.report", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=Path, default=Path(os.environ.get("NONEUCLID_RUNS_DIR", "runs")))
    parser.add_argument("--profile", choices=PROFILES, default=None)
    parser.add_argument("--results", type=Path, default=Path("results"))
    if argv[:1] == ["export"]:
        parser.add_argument("export", choices=["export"])
        parser.add_argument("paper", choices=sorted(PAPERS))
        return parser.parse_args(argv, argparse.Namespace(part=None))
    parser.add_argument("paper", choices=[*sorted(PAPERS), "html", "all"])
    parser.add_argument("part", nargs="?", default=None, help="one report of the paper, e.g. table2 (hnn_table2)")
    parser.add_argument("--out", type=Path, default=None, help="default: <results>/<paper>/<profile>")
    parser.add_argument("--seeds", type=seed_list, default=None, help="e.g. 0,1,2 or 0-17 (default: those found)")
    parser.add_argument("overrides", nargs="*", help="the training overrides of the runs, e.g. optim.lr=3e-3")
    parser.add_argument("--docs", action="store_true", help="also refresh the claims digest in <docs-dir>/<paper>.md")
    parser.add_argument("--docs-dir", type=Path, default=Path("docs"))
    args = parser.parse_intermixed_args(argv)  # options may come after the overrides
    if args.part and "=" in args.part:  # the first override, not a part (`report brantner model.depth=1`)
        args.part, args.overrides = None, [args.part, *args.overrides]
    if args.paper == "all" and (args.part or args.out or args.seeds or args.overrides):
        parser.error("`all` redraws every paper with its defaults: a part, --out, --seeds and overrides need one paper")
    return args


def chosen_profile(args, paper_keys) -> str:
    """args.profile, else the one profile with finished run folders (DONE) under <runs>/<paper>/, else the
    one with <results>/<paper>/<profile>/runs.csv; ProfileError names what was found."""
    if args.profile:
        return args.profile
    finished = {p: [f for f in (args.runs / k / p for k in paper_keys) if any(f.rglob("DONE"))] for p in PROFILES}
    committed = {p: [f for f in (args.results / k / p / "runs.csv" for k in paper_keys) if f.is_file()]
                 for p in PROFILES}
    found = {p: paths for p, paths in finished.items() if paths} or {p: paths for p, paths in committed.items() if paths}
    if len(found) == 1:
        return next(iter(found))
    if not found:
        raise ProfileError(f"no finished runs of {', '.join(paper_keys)} under {args.runs}/<paper>/<profile>/ nor "
                           f"committed ones in {args.results}/<paper>/<profile>/runs.csv: train them first (e.g. "
                           f"`make reproduce-all PROFILE=smoke`), or name a profile with --profile")
    where = "; ".join(f"{profile} ({', '.join(map(str, paths))})" for profile, paths in found.items())
    raise ProfileError(f"runs of several profiles: {where}. Name the one to report: --profile {'|'.join(found)}")


def tidy_table(argv) -> int:
    parser = argparse.ArgumentParser(prog="python -m noneuclid.report runs")
    parser.add_argument("roots", nargs="+", type=Path, help="folders holding run folders (searched recursively)")
    parser.add_argument("--csv", type=Path, default=None, help="also write the table here")
    args = parser.parse_args(argv)
    table = run_table.grouped(run_table.runs(args.roots))
    if table.empty:
        print(f"error: no run folders under {', '.join(map(str, args.roots))}", file=sys.stderr)
        return 1
    print(table.to_markdown(index=False, floatfmt=".4g"))
    if args.csv:
        table.to_csv(args.csv, index=False)
    return 0


def _part_name(paper: str, report: str) -> str:
    """The part that names report module `report` on the command line, e.g. table2 for hnn_table2."""
    return report.rsplit(".", 1)[-1].removeprefix(f"{paper}_")


def _parts(paper: str, part: str | None) -> list[Report]:
    """The paper's reports that `part` names (None: all of them)."""
    return [r for r in PAPERS[paper].reports
            if part in (None, _part_name(paper, r.module), r.module.rsplit(".", 1)[-1])]


def _print(paths) -> None:
    for path in paths:
        print(path)


def report_paper(paper: str, args, profile: str, missing_ok: bool = False, parts: list | None = None) -> int:
    """Run the paper's reports (`parts`, default args.part's), each exporting the ended runs it reads; with no
    parts (`export`), export them alone. missing_ok: a report that finds no runs says so and leaves its
    results (exit 0)."""
    parts = _parts(paper, args.part) if parts is None else parts
    if not parts:
        _print(run_table.export(args.runs, paper, profile, args.results / paper / profile))
    return max((_run_report(paper, report, args, profile, missing_ok) for report in parts), default=0)


def _run_report(paper: str, report: Report, args, profile: str, missing_ok: bool) -> int:
    """Run the report, name what it left out, and with --docs refresh docs/<paper>.md's digest."""
    out, name = args.out or args.results / paper / profile, report.module
    options = {"overrides": args.overrides, **({"seeds": args.seeds} if args.seeds else {})} if report.options else {}
    before = {p.name: p.stat().st_mtime_ns for p in out.iterdir() if p.is_file()} if out.is_dir() else {}
    try:
        written = importlib.import_module(name).make(args.runs, profile, out, **options)
    except (FileNotFoundError, ValueError) as e:
        if missing_ok and isinstance(e, FileNotFoundError):
            print(f"{paper}: {e}; its results are left as they are")
            return 0
        print(f"error: {paper}: {e}", file=sys.stderr)
        return 1
    _print(written)
    left_out = lacking(paper, name, out, before, {"profile": profile, "runs": args.runs,
                                                   "data": os.environ.get("NONEUCLID_DATA_DIR", "data")})
    if left_out:
        print(f"{out}: not drawn by {name}", *left_out, sep="\n  - ")
    if args.docs:
        _refresh_docs(args, paper, profile, out, left_out)
    return 0


def lacking(paper: str, report: str, out: Path, before: dict[str, int], fill: dict) -> list[str]:
    """The paper's Extras of `report` it did not write into `out` this time (stamps as in `before`), each
    with what it needs and the files an earlier report left."""
    lines = []
    for extra in (e for e in PAPERS[paper].extras if e.report == report):
        files = sorted(out.glob(f"{extra.stem}.*"))
        if any(extra.evaluated or before.get(f.name) != f.stat().st_mtime_ns for f in files):
            continue  # written this time (an evaluation's file: wherever it was written)
        earlier = f" ({', '.join(f.name for f in files)}: an earlier report's, not this one's)" if files else ""
        lines.append(f"{extra.stem}: needs {extra.needs.format(**fill)}{earlier}")
    return lines


def _refresh_docs(args, paper: str, profile: str, out: Path, left_out: list[str]) -> None:
    """Replace the claims digest of <docs-dir>/<paper>.md with out's (docs.update), saying so."""
    report = docs.path(args.docs_dir, paper)
    if args.out is not None or profile == "smoke":
        why = "--out names another folder" if args.out is not None else "smoke results never replace it"
        print(f"{report}: not refreshed ({why})")
    elif docs.update(args.docs_dir, out, paper):
        without = f"; the report left out {', '.join(line.split(':')[0] for line in left_out)}" if left_out else ""
        print(f"{report}: claims digest ({profile} profile) updated{without}")
    else:
        print(f"{report}: not refreshed (no such file, no results markers in it, or no *claims.csv in {out})")


if __name__ == "__main__":
    sys.exit(main())
