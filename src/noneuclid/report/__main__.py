"""python -m noneuclid.report brantner|hnn|phydi|html|all [PART] [--profile P] [--runs runs] [--docs] [overrides]

A paper: merges its ended runs into results/<paper>/<profile>/runs.csv and curves.csv.gz, then runs its
reports (papers.PAPERS; PART picks one, e.g. `hnn table2`; without PART, a report of ablations no stage trains
that finds no runs says so and leaves its results; --seeds and overrides go to the reports that take them,
e.g. Table 1's) and names each table it left out (papers.Extra); --docs also refreshes the claims digest of
docs/<paper>.md (an error where it cannot). The profile: --profile, else the one with
finished run folders, else the one with committed runs.csv. html: results/index.html. all: every paper,
then html. The per-run data alone, and run folders as a table: `python -m noneuclid.runs export|table`.
"""

import argparse
import importlib
import os
import sys
from pathlib import Path

from noneuclid import prose
from noneuclid.papers import PAPERS, Report
from noneuclid.report import docs, html
from noneuclid.report.written import recording
from noneuclid.runs.cli import PROFILES, ProfileError, chosen_profile, seed_list


def main(argv=None) -> int:
    args = _arguments(sys.argv[1:] if argv is None else argv)
    if args.paper in PAPERS and not _parts(args.paper, args.part):  # before anything is read or written
        names = ", ".join(_part_name(args.paper, r.module) for r in PAPERS[args.paper].reports)
        print(f"error: {args.paper} has no report {args.part!r} (its parts: {names})", file=sys.stderr)
        return 2
    papers = [args.paper] if args.paper in PAPERS else sorted(PAPERS)  # html: the runs of every paper
    try:
        profile = chosen_profile(args, papers)
    except ProfileError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    reported = [] if args.paper == "html" else papers
    codes = []
    for paper in reported:  # with --docs, the paper's digest once its reports ran: from every claims table
        # a report that finds no runs leaves its results (exit 0) under `all`, and where it reads ablations no
        # stage trains, unless it is the part named (Report.ablation)
        missing_ok = {r: args.paper == "all" or (r.ablation and args.part is None) for r in _chosen(paper, args)}
        ran = [_run_report(paper, r, args, profile, ok) for r, ok in missing_ok.items()]
        codes += [code for code, _ in ran]
        if args.docs and any(left_out is not None for _, left_out in ran):
            left_out = [line for _, lines in ran for line in lines or ()]
            codes.append(_refresh_docs(args, paper, profile, args.out or args.results / paper / profile, left_out))
    if args.paper not in PAPERS:
        print(html.make(profile, args.results))
    if args.paper == "all" and args.docs:
        codes.append(_refresh_status(args.docs_dir.parent / "README.md", args.results))
    return max(codes, default=0)


def _refresh_status(readme: Path, results: Path) -> int:
    """Replace the status block of the README with every paper's (docs.status), saying so; 1 where the README or
    its status markers are missing, or a claims table there is older than today's columns."""
    try:
        if not prose.replace_block(readme, "status", docs.status(results)):
            print(f"error: {readme}: status not updated (no such file, or no status markers in it)", file=sys.stderr)
            return 1
    except ValueError as e:  # a claims table of another profile from before today's columns
        print(f"error: {readme}: status not updated: {e}", file=sys.stderr)
        return 1
    print(f"{readme}: status block updated")
    return 0


def _arguments(argv: list[str]) -> argparse.Namespace:
    """The command line parsed; a first override in the place of the part is taken as an override."""
    parser = argparse.ArgumentParser(
        prog="python -m noneuclid.report", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=Path, default=Path(os.environ.get("NONEUCLID_RUNS_DIR", "runs")))
    parser.add_argument("--profile", choices=PROFILES, default=None)
    parser.add_argument("--results", type=Path, default=Path("results"))
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
    if args.paper in ("all", "html") and (args.part or args.out or args.seeds or args.overrides):
        parser.error(
            f"`{args.paper}` draws every paper with its defaults: a part, --out, --seeds and overrides need one"
        )
    if args.paper == "html" and args.docs:
        parser.error("`html` writes results/index.html only: --docs needs a paper or `all`")
    if args.paper in PAPERS and args.part and (args.seeds or args.overrides):
        if (parts := _parts(args.paper, args.part)) and not any(r.options for r in parts):
            parser.error(f"{args.paper} {args.part} shows every seed run: --seeds and overrides are not its")
    return args


