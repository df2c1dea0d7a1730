"""What the commands share (`python -m noneuclid.report`, `python -m noneuclid.runs export`, `python -m
noneuclid.evaluate`): the profile a command works on when none is named (the one whose runs are there, in run
folders or in the committed per-run data), a list of seeds, a count and a device as the command line writes them."""

import argparse

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


def seed_list(text: str) -> list[int]:
    """'0,2,5-7' -> [0, 2, 5, 6, 7]."""
    seeds = []
    for part in text.split(","):
        first, _, last = part.partition("-")
        try:
            found = range(int(first), int(last or first) + 1)
        except ValueError:
            found = range(0)
        if not found:  # not integers, or a range a-b with b below a
            raise argparse.ArgumentTypeError(
                f"seeds are integers and ranges a-b (a <= b), comma-separated (got {text!r})"
            )
        seeds += found
    return seeds


def positive(text: str) -> int:
    """A count of at least 1, as the command line writes it."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"a whole number of at least 1, got {text!r}")
    return int(text)


def device(text: str) -> str:
    """A --device as the command line writes it: cpu, or cuda where torch sees a GPU."""
    import torch  # here, not at the top: the report commands import this module and never need torch

    if text not in ("cpu", "cuda"):
        raise argparse.ArgumentTypeError(f"cpu or cuda, got {text!r}")
    if text == "cuda" and not torch.cuda.is_available():
        raise argparse.ArgumentTypeError("cuda: torch sees no CUDA GPU on this machine")
    return text
