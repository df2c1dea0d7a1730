"""Beyond the paper: the burn-in of the Poincare embeddings (experiment=hnn/burnin), Nickel & Kiela's
code's (claims/hnn.yaml, nickel_kiela_code: a smaller lr factor, negatives drawn by frequency) against
the one of our first embeddings (configs/experiment/hnn/burnin.yaml), each change alone too: the
reconstruction each reaches, from the per-run data (runs.csv, curves.csv.gz). Part of
`python -m noneuclid.report hnn table2`."""

from __future__ import annotations

import pandas as pd

from noneuclid.report.estimates import difference_interval, estimate

EXPERIMENT = "hnn/burnin"
COLUMNS = ["hierarchy", "dim", "burnin_factor", "burnin_negatives", "seeds", "mean_rank", "mean_rank_se", "map", "map_se",
           "map_minus_first_low", "map_minus_first_high", "epochs"]


def draws(burnin_negatives, negatives) -> str:
    """A run's burn-in negatives in words, from its config columns: 'N by frequency', or 'N uniform' for a
    run without data.burnin_negatives (its burn-in drew as the other epochs)."""
    return f"{int(negatives)} uniform" if pd.isna(burnin_negatives) else f"{int(burnin_negatives)} by frequency"


def table(runs: pd.DataFrame, curves: pd.DataFrame) -> pd.DataFrame:
    """One row per burn-in (lr factor; negatives drawn by frequency, or uniformly as after it): the last
    reconstruction's mean rank and MAP, mean and s.e. over seeds, and the 95 % interval of its MAP minus
    the first row's (the reference's burn-in)."""
    found = runs[runs.experiment == EXPERIMENT] if len(runs) else runs
    if found.empty:
        return pd.DataFrame(columns=COLUMNS)
    last = curves[curves.reconstruction_map.notna()].groupby("run").last()
    found = found.join(last[["reconstruction_mean_rank", "reconstruction_map"]], on="run")
    drawn = [draws(b, n) for b, n in zip(found["cfg.data.burnin_negatives"], found["cfg.data.negatives"])]
    groups = sorted(found.assign(drawn=drawn).groupby(["cfg.optim.burnin_factor", "drawn"]),
                    key=lambda item: (-item[0][0], "uniform" in item[0][1]))  # the reference's first
    rows, first = [], estimate(groups[0][1].reconstruction_map)
    for (factor, negatives), group in groups:
        rank, ap = estimate(group.reconstruction_mean_rank), estimate(group.reconstruction_map)
        low, high = difference_interval(ap, first) if rows else (float("nan"), float("nan"))
        rows.append({"hierarchy": group["cfg.data.hierarchy"].iloc[0], "dim": int(group["cfg.model.dim"].iloc[0]),
                     "burnin_factor": factor, "burnin_negatives": negatives, "seeds": ap.count,
                     "mean_rank": rank.mean, "mean_rank_se": rank.se, "map": ap.mean, "map_se": ap.se,
                     "map_minus_first_low": low, "map_minus_first_high": high, "epochs": int(group.epochs.max())})
    return pd.DataFrame(rows, columns=COLUMNS)


def shown(data: pd.DataFrame) -> pd.DataFrame:
    """The table in words: mean ± s.e. (n), the interval of the MAP difference."""
    return pd.DataFrame([{
        "burn-in lr": f"x{r.burnin_factor:g}",
        "burn-in negatives": r.burnin_negatives,
        "mean rank": f"{r.mean_rank:.2f} ± {r.mean_rank_se:.2f} (n={r.seeds})",
        "MAP": f"{r.map:.3f} ± {r.map_se:.3f} (n={r.seeds})",
        "MAP minus the first row's (95 %)": "-" if pd.isna(r.map_minus_first_low)
        else f"[{r.map_minus_first_low:+.3f}, {r.map_minus_first_high:+.3f}]",
    } for r in data.itertuples()], columns=["burn-in lr", "burn-in negatives", "mean rank", "MAP",
                                             "MAP minus the first row's (95 %)"])