def _part_name(paper: str, report: str) -> str:
    """The part that names report module `report` on the command line, e.g. table2 for hnn_table2."""
    return report.rsplit(".", 1)[-1].removeprefix(f"{paper}_")


def _parts(paper: str, part: str | None) -> list[Report]:
    """The paper's reports that `part` names (None: all of them)."""
    return [
        r for r in PAPERS[paper].reports if part in (None, _part_name(paper, r.module), r.module.rsplit(".", 1)[-1])
    ]


def _chosen(paper: str, args) -> list[Report]:
    """The paper's reports to run: those the part names (none: all), with --seeds or overrides those that take
    them only (the others show every seed run; the command says which it left out)."""
    parts = _parts(paper, args.part)
    if not (args.seeds or args.overrides):
        return parts
    if fixed := [_part_name(paper, r.module) for r in parts if not r.options]:
        print(f"{paper}: {', '.join(fixed)} left out (every seed run, no overrides): name no --seeds or overrides")
    return [r for r in parts if r.options]


def _run_report(paper: str, report: Report, args, profile: str, missing_ok: bool) -> tuple[int, list[str] | None]:
    """Run the report (which exports the ended runs it reads) and name what it left out: (exit code, the lines
    of what it left out; None where it did not run). missing_ok: a report that finds no runs says so and
    leaves its results (exit 0)."""
    out = args.out or args.results / paper / profile
    options = {"overrides": args.overrides, **({"seeds": args.seeds} if args.seeds else {})} if report.options else {}
    try:
        with recording() as drawn:
            written = importlib.import_module(report.module).make(args.runs, profile, out, **options)
    except (FileNotFoundError, ValueError) as e:
        if missing_ok and isinstance(e, FileNotFoundError):
            print(f"{paper}: {e}; its results are left as they are")
            return 0, None
        print(f"error: {paper}: {e}", file=sys.stderr)
        return 1, None
    for path in written:
        print(path)
    fill = {"profile": profile, "runs": args.runs, "data": os.environ.get("NONEUCLID_DATA_DIR", "data")}
    left_out = lacking(paper, report.module, out, drawn, fill)
    if left_out:
        print(f"{out}: not drawn by {report.module}", *left_out, sep="\n  - ")
    return 0, left_out


def lacking(paper: str, report: str, out: Path, drawn: set[Path], fill: dict) -> list[str]:
    """The paper's Extras of `report` it did not draw into `out`: those without a file there, and those (but an
    evaluation's) none of whose files it wrote (`drawn`: report.written's); each with what it needs and the
    files left."""
    written = {p.name for p in drawn if p.parent == out.absolute()}
    lines = []
    for extra in (e for e in PAPERS[paper].extras if e.report == report):
        files = sorted(p.name for p in out.glob(f"{extra.stem}.*"))
        if files and (extra.evaluated or written.intersection(files)):
            continue  # drawn this time (an evaluation's file: wherever it was written)
        earlier = f" ({', '.join(files)}: an earlier report's, not this one's)" if files else ""
        lines.append(f"{extra.stem}: needs {extra.needs.format(**fill)}{earlier}")
    return lines


def _refresh_docs(args, paper: str, profile: str, out: Path, left_out: list[str]) -> int:
    """Replace the claims digest of <docs-dir>/<paper>.md with out's (docs.update), saying so; 1 where a claims
    table there is older than today's columns."""
    report = args.docs_dir / f"{paper}.md"
    try:
        if args.out is not None or profile == "smoke":
            why = "--out names another folder" if args.out is not None else "smoke results never replace it"
            print(f"{report}: not refreshed ({why})")
        elif docs.update(report, out, paper):
            without = f"; the report left out {', '.join(line.split(':')[0] for line in left_out)}" if left_out else ""
            print(f"{report}: claims digest ({profile} profile) updated{without}")
        else:
            print(
                f"error: {report}: not refreshed (no such file, no results markers in it, or no *claims.csv in {out})",
                file=sys.stderr,
            )
            return 1
    except ValueError as e:
        print(f"error: {report}: not refreshed: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
