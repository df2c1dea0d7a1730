"""python -m noneuclid.runs migrate|table|export: the run folders and the per-run data, without reports.

migrate [--runs runs] [--results results] [--dry-run]: brings the run folders under --runs and the per-run
data under --results (runs.csv, curves.csv.gz) of earlier settings versions up to the current one (see
runs/migrate.py): rewrites each earlier run's config.yaml as today's configs compose it and renames its
folder to its new hash. Exits with 1 when it left something as it was (each is named, with why).

table ROOT... [--csv FILE]: every run folder under the roots (searched recursively) as one table, one
row per settings, its seeds grouped (runs/table.py's grouped); exits with 1 when there are none.

export PAPER [--runs runs] [--profile P] [--results results]: merges the paper's ended runs into
results/<paper>/<profile>/runs.csv and curves.csv.gz, as each of its reports does first; the profile as
`python -m noneuclid.report` chooses it. Exits with 1 when there are no runs to write, 2 when no profile
is given and none is found.
"""

import argparse
import os
import sys
from pathlib import Path

from noneuclid.papers import PAPERS
from noneuclid.runs import table as run_table
from noneuclid.runs.cli import PROFILES, ProfileError, chosen_profile
from noneuclid.runs.migrate import migrate
from noneuclid.runs.settings import SETTINGS_VERSION


def main(argv=None) -> int:
    args = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    if args.command in (migrate_runs, export) and not args.runs.is_dir():  # e.g. a fresh clone's committed data only
        print(f"note: no folder {args.runs}: no run folders read (--runs, or $NONEUCLID_RUNS_DIR)", file=sys.stderr)
    return args.command(args)


def _parser() -> argparse.ArgumentParser:
    """The command line; each subcommand's description is its paragraph of the module's docstring."""
    title, *paragraphs = __doc__.split("\n\n")
    parser = argparse.ArgumentParser(prog="python -m noneuclid.runs", description=title)
    commands = parser.add_subparsers(required=True, metavar="{migrate,table,export}")
    folders = argparse.ArgumentParser(add_help=False)  # where migrate and export read and write
    folders.add_argument(
        "--runs",
        type=Path,
        default=Path(os.environ.get("NONEUCLID_RUNS_DIR", "runs")),
        help="the run folders (default: $NONEUCLID_RUNS_DIR, else runs)",
    )
    folders.add_argument("--results", type=Path, default=Path("results"), help="the committed results")

    migrate_parser = commands.add_parser("migrate", parents=[folders], description=paragraphs[0])
    migrate_parser.add_argument("--dry-run", action="store_true", help="say what would change; change nothing")
    migrate_parser.set_defaults(command=migrate_runs)

    table_parser = commands.add_parser("table", description=paragraphs[1])
    table_parser.add_argument("roots", nargs="+", type=Path, help="folders holding run folders (searched recursively)")
    table_parser.add_argument("--csv", type=Path, default=None, help="also write the table here")
    table_parser.set_defaults(command=print_table)

    export_parser = commands.add_parser("export", parents=[folders], description=paragraphs[2])
    export_parser.add_argument("paper", choices=sorted(PAPERS))
    export_parser.add_argument("--profile", choices=PROFILES, default=None)
    export_parser.set_defaults(command=export)
    return parser


def migrate_runs(args) -> int:
    """Migrate, naming each folder renamed and each one left as it was."""
    left = []

    def say(message: str) -> None:
        print(message)
        left.append(message)

    renamed, names = migrate(args.runs, args.results, args.dry_run, say)
    verb = "would rename" if args.dry_run else "renamed"
    for old, new in renamed.items():
        print(f"{verb} {old} -> {new}")
    print(
        f"settings version {SETTINGS_VERSION}: {verb} {len(renamed)} run folders under {args.runs} and "
        f"{len(names)} runs in the tables under {args.results}"
    )
    if left:
        print(f"{len(left)} left as they were (above): migrate them, or remove them, and run this again")
    return 1 if left else 0


def print_table(args) -> int:
    """Print the run folders grouped by settings as Markdown (and write them to --csv)."""
    table = run_table.grouped(run_table.runs(args.roots))
    if table.empty:
        print(f"error: no run folders under {', '.join(map(str, args.roots))}", file=sys.stderr)
        return 1
    print(table.to_markdown(index=False, floatfmt=".4g"))
    if args.csv:
        table.to_csv(args.csv, index=False)
    return 0


def export(args) -> int:
    """Write the paper's per-run data, printing each file written."""
    try:
        profile = chosen_profile(args, [args.paper])
    except ProfileError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    out = args.results / args.paper / profile
    written = run_table.export(args.runs, args.paper, profile, out)
    if not written:
        print(
            f"error: no ended runs of {args.paper} under {args.runs}/{args.paper}/{profile}/ nor in {out}",
            file=sys.stderr,
        )
        return 1
    print(*written, sep="\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
