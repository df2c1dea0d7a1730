"""The Poincare embeddings that Ganea et al.'s Table 2 classifies: their reconstruction of the WordNet
noun closure beside Nickel & Kiela's (claims/hnn.yaml, references), which embedding of each dimension
Table 2 shows, and the burn-in ablation (experiment=hnn/burnin: Nickel & Kiela's code's burn-in against
ours, each change alone too), from the per-run data (runs.csv, curves.csv.gz)."""

from __future__ import annotations

import math

import pandas as pd

from noneuclid.claims.estimates import difference_interval, estimate, plus_minus
from noneuclid.report.hnn_claims import CLAIMS
from noneuclid.runs.lookup import embedding_name

DIMS = (2, 3, 5, 10)
NOT_AVAILABLE = "not available here"
BURNIN = "hnn/burnin"
REFERENCE = CLAIMS.references["nickel_kiela_reconstruction"].values  # dim -> {mean_rank, map}
COLUMNS = ["dim", "epochs", "batch_size", "lr", "burnin_epochs", "burnin_factor", "burnin_negatives", "train_minutes",
           "evaluated_at_epoch", "nodes_ranked", "mean_rank", "map", "reference_mean_rank", "reference_map", "run"]


def last_reconstruction(runs: pd.DataFrame, curves: pd.DataFrame) -> pd.DataFrame:
    """The runs' rows joined with their logged row of the last reconstruction (epoch, mean rank, MAP, ...)."""
    last = curves[curves.reconstruction_map.notna()].groupby("run").tail(1).set_index("run")
    return runs.join(last[last.columns.difference(runs.columns)], on="run")


def draws(burnin_negatives, negatives) -> str:
    """A run's burn-in negatives: 'N by frequency', or 'N uniform' without data.burnin_negatives."""
    return f"{int(negatives)} uniform" if pd.isna(burnin_negatives) else f"{int(burnin_negatives)} by frequency"


def embeddings(runs: pd.DataFrame, curves: pd.DataFrame, hierarchy: str) -> pd.DataFrame:
    """One row per finished embedding run of `hierarchy` (not the burn-in ablation's), by dimension and
    batch: its recipe, training minutes, last reconstruction and the reference's (NaN where none)."""
    found = runs[(runs["cfg.model.name"] == "poincare_embedding") & (runs["cfg.data.hierarchy"] == hierarchy)
                 & (runs.experiment != BURNIN)] if len(runs) else runs
    if found.empty:
        return pd.DataFrame(columns=COLUMNS)
    rows = []
    for _, run in last_reconstruction(found, curves).sort_values(["cfg.model.dim", "cfg.data.batch_size"]).iterrows():
        reference = REFERENCE.get(int(run["cfg.model.dim"]), {"mean_rank": math.nan, "map": math.nan})
        rows.append([int(run["cfg.model.dim"]), int(run.epochs), int(run["cfg.data.batch_size"]),
                     float(run["cfg.optim.lr"]), int(run["cfg.optim.burnin_epochs"]),
                     float(run["cfg.optim.burnin_factor"]),
                     draws(run.get("cfg.data.burnin_negatives"), run["cfg.data.negatives"]), run.train_seconds / 60,
                     int(run.epoch), int(run.reconstruction_nodes), run.reconstruction_mean_rank, run.reconstruction_map,
                     reference["mean_rank"], reference["map"], run.run])
    return pd.DataFrame(rows, columns=COLUMNS)


def own(emb: pd.DataFrame, profile: str, c) -> dict[int, str]:
    """dim -> the run name of the profile's own embedding for the classifier config `c`, trained on the
    CPU or on a GPU (the CPU's name where neither has finished)."""
    found = {}
    for dim in DIMS:
        names = [embedding_name(profile, dim, c.data.hierarchy, c.data.embedding_seed, c.trainer.device, (), cuda)
                 for cuda in (False, True)]
        found[dim] = next((n for n in names if n in set(emb.run)), names[0])
    return found


def classified(values: pd.DataFrame, emb: pd.DataFrame, own: dict[int, str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the classifier values and the embedding rows that Table 2 shows): in each dimension, the
    profile's own embedding (`own`: dim -> its run name) where it has finished, else the one that
    classifiers ran on (an earlier recipe's)."""
    chosen = {}
    for dim in DIMS:
        ran = [own[dim]] if own.get(dim) in set(emb.run) else sorted(set(values[values.dim == dim].embedding) & set(emb.run))
        if len(ran) > 1:
            raise ValueError(f"classifiers of several {dim}-D embeddings ({', '.join(ran)}) and none of them is "
                             f"the profile's own ({own.get(dim)}): drop the stale rows")
        chosen.update({dim: ran[0]} if ran else {})
    return values[values.embedding.isin(chosen.values())], emb[emb.run.isin(chosen.values())]


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
    found = last_reconstruction(found, curves)
    drawn = [draws(b, n) for b, n in zip(found["cfg.data.burnin_negatives"], found["cfg.data.negatives"])]
    groups = sorted(found.assign(drawn=drawn).groupby(["cfg.optim.burnin_factor", "drawn"]),
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
