"""PHYDI's Fig. 4 runs as the report reads them from the per-run data (runs.csv, curves.csv.gz): each run with
its validation perplexity by epoch (runs.curves) and the unigram perplexity of its data; and what PHYDI's
report and figure modules share: claims/phydi.yaml's names and numbers, the prose of templates/phydi.md."""

from __future__ import annotations

import functools

import pandas as pd

from noneuclid import prose
from noneuclid.claims import data as claims_data
from noneuclid.runs import select
from noneuclid.runs.curves import with_curves

CELL = ["model.n", "model.depth", "model.norm"]  # the settings of a Fig. 4 cell and arm
NO_RUNS = pd.DataFrame(columns=[*(f"cfg.{k}" for k in CELL), "cfg.seed", "diverged", "curve"])  # lm_runs without runs
CLAIMS = claims_data.load("phydi")
NUMBERS = CLAIMS.numbers  # the levels and reference values the metrics use (claims/phydi.yaml, numbers)
NAMES = CLAIMS.labels["arms"]  # model.init / model.norm -> the paper's name
MODELS = CLAIMS.labels["models"]  # cfg.model.name -> the paper's name
fill = functools.partial(prose.fill, "phydi")  # a section of templates/phydi.md, its fields filled in


def no_runs(arms: dict) -> str:
    """'no finished runs of A, B': the arms (arm -> its runs or values) without any; '' where every arm has some."""
    missing = [NAMES[a] for a, found in arms.items() if not len(found)]
    return fill("no_runs_of", arms=", ".join(missing)) if missing else ""


def lm_runs(runs: pd.DataFrame, curves: pd.DataFrame) -> tuple[pd.DataFrame, dict[int, float]]:
    """(the finished or diverged runs, one row each with its settings, diverged and validation perplexity
    by epoch (curve; empty for a run that diverged in epoch 1), n -> the unigram perplexity of their data,
    as logged)."""
    ended, unigram = runs[select.ended_as(runs, (select.FINISHED, select.DIVERGED))], {}
    for settings, group in select.by_settings(ended, ["model.n", "model.depth"]):
        n, u = settings["model.n"], curves[curves.run.isin(group.run)]["val_unigram_perplexity"].dropna().unique()
        if len(u) != 1:
            raise ValueError(f"runs of n={n} have unigram perplexities {list(u)}: keep one data setting per profile")
        full = group[["cfg.data.vocab_size", "cfg.data.train_tokens", "cfg.data.eval_tokens"]].isna().all(axis=None)
        if full and abs(u[0] - NUMBERS["paper_unigram_perplexity"]) > 0.05:
            raise ValueError(f"runs on all of WikiText-2 logged a unigram perplexity {u[0]:.2f}, not the paper's")
        unigram.setdefault(int(n), float(u[0]))
    lm = with_curves(ended, curves, "val_perplexity", CELL)
    return lm.assign(diverged=select.ended_as(lm, (select.DIVERGED,))), unigram
