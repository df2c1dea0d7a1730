"""The Poincare embeddings that Ganea et al.'s Table 2 classifies: their reconstruction of the WordNet
noun closure beside Nickel & Kiela's (claims/hnn.yaml, references), which embedding of each dimension
Table 2 shows, and the burn-in ablation (experiment=hnn/burnin: Nickel & Kiela's code's burn-in against
ours, each change alone too), from the per-run data (runs.csv, curves.csv.gz)."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from noneuclid.claims.estimates import difference_interval, estimate, plus_minus
from noneuclid.report import prose, tables
from noneuclid.report.hnn_claims import CLAIMS

DIMS = (2, 3, 5, 10)
NOT_AVAILABLE = "not available here"
BURNIN = "hnn/burnin"
REFERENCE = CLAIMS.references["nickel_kiela_reconstruction"].values  # dim -> {mean_rank, map}
COLUMNS = {"cfg.model.dim": "dim", "epochs": "epochs", "cfg.data.batch_size": "batch_size", "cfg.optim.lr": "lr",
           "cfg.optim.burnin_epochs": "burnin_epochs", "cfg.optim.burnin_factor": "burnin_factor",
           "burnin_negatives": "burnin_negatives", "train_minutes": "train_minutes", "epoch": "evaluated_at_epoch",
           "reconstruction_nodes": "nodes_ranked", "reconstruction_mean_rank": "mean_rank", "reconstruction_map": "map",
           "reference_mean_rank": "reference_mean_rank", "reference_map": "reference_map", "run": "run"}  # runs.csv -> ours


def last_reconstruction(runs: pd.DataFrame, curves: pd.DataFrame) -> pd.DataFrame:
    """The runs' rows joined with their logged row of the last reconstruction (epoch, mean rank, MAP, ...),
    their burn-in negatives as 'N by frequency' (data.burnin_negatives) or 'N uniform' (unset)."""
    last = curves[curves.reconstruction_map.notna()].groupby("run").tail(1).set_index("run")
    runs = runs.join(last[last.columns.difference(runs.columns)], on="run")
    by_frequency = runs.get("cfg.data.burnin_negatives", pd.Series(math.nan, index=runs.index))
    return runs.assign(burnin_negatives=[f"{int(n)} uniform" if pd.isna(b) else f"{int(b)} by frequency"
                                         for b, n in zip(by_frequency, runs["cfg.data.negatives"])])


def embeddings(runs: pd.DataFrame, curves: pd.DataFrame, hierarchy: str) -> pd.DataFrame:
    """One row per finished embedding run of `hierarchy` (not the burn-in ablation's), by dimension and
    batch: its recipe, training minutes, last reconstruction and the reference's (NaN where none)."""
    found = runs[(runs["cfg.model.name"] == "poincare_embedding") & (runs["cfg.data.hierarchy"] == hierarchy)
                 & (runs.experiment != BURNIN)] if len(runs) else runs
    if found.empty:
        return pd.DataFrame(columns=list(COLUMNS.values()))
    found = last_reconstruction(found, curves).sort_values(["cfg.model.dim", "cfg.data.batch_size"])
    reference = [REFERENCE.get(int(dim), {}) for dim in found["cfg.model.dim"]]
    found = found.assign(train_minutes=found.train_seconds / 60, **{
        f"reference_{k}": [r.get(k, math.nan) for r in reference] for k in ("mean_rank", "map")})
    ints = ["dim", "epochs", "batch_size", "burnin_epochs", "evaluated_at_epoch", "nodes_ranked"]
    return found[list(COLUMNS)].rename(columns=COLUMNS).astype(dict.fromkeys(ints, int)).reset_index(drop=True)


def classified(values: pd.DataFrame, emb: pd.DataFrame, own: dict[int, list[str]]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the classifier values and the embedding rows that Table 2 shows): in each dimension, the
    profile's own embedding (`own`: dim -> its run names, on the CPU and on a GPU) where it has finished,
    else the one that classifiers ran on (an earlier recipe's)."""
    chosen = []
    for dim in DIMS:
        mine = own.get(dim, [])
        ran = [n for n in mine if n in set(emb.run)][:1] or sorted(set(values[values.dim == dim].embedding) & set(emb.run))
        if len(ran) > 1:
            raise ValueError(f"classifiers of several {dim}-D embeddings ({', '.join(ran)}) and none of them is "
                             f"the profile's own ({' or '.join(mine)}): drop the stale rows")
        chosen += ran
    return values[values.embedding.isin(chosen)], emb[emb.run.isin(chosen)]


def shown(emb: pd.DataFrame) -> pd.DataFrame:
    """The embeddings table in words: our mean rank and MAP beside the reference's."""
    return pd.DataFrame([{"dim": str(r.dim), "epochs": str(r.epochs), "batch x lr": f"{r.batch_size} x {r.lr:g}",
                          "burn-in": f"{r.burnin_epochs} epochs at x{r.burnin_factor:g}, negatives {r.burnin_negatives}",
                          "Table 2": "classified" if r.table2 else "-", "train minutes": f"{r.train_minutes:.0f}",
                          "nodes ranked": f"{r.nodes_ranked:,}", "mean rank": f"{r.mean_rank:.2f}", "MAP": f"{r.map:.3f}",
                          "Nickel & Kiela (mean rank / MAP)": NOT_AVAILABLE if pd.isna(r.reference_map)
                          else f"{r.reference_mean_rank:g} / {r.reference_map:g}"} for r in emb.itertuples()])


def burnin(runs: pd.DataFrame, curves: pd.DataFrame) -> pd.DataFrame:
    """One row per burn-in of experiment=hnn/burnin (lr factor; negatives by frequency or uniform): the last
    reconstruction's mean rank and MAP, mean and s.e. over seeds, and the 95 % interval of its MAP minus
    the first row's (the reference's burn-in); empty without runs."""
    found = runs[runs.experiment == BURNIN] if len(runs) else runs
    if found.empty:
        return found
    groups = sorted(last_reconstruction(found, curves).groupby(["cfg.optim.burnin_factor", "burnin_negatives"]),
                    key=lambda item: (-item[0][0], "uniform" in item[0][1]))  # the reference's first
    rows, first = [], estimate(groups[0][1].reconstruction_map)
    for (factor, negatives), group in groups:
        rank, ap = estimate(group.reconstruction_mean_rank), estimate(group.reconstruction_map)
        low, high = difference_interval(ap, first) if rows else (math.nan, math.nan)
        rows.append({"hierarchy": group["cfg.data.hierarchy"].iloc[0], "dim": int(group["cfg.model.dim"].iloc[0]),
                     "burnin_factor": factor, "burnin_negatives": negatives, "seeds": ap.count,
                     "mean_rank": rank.mean, "mean_rank_se": rank.se, "map": ap.mean, "map_se": ap.se,
                     "map_minus_first_low": low, "map_minus_first_high": high, "epochs": int(group.epochs.max())})
    return pd.DataFrame(rows)


def shown_burnin(data: pd.DataFrame) -> pd.DataFrame:
    """The burn-in table in words: mean ± s.e. (n), the interval of the MAP difference."""
    return pd.DataFrame([{
        "burn-in lr": f"x{r.burnin_factor:g}", "burn-in negatives": r.burnin_negatives,
        "mean rank": plus_minus(r.mean_rank, r.mean_rank_se, r.seeds),
        "MAP": plus_minus(r.map, r.map_se, r.seeds, ".3f"),
        "MAP minus the first row's (95 %)": "-" if pd.isna(r.map_minus_first_low)
        else f"[{r.map_minus_first_low:+.3f}, {r.map_minus_first_high:+.3f}]"} for r in data.itertuples()])


def burnin_fields(data: pd.DataFrame) -> dict:
    """The fields of the burn-in table's caption (templates/hnn.md) from its data (`burnin`; empty: none)."""
    return {"hierarchy": data.hierarchy[0], "dim": data.dim[0], "epochs": int(data.epochs.max()),
            "experiment": BURNIN} if len(data) else {}
