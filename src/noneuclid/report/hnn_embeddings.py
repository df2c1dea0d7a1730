"""The Poincare embeddings that Ganea et al.'s Table 2 classifies: their reconstruction of the WordNet
noun closure beside Nickel & Kiela's (claims/hnn.yaml, references), which embedding of each dimension
Table 2 shows, and the burn-in ablation (experiment=hnn/burnin: Nickel & Kiela's code's burn-in against
ours, each change alone too), from the embedding runs' rows (runs.hnn_table2)."""

from __future__ import annotations

import math

import pandas as pd

from noneuclid.claims.estimates import difference_interval, estimate, plus_minus
from noneuclid.report.hnn_claims import CLAIMS
from noneuclid.runs.hnn_table2 import BURNIN, last_reconstruction

DIMS = (2, 3, 5, 10)
NOT_AVAILABLE = "not available here"
REFERENCE = CLAIMS.references["nickel_kiela_reconstruction"].values  # dim -> {mean_rank, map}


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
