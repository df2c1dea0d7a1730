"""Ganea et al.'s Table 2 (F1 of hyperbolic vs Euclidean MLR on WordNet noun subtrees) and its claims,
beside the Poincare embeddings it classifies and the burn-in ablation (report.hnn_embeddings) and the
figure of the decision boundaries (report.hnn_boundaries), from the per-run data in
results/hnn/<profile>/ after merging into it the ended runs under runs/hnn/<profile>/.

    python -m noneuclid.report hnn table2 [--runs runs] [--profile cpu]
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from noneuclid.claims import engine
from noneuclid.claims.estimates import plus_minus, summary
from noneuclid.config import compose
from noneuclid.data import wordnet
from noneuclid.models.mlr import GEOMETRIES
from noneuclid.report import hnn_boundaries, hnn_embeddings, hnn_table2_cells as cells, prose, tables
from noneuclid.report.hnn_claims import CLAIMS, CLASSIFIERS
from noneuclid.report.hnn_embeddings import DIMS, NOT_AVAILABLE
from noneuclid.runs import lookup, table as run_table

READING_NOTE = CLAIMS.references["ganea_table2_reading_note"].values  # subtree -> dim -> the paper's F1 pair
AT_LEAST_AS_GOOD, LOW_DIMENSIONS = "table2_hyperbolic_mlr_at_least_as_good", "table2_margin_largest_in_low_dimensions"
CELL = ["subtree", "dim", "geometry", "seed", "embedding"]


def f1_values(runs: pd.DataFrame, protocols: dict | None = None) -> pd.DataFrame:
    """One row per finished classifier run trained with its classifier's protocol (`protocols`:
    {model.geometry: {config key: value}}, lookup.table2_protocols; None: every run): subtree, dim,
    geometry, seed, test F1 (last epoch), final training loss, its chance level, run, and the run name
    of the embedding it classified. Runs of an earlier protocol stay in runs.csv but are not Table 2's;
    two runs of one cell, seed and embedding are an error."""
    found = runs[runs["cfg.model.name"] == "point_mlr"] if len(runs) else runs
    if protocols is not None:  # before the lookups: an earlier protocol's runs are many
        found = found[lookup.trained_with(found, protocols)]
    columns = {"cfg.data.subtree": "subtree", "cfg.data.dim": "dim", "cfg.model.geometry": "geometry",
               "cfg.seed": "seed", "final_test_f1": "f1", "final_train_loss": "train_loss", "run": "run"}
    if found.empty:
        return pd.DataFrame(columns=CELL + ["f1", "train_loss", "run", "chance_loss"])
    values = found[list(columns)].rename(columns=columns).astype({"dim": int, "seed": int}).reset_index(drop=True)
    values["chance_loss"] = chance_losses(found).to_numpy()
    values["embedding"] = [lookup.embedding_of(row) for _, row in found.iterrows()]
    twice = values[values.duplicated(CELL, keep=False)]
    if len(twice):  # e.g. classifiers of an earlier embedding of that dimension beside the current one's
        raise ValueError(f"several finished runs of one Table 2 cell, seed and embedding: {', '.join(twice.run)}; "
                         "drop the stale rows")
    return values


def natural_mix(found: pd.DataFrame) -> pd.Series:
    """Whether each classifier run trained on the natural mix (data.natural_mix; unset: balanced batches)."""
    return found.get("cfg.data.natural_mix", pd.Series(None, index=found.index)).fillna(False).astype(bool)


def chance_losses(found: pd.DataFrame) -> pd.Series:
    """Each classifier run's chance level of the training loss (the summary's chance_train_loss; ln 2 for a
    run of balanced batches from before it was logged)."""
    logged = found.get("chance_train_loss", pd.Series(math.nan, index=found.index))
    natural = natural_mix(found)
    if (logged.isna() & natural).any():
        raise ValueError("a natural-mix classifier run without chance_train_loss in its summary: retrain it")
    return logged.fillna(math.log(2))


def _f1(values: pd.DataFrame, subtree: str, dim: int, geometry: str) -> pd.Series:
    """Test F1 % per seed of one classifier on one subtree and dimension."""
    return 100 * values[(values.subtree == subtree) & (values.dim == dim) & (values.geometry == geometry)].f1


def table2(values: pd.DataFrame, emb_map: dict[int, float], gaps: dict | None = None) -> pd.DataFrame:
    """One row per subtree, dimension and classifier: the embedding's MAP (the precondition), test F1 %
    over the seeds (n, mean, s.d., s.e., 95 % Student-t interval), the runs' convergence (the largest
    final training loss, the runs that ended at or above their loss's chance level, the unstable runs),
    its difference from scikit-learn's (reference_difference), why it is not testable, the paper's pair
    where it is known (paper_f1)."""
    rows, why = [], cells.untestable(emb_map)
    for subtree, dim, geometry in ((s, d, g) for s in wordnet.SUBTREES for d in DIMS for g in GEOMETRIES):
        runs = values[(values.subtree == subtree) & (values.dim == dim) & (values.geometry == geometry)]
        rows.append({"subtree": subtree, "dim": dim, "embedding_map": emb_map.get(dim, float("nan")),
                     "classifier": geometry, **summary(100 * runs.f1, "f1_"), "train_loss_max": runs.train_loss.max(),
                     "not_learned": int((runs.train_loss >= runs.chance_loss).sum()),
                     "unstable": int(runs.get("unstable", pd.Series(dtype=bool)).sum()),
                     "reference_difference": (gaps or {}).get((subtree, dim, geometry), math.nan),
                     "not_testable": why[dim], **paper_f1(subtree, dim)})
    return pd.DataFrame(rows)


def paper_f1(subtree: str, dim: int) -> dict[str, float]:
    """The paper's test F1 % of the hyperbolic MLR and of a Euclidean one where a reading note quotes the
    cell (claims/hnn.yaml, references), else NaN."""
    pair = READING_NOTE.get(subtree, {}).get(dim, {})
    return {f"paper_{k}_f1": pair.get(k, math.nan) for k in ("hyperbolic", "euclidean")}


def shown_table2(table: pd.DataFrame) -> tuple[pd.DataFrame, set]:
    """(one row per subtree and dimension with 'mean ± s.e. (n)' per classifier, the cells of the best
    mean in each row to set in bold)."""
    rows, bold = [], set()
    for (subtree, dim), cell in table.groupby(["subtree", "dim"], sort=False):
        emb_map = cell.embedding_map.iloc[0]
        row = {"subtree": subtree, "dim": str(dim), "embedding MAP": "-" if pd.isna(emb_map) else f"{emb_map:.3f}"}
        for r in cell.itertuples():
            row[CLASSIFIERS[r.classifier]] = ("not testable here" if r.not_testable else "not run" if r.n == 0 else
                                              plus_minus(r.f1_mean, r.f1_se, r.n)
                                              + (f", {r.not_learned} not learned" if r.not_learned else "")
                                              + (f", {r.unstable} unstable" if r.unstable else "")
                                              + (", not converged" if abs(r.reference_difference) > cells.REFERENCE_GAP
                                                 else ""))
        tested = cell[(cell.n > 0) & (cell.not_testable == "")]
        if len(tested) > 1:
            bold.add((len(rows), CLASSIFIERS[tested.loc[tested.f1_mean.idxmax(), "classifier"]]))
        paper = paper_f1(subtree, dim)
        rows.append({**row, "paper": NOT_AVAILABLE if pd.isna(paper["paper_hyperbolic_f1"]) else
                     "{paper_hyperbolic_f1:g} vs {paper_euclidean_f1:g} (reading note)".format(**paper)})
    return pd.DataFrame(rows), bold


def verdicts(values: pd.DataFrame, emb_map: dict[int, float], gaps: dict | None = None) -> list[engine.Verdict]:
    """The two Table 2 claims, cell by cell: test F1 per seed of the hyperbolic MLR against each Euclidean
    one (Welch); the margin per seed (`_margins`) in 2-D against 10-D; not testable below the precondition
    or where a Euclidean MLR has not converged (`gaps`: reference_gaps)."""
    why, rows, gaps = cells.untestable(emb_map), [], gaps or {}
    claim = CLAIMS[AT_LEAST_AS_GOOD]
    for cell in claim.cells:
        subtree, dim = cell.name.split(", ")[0], int(cell.name.split(", ")[1].removesuffix("-D"))
        arms = [_f1(values, subtree, dim, g).to_numpy() for g in cell.arms]
        rows.append(engine.judged(claim, cell, arms, why[dim] or cells.unconverged(gaps, subtree, [dim], cell.arms)
                                  or cells.unsteady(values, subtree, [dim], cell.arms) or cells.none_found(arms)
                                  or cells.too_few(arms)))
    claim = CLAIMS[LOW_DIMENSIONS]
    for cell in claim.cells:
        dims = [int(arm.removeprefix("d")) for arm in cell.arms]
        arms = [_margins(values, cell.name.split(", ")[0], dim) for dim in dims]
        reason = "; ".join(f"{dim}-D: {why[dim]}" for dim in dims if why[dim])
        subtree = cell.name.split(", ")[0]
        rows.append(engine.judged(claim, cell, arms, reason or cells.not_learned(values, subtree, dims)
                                  or cells.unconverged(gaps, subtree, dims, ("euclidean", "euclidean_log0"))
                                  or cells.unsteady(values, subtree, dims, GEOMETRIES) or cells.too_few(arms)))
    return rows


def _margins(values: pd.DataFrame, subtree: str, dim: int) -> list[float]:
    """Per seed with all three classifiers: F1 points of the hyperbolic MLR minus the Euclidean MLR
    whose mean is the higher."""
    f1 = values[(values.subtree == subtree) & (values.dim == dim)].pivot_table("f1", "seed", "geometry")
    if f1.empty or not set(GEOMETRIES) <= set(f1.columns):
        return []
    f1 = 100 * f1.dropna()
    better = max(("euclidean", "euclidean_log0"), key=lambda g: f1[g].mean())
    return list(f1["hyperbolic"] - f1[better])


def settings(e, classifiers: pd.DataFrame) -> str:
    """The settings of the profile's embedding config (e) beside the reference code's, and those the
    classifier runs shown were trained with (their runs.csv rows; values joined where runs differ)."""
    def recorded(column: str, default="-", runs=classifiers) -> str:
        found = runs[column].dropna() if column in runs else pd.Series(dtype=object)
        return ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in sorted(set(found))) or default

    def per_classifier(column: str, default="-") -> str:  # "0.1 (hyperbolic MLR), 0.3 (Euclidean MLR, ...)"
        each = {g: recorded(column, default, runs) for g, runs in classifiers.groupby(geometry)}
        if len(set(each.values())) <= 1:
            return next(iter(each.values()), "-")
        return ", ".join(f"{value} ({', '.join(CLASSIFIERS[g] for g in each if each[g] == value)})"
                         for value in dict.fromkeys(each.values()))

    geometry = classifiers.get("cfg.model.geometry", pd.Series(dtype=object, index=classifiers.index))
    natural = natural_mix(classifiers)
    sampling = " and ".join(sorted({"natural-mix" if n else "balanced" for n in natural})) or "-"
    return prose.fill("hnn", "table2_settings", negatives=e.data.negatives, dtype=e.trainer.dtype,
                      nodes=e.data.eval_nodes or "all", code=CLAIMS.references["nickel_kiela_code"].values,
                      epochs=recorded("cfg.trainer.epochs"), sampling=sampling, batch=recorded("cfg.data.batch_size"),
                      lr=per_classifier("cfg.optim.lr"), ball_lr=per_classifier("cfg.optim.ball_lr"),
                      clip=per_classifier("cfg.optim.clip_norm", "none"),
                      decay=recorded("cfg.optim.epoch_lr_factor", "1"))


def make(runs_dir: Path, profile: str, out: Path, seeds=None, overrides=()) -> list[Path]:
    """Write table2_f1, table2_embeddings, table2_claims, table2_burnin (once the burn-in ablation has
    runs), the page table2.md and, where the run folders are here, fig_table2_boundaries into `out`.
    `seeds` and `overrides` are ignored (the signature is every report's): Table 2 shows every seed run."""
    e, c = (compose([f"experiment=hnn/{name}", f"profile={profile}"]) for name in ("poincare", "table2"))
    runs, curves = run_table.load(runs_dir, "hnn", profile, out)
    runs = runs[runs.status == "done"] if len(runs) else runs  # the ended runs
    every_emb, every_value = hnn_embeddings.embeddings(runs, curves, c.data.hierarchy), f1_values(runs, lookup.table2_protocols(profile))
    if every_value.empty and every_emb.empty:
        raise FileNotFoundError(f"no finished Table 2 runs in {out}/runs.csv nor under {runs_dir}/hnn/{profile}: run "
                                f"`python -m noneuclid.train -m experiment=hnn/poincare profile={profile}` and then "
                                f"`python -m noneuclid.train -m experiment=hnn/table2 profile={profile}` first")
    values, emb = hnn_embeddings.classified(every_value, every_emb, hnn_embeddings.own(every_emb, profile, c))
    values = values.assign(unstable=cells.unstable(values, runs))
    every_emb["table2"], emb_map = every_emb.run.isin(emb.run), dict(zip(emb.dim, emb["map"]))
    made = prose.fill("hnn", "table2_made", profile=profile, classifiers=len(values), embeddings=len(emb),
                      seeds=", ".join(map(str, sorted(values.seed.unique()))) or "-",
                      commits=run_table.commits(runs[runs.run.isin(set(values.run) | set(emb.run))] if len(runs) else runs))
    gaps = cells.reference_gaps(out)
    table, embeddings = table2(values, emb_map, gaps), hnn_embeddings.shown(every_emb)
    shown, bold = shown_table2(table)
    written = [*tables.write(out, "table2_embeddings", every_emb, embeddings, prose.fill(
                   "hnn", "embeddings_title", profile=profile), prose.fill("hnn", "embeddings_caption", made=made)),
               *tables.write(out, "table2_f1", table, shown, prose.fill("hnn", "f1_title", profile=profile),
                             prose.fill("hnn", "f1_caption", min_map=cells.MIN_EMBEDDING_MAP, made=made), bold),
               *(out / f"table2_claims.{ext}" for ext in ("csv", "md", "tex")), *_write_burnin(out, runs, curves, profile)]
    claims = tables.write_claims(out, "table2_claims", verdicts(values, emb_map, gaps),
                                 prose.fill("hnn", "table2_claims_title", profile=profile))
    hnn_boundaries.draw(values, emb, Path(runs_dir) / "hnn" / profile, c, out)
    caption, burnin = out / "fig_table2_boundaries.md", out / "table2_burnin.md"  # the figure in words, kept with it
    (out / "table2.md").write_text("\n".join([
        prose.fill("hnn", "table2_page", profile=profile, made=made,
                   settings=settings(e, runs[runs.run.isin(values.run)] if len(runs) else runs),
                   embeddings=tables.markdown(embeddings), f1=tables.markdown(shown, bold), claims=claims), "",
        *([caption.read_text()] if caption.is_file() else []),
        *([burnin.read_text().replace("# ", "## ", 1)] if burnin.is_file() else [])]))
    return [*written, out / "table2.md"]


def _write_burnin(out: Path, runs: pd.DataFrame, curves: pd.DataFrame, profile: str) -> list[Path]:
    """table2_burnin.{csv,md,tex} when the burn-in ablation has finished runs (none: nothing written)."""
    data = hnn_embeddings.burnin(runs, curves)
    if data.empty:
        return []
    return tables.write(out, "table2_burnin", data, hnn_embeddings.shown_burnin(data),
                        prose.fill("hnn", "burnin_title", profile=profile),
                        prose.fill("hnn", "burnin_caption", hierarchy=data.hierarchy[0], dim=data.dim[0],
                                   epochs=int(data.epochs.max()), experiment=hnn_embeddings.BURNIN, profile=profile))
