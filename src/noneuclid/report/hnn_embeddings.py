"""The Poincare embeddings that Ganea et al.'s Table 2 classifies: their reconstruction of the WordNet
noun closure beside Nickel & Kiela's (claims/hnn.yaml, references), and which embedding of each
dimension Table 2 shows, from the per-run data (runs.csv, curves.csv.gz)."""

from __future__ import annotations

import functools
import math

import pandas as pd
import yaml
from omegaconf import OmegaConf

from noneuclid.config import compose
from noneuclid.report import hnn_burnin
from noneuclid.report.hnn_claims import CLAIMS
from noneuclid.runs.lookup import poincare_embedding
from noneuclid.runs.settings import device_type, digest_settings

DIMS = (2, 3, 5, 10)
NOT_AVAILABLE = "not available here"
REFERENCE = CLAIMS.references["nickel_kiela_reconstruction"].values  # dim -> {mean_rank, map}
RECIPE = ("batch_size", "lr", "burnin_epochs", "burnin_factor", "burnin_negatives")  # an embedding run's
COLUMNS = ["dim", "epochs", *RECIPE, "train_minutes", "evaluated_at_epoch", "nodes_ranked", "mean_rank", "map",
           "reference_mean_rank", "reference_map", "run"]


def embeddings(runs: pd.DataFrame, curves: pd.DataFrame, hierarchy: str) -> pd.DataFrame:
    """One row per finished embedding run of `hierarchy` (the burn-in ablation's aside), by dimension and
    batch: its recipe, epochs, training minutes, the last reconstruction (nodes ranked, mean rank, MAP)
    and the reference's, NaN where it has none."""
    found = runs[(runs["cfg.model.name"] == "poincare_embedding") & (runs["cfg.data.hierarchy"] == hierarchy)
                 & (runs.experiment != hnn_burnin.EXPERIMENT)] if len(runs) else runs
    rows = []
    for _, run in found.sort_values(["cfg.model.dim", "cfg.data.batch_size"]).iterrows() if len(found) else ():
        last = curves[(curves.run == run.run) & curves.reconstruction_map.notna()].iloc[-1]
        reference = REFERENCE.get(int(run["cfg.model.dim"]), {"mean_rank": math.nan, "map": math.nan})
        rows.append({"dim": int(run["cfg.model.dim"]), "epochs": int(run.epochs), **_recipe(run),
                     "train_minutes": run.train_seconds / 60, "evaluated_at_epoch": int(last.epoch),
                     "nodes_ranked": int(last.reconstruction_nodes), "mean_rank": last.reconstruction_mean_rank,
                     "map": last.reconstruction_map, "reference_mean_rank": reference["mean_rank"],
                     "reference_map": reference["map"], "run": run.run})
    return pd.DataFrame(rows, columns=COLUMNS)


def _recipe(run: pd.Series) -> dict:
    """The embedding run's batch, lr and burn-in, from its config columns."""
    return {"batch_size": int(run["cfg.data.batch_size"]), "lr": float(run["cfg.optim.lr"]),
            "burnin_epochs": int(run["cfg.optim.burnin_epochs"]), "burnin_factor": float(run["cfg.optim.burnin_factor"]),
            "burnin_negatives": hnn_burnin.draws(run.get("cfg.data.burnin_negatives"), run["cfg.data.negatives"])}


def embedding_of(row: pd.Series) -> str:
    """The run name of the Poincare embedding a classifier's runs.csv row classified (as the subtree
    task finds it: runs.lookup.poincare_embedding), on the device the classifier ran on."""
    overrides = row.get("cfg.data.embedding_overrides")
    overrides = [] if pd.isna(overrides) else yaml.safe_load(str(overrides)) or []
    cuda = not pd.isna(row.get("env.cuda")) and row.get("env.cuda") != ""
    return embedding_name(str(row["cfg.profile.name"]), int(row["cfg.data.dim"]), str(row["cfg.data.hierarchy"]),
                          int(row["cfg.data.embedding_seed"]), str(row["cfg.trainer.device"]), tuple(overrides), cuda)


@functools.cache
def embedding_name(profile: str, dim: int, hierarchy: str, seed: int, device: str, overrides: tuple, cuda: bool) -> str:
    """The folder name that these overrides give on a machine with (cuda) or without a GPU."""
    cfg = compose(poincare_embedding(profile, dim, hierarchy, seed, device, overrides))
    return f"{cfg.study.run_name}-{digest_settings(OmegaConf.to_container(cfg, resolve=True), device_type(device, cuda))}"


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
    embedding that the profile trains (`own`: dim -> its run name) where it has finished, else the one
    that classifiers ran on (an earlier recipe's, named by data.embedding_overrides)."""
    chosen = {}
    for dim in DIMS:
        if own.get(dim) in set(emb.run):
            chosen[dim] = own[dim]
        else:
            ran = sorted(set(values[values.dim == dim].embedding) & set(emb.run))
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
                          else f"{r.reference_mean_rank:g} / {r.reference_map:g}"} for r in emb.itertuples()],
                        columns=["dim", "epochs", "batch x lr", "burn-in", "Table 2", "train minutes", "nodes ranked",
                                 "mean rank", "MAP", "Nickel & Kiela (mean rank / MAP)"])
