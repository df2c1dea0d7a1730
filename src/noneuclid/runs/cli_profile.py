"""The profile a command works on when none is named (`python -m noneuclid.report`, `python -m noneuclid.runs
export`): the one whose runs are there, in run folders or in the committed per-run data."""

from noneuclid.config import CONFIG_DIR

PROFILES = tuple(sorted(p.stem for p in (CONFIG_DIR / "profile").glob("*.yaml")))


class ProfileError(Exception):
    """No profile was given and the runs found do not name one."""


def chosen_profile(args, paper_keys) -> str:
    """args.profile, else the one profile with finished run folders (DONE) under <runs>/<paper>/, else the
    one with <results>/<paper>/<profile>/runs.csv; ProfileError names what was found."""
    if args.profile:
        return args.profile
    finished = {p: [f for f in (args.runs / k / p for k in paper_keys) if any(f.rglob("DONE"))] for p in PROFILES}
    committed = {
        p: [f for f in (args.results / k / p / "runs.csv" for k in paper_keys) if f.is_file()] for p in PROFILES
    }
    found = {p: paths for p, paths in finished.items() if paths} or {
        p: paths for p, paths in committed.items() if paths
    }
    if len(found) == 1:
        return next(iter(found))
    if not found:
        raise ProfileError(
            f"no finished runs of {', '.join(paper_keys)} under {args.runs}/<paper>/<profile>/ nor "
            f"committed ones in {args.results}/<paper>/<profile>/runs.csv: train them first (e.g. "
            f"`make reproduce-all PROFILE=smoke`), or name a profile with --profile"
        )
    where = "; ".join(f"{profile} ({', '.join(map(str, paths))})" for profile, paths in found.items())
    raise ProfileError(f"runs of several profiles: {where}. Name the one to report: --profile {'|'.join(found)}")
