"""Ganea et al.'s Table 2 runs as the report reads them: the classifier runs' F1 values and the Poincare
embedding runs' last reconstructions, one row per run, from the per-run data (runs.csv, curves.csv.gz),
and which embedding of each dimension Table 2 classifies."""

from __future__ import annotations

import functools
import math

import pandas as pd
from omegaconf import OmegaConf

from noneuclid.config import compose, sweep_params
from noneuclid.runs import lookup, select

SWEEP = sweep_params("hnn/table2")  # Table 2's embedding dimensions, subtrees and classifiers (model.geometry)
DIMS, GEOMETRIES = tuple(int(d) for d in SWEEP["data.dim"]), tuple(SWEEP["model.geometry"])
CHART = ("model.chart", "trainer.dtype")  # the hyperbolic MLR's chart and precision (report.hnn_table2_charts)
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
    *CHART,
)  # what makes a Table 2 run today's (the Lorentz and float32 runs of experiment=hnn/table2 are not Table 2's)
CELL = ["subtree", "dim", "geometry", "seed", "embedding"]  # a classifier run's cell, seed and embedding
SELECTED = [f"cfg.{key}" for key in (*SWEEP, "seed", *CHART)]  # the settings Table 2's tables and claims select by
NAMES = {  # runs.csv -> a classifier value's column: cfg.data.subtree -> subtree, ..., final_test_f1 -> f1
    **{key: key.rsplit(".")[-1] for key in SELECTED},
    "final_test_f1": "f1",
    "final_train_loss": "train_loss",
    "run": "run",
}
BURNIN = "hnn/burnin"  # the burn-in ablation's experiment: its embeddings are not Table 2's


@functools.cache
def protocols(profile: str) -> dict[str, dict]:
    """model.geometry -> today's TABLE2_PROTOCOL settings of that classifier at `profile` (its step sizes
    and form depend on it)."""
    configs = {g: compose(["experiment=hnn/table2", f"profile={profile}", f"model.geometry={g}"]) for g in GEOMETRIES}
    return {g: {key: OmegaConf.select(c, key) for key in TABLE2_PROTOCOL} for g, c in configs.items()}


def trained_with(runs: pd.DataFrame, protocols: dict[str, dict]) -> pd.DataFrame:
    """The runs that have every setting of their classifier's protocol (`protocols`: {model.geometry:
    {key: value}}, None: the key unset) and, where that protocol stops by trainer.converge (a patience set),
    stopped on their own plateau (the summary's own_plateau), not on their stack's (the trainer's rule
    before each run of a stack stopped alone; the settings, and so the run names, are the same). A
    classifier without a protocol has none."""
    kept = runs[select.any_of(runs, [{"model.geometry": g, **p} for g, p in protocols.items()])]
    converging = [g for g, p in protocols.items() if p.get("trainer.converge.patience") is not None]
    own = kept.get("own_plateau", pd.Series(None, index=kept.index, dtype=object)).eq(True)
    return kept[own | ~kept["cfg.model.geometry"].isin(converging)] if len(kept) else kept


def f1_values(runs: pd.DataFrame, protocols: dict | None = None) -> pd.DataFrame:
    """One row per finished classifier run trained with its classifier's protocol (`protocols`:
    {model.geometry: {config key: value}}; None: every run): its cell and seed (CELL; and SELECTED, the
    cfg.* columns that Table 2's table and claims select by), test F1 (last epoch), final training loss,
    run, its chance level, whether it was unstable (its training loss rose to its chance level or above
    after its lowest one, runs.csv's train_loss_rebound: a step too large for it). Runs of an earlier
    protocol stay in runs.csv but are not Table 2's; two runs of one cell, seed and embedding are an error."""
    found = runs[select.chosen(runs, {"model.name": "point_mlr"})] if len(runs) else runs
    if protocols is not None:  # before the lookups: an earlier protocol's runs are many
        found = trained_with(found, protocols)
    if found.empty:
        return pd.DataFrame(columns=list(dict.fromkeys([*CELL, *NAMES.values(), "chance_loss", "unstable", *SELECTED])))
    kept = found.reindex(columns=list(NAMES)).reset_index(drop=True)  # runs from before model.chart lack it
    values = kept.rename(columns=NAMES).join(kept[SELECTED]).astype({"dim": int, "seed": int})
    values["chance_loss"] = chance_losses(found).to_numpy()
    rebound = found.get("train_loss_rebound", pd.Series(math.nan, index=found.index)).to_numpy(float)
    values["unstable"] = rebound >= values.chance_loss.to_numpy()
    values["embedding"] = [lookup.embedding_of(row) for _, row in found.iterrows()]
    twice = values[values.duplicated([*CELL, *(NAMES[f"cfg.{key}"] for key in CHART)], keep=False)]
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
    """The finished embedding runs of `hierarchy` (not the burn-in ablation's) by dimension and batch, with
    their last reconstruction, train_minutes and the reference's (`reference`: dim -> {mean_rank, map}) as
    reference_mean_rank and reference_map (NaN where none)."""
    kind = {"model.name": "poincare_embedding", "data.hierarchy": hierarchy}
    found = runs[select.chosen(runs, kind) & ~select.chosen(runs, {"experiment_name": BURNIN})] if len(runs) else runs
    if found.empty:  # with the columns a run has, that `classified` reads
        return found.reindex(columns=list(dict.fromkeys(["run", "cfg.model.dim", *found.columns])))
    found = last_reconstruction(found, curves).sort_values(["cfg.model.dim", "cfg.data.batch_size"])
    rows = [reference.get(int(dim), {}) for dim in found["cfg.model.dim"]]
    reference = {f"reference_{k}": [r.get(k, math.nan) for r in rows] for k in ("mean_rank", "map")}
    return found.assign(train_minutes=found.train_seconds / 60, **reference)


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


def shown(runs: pd.DataFrame, curves: pd.DataFrame, profile: str, data, reference=None) -> tuple[pd.DataFrame, ...]:
    """(Table 2's classifier values and embedding runs, `classified` by the profile's own embeddings, and every
    finished embedding run of data.hierarchy) among the finished `runs`; data: a composed Table 2 config's."""
    found = embeddings(runs, curves, data.hierarchy, reference or {})
    own = {d: lookup.embedding_name(profile, d, data.hierarchy, data.embedding_seed, (), False) for d in DIMS}
    return *classified(f1_values(runs, protocols(profile)), found, own), found
