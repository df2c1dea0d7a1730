"""PHYDI's runs as the report reads them from the per-run data (runs.csv, curves.csv.gz): each run with its
validation curve by epoch, and Fig. 4's transformer runs with the unigram perplexity of their data."""

from __future__ import annotations

import pandas as pd

from noneuclid.claims import data as claims_data
from noneuclid.runs import select

CELL = ["model.n", "model.depth", "model.norm"]  # the settings of a Fig. 4 cell and arm
NO_RUNS = pd.DataFrame(columns=[*(f"cfg.{k}" for k in CELL), "cfg.seed", "diverged", "curve"])  # lm_runs without runs
PAPER_UNIGRAM = claims_data.load("phydi").numbers["paper_unigram_perplexity"]  # of all of WikiText-2


def evaluated(curves: pd.DataFrame) -> pd.DataFrame:
    """The rows of curves.csv.gz of evaluated epochs, the last where one is logged twice."""
    curves = curves[curves["epoch"].notna() & curves.filter(like="val_").notna().any(axis=1)]
    return curves.drop_duplicates(["run", "epoch"], keep="last")


def with_curves(runs: pd.DataFrame, curves: pd.DataFrame, column: str, cell: list[str]) -> pd.DataFrame:
    """The runs, one per seed of a cell (the settings `cell`: config keys), sorted by cell and seed, each with
    its curve: `column` by epoch (a Series, empty where none was logged)."""
    cell = [f"cfg.{k}" for k in [*cell, "seed"]]
    twins = runs[runs.duplicated(cell, keep=False)]
    if not twins.empty:
        raise ValueError(
            f"runs {', '.join(twins.run)} share a cell and a seed but differ in another setting: "
            f"keep one setting per profile under runs/phydi/<profile> (move the others away)"
        )
    logged = {
        run: c.set_index("epoch")[column].dropna().sort_index()
        for run, c in curves[curves.run.isin(runs.run)].groupby("run")
    }
    runs = runs.sort_values(cell)
    return runs.assign(
        curve=pd.Series([logged.get(r, pd.Series(dtype=float)) for r in runs.run], index=runs.index, dtype=object)
    )


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
        if full and abs(u[0] - PAPER_UNIGRAM) > 0.05:
            raise ValueError(f"runs on all of WikiText-2 logged a unigram perplexity {u[0]:.2f}, not the paper's")
        unigram.setdefault(int(n), float(u[0]))
    lm = with_curves(ended, curves, "val_perplexity", CELL)
    return lm.assign(diverged=select.ended_as(lm, (select.DIVERGED,))), unigram
