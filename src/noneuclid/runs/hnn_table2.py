"""Ganea et al.'s Table 2 runs as the report reads them: the classifier runs' F1 values and the Poincare
embedding runs' last reconstructions, one row per run, from the per-run data (runs.csv, curves.csv.gz),
which embedding of each dimension Table 2 classifies, the burn-in ablation's runs reduced to one row per
burn-in, the classifiers' gaps to scikit-learn's (table2_reference.csv, the evaluation's), and the data of
the boundary figure (POINTS, WEIGHTS) exported from the run folders' checkpoints."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import torch
from omegaconf import OmegaConf

from noneuclid.claims.estimates import difference_interval, estimate
from noneuclid.config import compose, sweep_params
from noneuclid.data import wordnet
from noneuclid.runs import lookup, select
from noneuclid.runs.folder import CSV_COMPRESSION

SWEEP = sweep_params("hnn/table2")  # Table 2's embedding dimensions, subtrees and classifiers (model.geometry)
DIMS, SUBTREES, GEOMETRIES = (
    tuple(int(d) for d in SWEEP["data.dim"]),
    tuple(SWEEP["data.subtree"]),
    tuple(SWEEP["model.geometry"]),
)
TABLE2_PROTOCOL = (
    "data.natural_mix",
    "data.batch_size",
    "trainer.epochs",
    "optim.lr",
    "optim.ball_lr",
    "optim.clip_norm",
    "optim.epoch_lr_factor",
    "model.offsets",
    "trainer.converge.patience",
    "trainer.converge.tol",
    "trainer.converge.after",
)  # what makes a Table 2 run today's
CELL = ["subtree", "dim", "geometry", "seed", "embedding"]  # a classifier run's cell, seed and embedding
SELECTED = [f"cfg.{key}" for key in SWEEP]  # the settings Table 2's claims select runs by
BURNIN = "hnn/burnin"  # the burn-in ablation's experiment: its embeddings are not Table 2's
EMBEDDING_COLUMNS = {  # runs.csv -> an embedding's row
    "cfg.model.dim": "dim",
    "epochs": "epochs",
    "cfg.data.batch_size": "batch_size",
    "cfg.optim.lr": "lr",
    "cfg.optim.burnin_epochs": "burnin_epochs",
    "cfg.optim.burnin_factor": "burnin_factor",
    "burnin_negatives": "burnin_negatives",
    "train_minutes": "train_minutes",
    "epoch": "evaluated_at_epoch",
    "reconstruction_nodes": "nodes_ranked",
    "reconstruction_mean_rank": "mean_rank",
    "reconstruction_map": "map",
    "reference_mean_rank": "reference_mean_rank",
    "reference_map": "reference_map",
    "run": "run",
}
POINTS, WEIGHTS = "fig_table2_boundaries_points.csv.gz", "fig_table2_boundaries_classifiers.csv"  # the figure's data


def protocols(profile: str) -> dict[str, dict]:
    """model.geometry -> today's TABLE2_PROTOCOL settings of that classifier at `profile` (its step sizes
    and form depend on it)."""
    configs = {g: compose(["experiment=hnn/table2", f"profile={profile}", f"model.geometry={g}"]) for g in GEOMETRIES}
    return {g: {key: OmegaConf.select(c, key) for key in TABLE2_PROTOCOL} for g, c in configs.items()}


def trained_with(runs: pd.DataFrame, protocols: dict[str, dict]) -> pd.DataFrame:
    """The runs that have every setting of their classifier's protocol (`protocols`: {model.geometry:
    {key: value}}, None: the key unset); a classifier without a protocol has none."""
    return runs[select.any_of(runs, [{"model.geometry": g, **p} for g, p in protocols.items()])]


def f1_values(runs: pd.DataFrame, protocols: dict | None = None) -> pd.DataFrame:
    """One row per finished classifier run trained with its classifier's protocol (`protocols`:
    {model.geometry: {config key: value}}, `protocols`; None: every run): subtree, dim, geometry
    (and their cfg.* columns, which the claims' cells select by), seed, test F1 (last epoch), final training
    loss, run, its chance level, whether it was unstable (its training loss rose to its chance level or
    above after its lowest one, runs.csv's train_loss_rebound: a step too large for it), and the run name
    of the embedding it classified. Runs of an earlier protocol stay in runs.csv but are not Table 2's;
    two runs of one cell, seed and embedding are an error."""
    found = runs[select.chosen(runs, {"model.name": "point_mlr"})] if len(runs) else runs
    if protocols is not None:  # before the lookups: an earlier protocol's runs are many
        found = trained_with(found, protocols)
    columns = {
        "cfg.data.subtree": "subtree",
        "cfg.data.dim": "dim",
        "cfg.model.geometry": "geometry",
        "cfg.seed": "seed",
        "final_test_f1": "f1",
        "final_train_loss": "train_loss",
        "run": "run",
    }
    if found.empty:
        return pd.DataFrame(columns=CELL + ["f1", "train_loss", "run", "chance_loss", "unstable", *SELECTED])
    kept = found[list(columns)].rename(columns=columns).join(found[SELECTED])
    values = kept.astype({"dim": int, "seed": int}).reset_index(drop=True)
    values["chance_loss"] = chance_losses(found).to_numpy()
    rebound = found.get("train_loss_rebound", pd.Series(math.nan, index=found.index)).to_numpy(float)
    values["unstable"] = rebound >= values.chance_loss.to_numpy()
    values["embedding"] = [lookup.embedding_of(row) for _, row in found.iterrows()]
    twice = values[values.duplicated(CELL, keep=False)]
    if len(twice):  # e.g. classifiers of an earlier embedding of that dimension beside the current one's
        raise ValueError(
            f"several finished runs of one Table 2 cell, seed and embedding: {', '.join(twice.run)}; "
            "drop the stale rows"
        )
    return values


def chance_losses(found: pd.DataFrame) -> pd.Series:
    """Each classifier run's chance level of the training loss (the summary's chance_train_loss; ln 2 for a
    run of balanced batches, data.natural_mix unset, from before it was logged)."""
    logged = found.get("chance_train_loss", pd.Series(math.nan, index=found.index))
    if (logged.isna() & found.get("cfg.data.natural_mix", pd.Series(None, index=found.index)).eq(True)).any():
        raise ValueError("a natural-mix classifier run without chance_train_loss in its summary: retrain it")
    return logged.fillna(math.log(2))


def last_reconstruction(runs: pd.DataFrame, curves: pd.DataFrame) -> pd.DataFrame:
    """The runs' rows joined with their logged row of the last reconstruction (epoch, mean rank, MAP, ...),
    their burn-in negatives as 'N by frequency' (data.burnin_negatives) or 'N uniform' (unset)."""
    last = curves[curves.reconstruction_map.notna()].groupby("run").tail(1).set_index("run")
    runs = runs.join(last[last.columns.difference(runs.columns)], on="run").copy()  # one block: runs.csv is wide
    by_frequency = runs.get("cfg.data.burnin_negatives", pd.Series(math.nan, index=runs.index))
    return runs.assign(
        burnin_negatives=[
            f"{int(n)} uniform" if pd.isna(b) else f"{int(b)} by frequency"
            for b, n in zip(by_frequency, runs["cfg.data.negatives"])
        ]
    )


def embeddings(runs: pd.DataFrame, curves: pd.DataFrame, hierarchy: str, reference: dict) -> pd.DataFrame:
    """One row per finished embedding run of `hierarchy` (not the burn-in ablation's), by dimension and
    batch: its recipe, training minutes, last reconstruction and the reference's (`reference`: dim ->
    {mean_rank, map}; NaN where none)."""
    found = (
        runs[
            select.chosen(runs, {"model.name": "poincare_embedding", "data.hierarchy": hierarchy})
            & ~select.chosen(runs, {"experiment_name": BURNIN})
        ]
        if len(runs)
        else runs
    )
    if found.empty:
        return pd.DataFrame(columns=list(EMBEDDING_COLUMNS.values()))
    found = last_reconstruction(found, curves).sort_values(["cfg.model.dim", "cfg.data.batch_size"])
    rows = [reference.get(int(dim), {}) for dim in found["cfg.model.dim"]]
    found = found.assign(
        train_minutes=found.train_seconds / 60,
        **{f"reference_{k}": [r.get(k, math.nan) for r in rows] for k in ("mean_rank", "map")},
    )
    ints = ["dim", "epochs", "batch_size", "burnin_epochs", "evaluated_at_epoch", "nodes_ranked"]
    found = found[list(EMBEDDING_COLUMNS)].rename(columns=EMBEDDING_COLUMNS)
    return found.astype(dict.fromkeys(ints, int)).reset_index(drop=True)


def classified(values: pd.DataFrame, emb: pd.DataFrame, own: dict[int, str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the classifier values and the embedding rows that Table 2 shows): in each dimension, the
    profile's own embedding (`own`: dim -> its run name) where it has finished, else the one that
    classifiers ran on (an earlier recipe's)."""
    chosen = []
    for dim in DIMS:
        mine = own.get(dim)
        ran = [mine] if mine in set(emb.run) else sorted(set(values[values.dim == dim].embedding) & set(emb.run))
        if len(ran) > 1:
            raise ValueError(
                f"classifiers of several {dim}-D embeddings ({', '.join(ran)}) and none of them is "
                f"the profile's own ({mine}): drop the stale rows"
            )
        chosen += ran
    return values[values.embedding.isin(chosen)], emb[emb.run.isin(chosen)]


def burnin(runs: pd.DataFrame, curves: pd.DataFrame) -> pd.DataFrame:
    """One row per burn-in of experiment=hnn/burnin (lr factor; negatives by frequency or uniform): the last
    reconstruction's mean rank and MAP, mean and s.e. over seeds, and the 95 % interval of its MAP minus
    the first row's (the reference's burn-in); empty without runs."""
    found = runs[select.chosen(runs, {"experiment_name": BURNIN})] if len(runs) else runs
    if found.empty:
        return found
    groups = sorted(
        last_reconstruction(found, curves).groupby(["cfg.optim.burnin_factor", "burnin_negatives"]),
        key=lambda item: (-item[0][0], "uniform" in item[0][1]),
    )  # the reference's first
    rows, first = [], estimate(groups[0][1].reconstruction_map)
    for (factor, negatives), group in groups:
        rank, ap = estimate(group.reconstruction_mean_rank), estimate(group.reconstruction_map)
        low, high = difference_interval(ap, first) if rows else (math.nan, math.nan)
        rows.append(
            {
                "hierarchy": group["cfg.data.hierarchy"].iloc[0],
                "dim": int(group["cfg.model.dim"].iloc[0]),
                "burnin_factor": factor,
                "burnin_negatives": negatives,
                "seeds": ap.count,
                "mean_rank": rank.mean,
                "mean_rank_se": rank.se,
                "map": ap.mean,
                "map_se": ap.se,
                "map_minus_first_low": low,
                "map_minus_first_high": high,
                "epochs": int(group.epochs.max()),
            }
        )
    return pd.DataFrame(rows)


def reference_gaps(out: Path) -> dict[tuple[str, int, str], float]:
    """(subtree, dim, classifier) -> our mean F1 minus scikit-learn's, from out/table2_reference.csv (the
    natural-mix runs of `python -m noneuclid.evaluate table2-reference`); empty without the file."""
    if not (Path(out) / "table2_reference.csv").is_file():
        return {}
    ref = pd.read_csv(Path(out) / "table2_reference.csv").query("sampling == 'natural'")
    return dict(zip(zip(ref.subtree, ref.dim.astype(int), ref.classifier), ref.difference))


@torch.no_grad()
def export_boundaries(values: pd.DataFrame, emb: pd.DataFrame, root: Path, cfg, out: Path) -> None:
    """POINTS and WEIGHTS in `out` from the checkpoints of the 2-D embedding of `emb` and the seed-0
    classifiers of `values` (f1_values) under `root`, with the subtrees of cfg.data.hierarchy (a composed
    Table 2 config); nothing where a folder is missing. POINTS: the points to 4 decimals and, for each
    subtree, whether a point lies in it; WEIGHTS: the classifiers' weights, one row per number."""
    seed0 = values[(values.dim == 2) & (values.seed == 0)]
    folders = [root / run for run in (*emb[emb.dim == 2].run, *seed0.run)]
    if seed0.empty or emb[emb.dim == 2].empty or not all((f / "checkpoint.pt").is_file() for f in folders):
        return
    points = torch.load(folders[0] / "checkpoint.pt", map_location="cpu", weights_only=False)["model"]["weight"]
    h = wordnet.load(cfg.data.hierarchy, cfg.paths.generated_dir)
    table = pd.DataFrame(points.numpy(), columns=["x", "y"]).assign(
        **{subtree: h.descendants(subtree).numpy().astype(int) for subtree in wordnet.SUBTREES}
    )
    table.to_csv(out / POINTS, index=False, float_format="%.4f", compression=CSV_COMPRESSION)
    rows = []
    for r in seed0.sort_values(["subtree", "geometry"]).itertuples():
        offsets = OmegaConf.load(root / r.run / "config.yaml").model.get("offsets")
        weights = torch.load(root / r.run / "checkpoint.pt", map_location="cpu", weights_only=False)["model"]
        rows += [
            {
                "subtree": r.subtree,
                "geometry": r.geometry,
                "run": r.run,
                "offsets": offsets,
                "tensor": name,
                "index": i,
                "value": v,
            }
            for name, w in weights.items()
            for i, v in enumerate(w.flatten().tolist())
        ]
    pd.DataFrame(rows).to_csv(out / WEIGHTS, index=False, float_format="%.17g")
