"""Ganea et al.'s Table 2 (F1 of hyperbolic vs Euclidean MLR on WordNet noun subtrees) and its claims,
beside the Poincare embeddings it classifies (their reconstruction of the WordNet noun closure beside
Nickel & Kiela's, claims/hnn.yaml, references), the burn-in ablation (experiment=hnn/burnin: Nickel &
Kiela's code's burn-in against ours, each change alone too) and the figure of the decision boundaries
(figures.hnn), from the runs' rows (runs.hnn_table2) of the per-run data in results/hnn/<profile>/ after
merging into it the ended runs under runs/hnn/<profile>/. A cell is judged where its embedding
reconstructs the hierarchy and no run of it is `flagged`; each reason names runs or classifiers, never
numbers (those are table2_f1.csv's columns).

    python -m noneuclid.report hnn table2 [--runs runs] [--profile cpu]
"""

from __future__ import annotations

import functools
import itertools
import math
from pathlib import Path

import pandas as pd

from noneuclid import prose, tables
from noneuclid.claims import engine, render
from noneuclid.claims.estimates import plus_minus, summary
from noneuclid.config import compose
from noneuclid.report import hnn_boundaries as boundaries, provenance, table_engine
from noneuclid.report.hnn_claims import CLAIMS, CLASSIFIERS
from noneuclid.runs import hnn_table2 as table2_runs, lookup, select, table as run_table
from noneuclid.runs.hnn_table2 import BURNIN, DIMS, GEOMETRIES, SUBTREES

NOT_AVAILABLE = "not available here"
REFERENCE_CSV = "table2_reference.csv"  # the evaluation's (evaluate.table2_reference), rendered beside Table 2
REFERENCE = CLAIMS.references["nickel_kiela_reconstruction"].values  # dim -> {mean_rank, map}
READING_NOTE = CLAIMS.references["ganea_table2_reading_note"].values  # subtree -> dim -> the paper's F1 pair
OUTPERFORMS, LOW_DIMENSIONS = "table2_hyperbolic_mlr_outperforms", "table2_margin_largest_in_low_dimensions"
REFERENCE_GAP = CLAIMS.numbers["reference_gap"]  # F1 points from scikit-learn's beyond which an MLR has not converged


def flagged(values: pd.DataFrame, gaps: dict) -> pd.DataFrame:
    """`values` with the flags that keep a run's cells from being judged: not_learned (final training loss
    at or above its chance level, the loss of a constant guess on its batches: ln 2 on balanced ones),
    unconverged (its Euclidean MLR further than REFERENCE_GAP from scikit-learn's: `gaps`), unstable."""
    gap = [abs(gaps.get(cell, 0.0)) > REFERENCE_GAP for cell in zip(values.subtree, values.dim, values.geometry)]
    return values.assign(
        not_learned=values.train_loss >= values.chance_loss,
        unconverged=pd.Series(gap, values.index, bool),
        unstable=values.get("unstable", False),
    )


def table2(values: pd.DataFrame, emb_map: dict[int, float], gaps: dict | None = None) -> pd.DataFrame:
    """One row per subtree, dimension and classifier: the embedding's MAP (the precondition), test F1 %
    over the seeds (n, mean, s.d., s.e., 95 % Student-t interval), the runs' convergence (the largest
    final training loss, the runs not learned and the unstable ones), its difference from scikit-learn's
    (reference_difference), why it is not testable, the paper's pair where a reading note quotes the cell
    (claims/hnn.yaml, references; else NaN)."""
    rows, why, gaps = [], untestable(emb_map), gaps or {}
    values = flagged(values, gaps)
    for subtree, dim, geometry in itertools.product(SUBTREES, DIMS, GEOMETRIES):
        runs = values[(values.subtree == subtree) & (values.dim == dim) & (values.geometry == geometry)]
        paper = READING_NOTE.get(subtree, {}).get(dim, {})
        rows.append(
            {
                "subtree": subtree,
                "dim": dim,
                "embedding_map": emb_map.get(dim, math.nan),
                "classifier": geometry,
                **summary(100 * runs.f1, "f1_"),
                "train_loss_max": runs.train_loss.max(),
                "not_learned": int(runs.not_learned.sum()),
                "unstable": int(runs.unstable.sum()),
                "reference_difference": gaps.get((subtree, dim, geometry), math.nan),
                "not_testable": why[dim],
                **{f"paper_{k}_f1": paper.get(k, math.nan) for k in ("hyperbolic", "euclidean")},
            }
        )
    return pd.DataFrame(rows)


def shown_table2(table: pd.DataFrame) -> tuple[pd.DataFrame, set]:
    """(one row per subtree and dimension with 'mean ± s.e. (n)' per classifier, the cells of the best
    mean in each row to set in bold)."""
    rows, bold = [], set()
    for (subtree, dim), cell in table.groupby(["subtree", "dim"], sort=False):
        first = cell.iloc[0]
        row = {
            "subtree": subtree,
            "dim": str(dim),
            "embedding MAP": "-" if pd.isna(first.embedding_map) else f"{first.embedding_map:.3f}",
        }
        for r in cell.itertuples():
            notes = [f"{n} {what}" for what, n in (("not learned", r.not_learned), ("unstable", r.unstable)) if n]
            notes += ["not converged"] if abs(r.reference_difference) > REFERENCE_GAP else []
            row[CLASSIFIERS[r.classifier]] = (
                "not testable here"
                if r.not_testable
                else "not run"
                if r.n == 0
                else ", ".join([plus_minus(r.f1_mean, r.f1_se, r.n), *notes])
            )
        tested = cell[(cell.n > 0) & (cell.not_testable == "")]
        if len(tested) > 1:
            bold.add((len(rows), CLASSIFIERS[tested.loc[tested.f1_mean.idxmax(), "classifier"]]))
        rows.append(
            {
                **row,
                "paper": NOT_AVAILABLE
                if pd.isna(first.paper_hyperbolic_f1)
                else f"{first.paper_hyperbolic_f1:g} vs {first.paper_euclidean_f1:g} (reading note)",
            }
        )
    return pd.DataFrame(rows), bold


def untestable(emb_map: dict[int, float]) -> dict[int, str]:
    """dim -> why its cells cannot be tested ('' where they can): no finished embedding of that dimension. Its
    reconstruction (MAP) is reported beside the cells, not held to a level: the paper's protocol gives none."""
    return {dim: "" if dim in emb_map else prose.fill("hnn", "no_embedding") for dim in DIMS}


def _flagged_reason(read: pd.DataFrame, flags) -> str:
    """Why a cell is not testable ('' where it is): the first of `flags` (columns `flagged` adds) that some of
    the runs it reads have (templates/hnn.md), naming them by dimension and classifier (and seed, for
    not_learned)."""
    for flag in flags if len(read) else ():
        hit = read[read[flag].astype(bool)].sort_values(["dim", "geometry", "seed"])
        named = dict.fromkeys(
            f"{r.dim}-D {CLASSIFIERS[r.geometry]}" + (f" seed {r.seed}" if flag == "not_learned" else "")
            for r in hit.itertuples()
        )
        if named:
            return prose.fill("hnn", flag, runs=", ".join(named))
    return ""


def _too_few(arms) -> str:
    """Why arms of fewer than 2 seeds each are not judged ('' where they are not)."""
    return prose.fill("hnn", "too_few", a=len(arms[0]), b=len(arms[1])) if min(map(len, arms)) < 2 else ""


def verdicts(values: pd.DataFrame, emb_map: dict[int, float], gaps: dict | None = None) -> list[engine.Verdict]:
    """The two Table 2 claims, cell by cell, their runs selected by the cells' settings (Cell.select): test
    F1 per seed of the hyperbolic MLR against each Euclidean one (Welch; not where neither finds the
    subtree, F1 zero on every seed of both); the margin per seed (`_margins`) in a low dimension against
    10-D, judged where every classifier learned. Not testable below the precondition, with runs `flagged`
    (`gaps`: table2_runs.reference_gaps) or fewer than 2 seeds an arm."""
    why, values, rows = untestable(emb_map), flagged(values, gaps or {}), []
    claim = CLAIMS[OUTPERFORMS]
    for cell in claim.cells:
        read = values[select.any_of(values, cell.select.values())]
        arms = [100 * values[select.chosen(values, cell.select[arm])].f1.to_numpy() for arm in cell.arms]
        none_found = prose.fill("hnn", "none_found") if all(len(a) and not a.any() for a in arms) else ""
        rows.append(
            engine.judged(
                claim,
                cell,
                arms,
                why[cell.where["data.dim"]]
                or _flagged_reason(read, ("unconverged", "unstable"))
                or none_found
                or _too_few(arms),
                runs=list(read.run),
            )
        )
    claim = CLAIMS[LOW_DIMENSIONS]
    for cell in claim.cells:
        read = values[select.any_of(values, cell.select.values())]
        dims = [cell.select[arm]["data.dim"] for arm in cell.arms]
        arms = [_margins(values[select.chosen(values, cell.select[arm])]) for arm in cell.arms]
        rows.append(
            engine.judged(
                claim,
                cell,
                arms,
                "; ".join(f"{d}-D: {why[d]}" for d in dims if why[d])
                or _flagged_reason(read, ("not_learned", "unconverged", "unstable"))
                or _too_few(arms),
                runs=list(read.run),
            )
        )
    return rows


def _margins(values: pd.DataFrame) -> list[float]:
    """Per seed with all three classifiers of `values` (one subtree and dimension): F1 points of the
    hyperbolic MLR minus the Euclidean MLR whose mean is the higher."""
    f1 = values.pivot_table("f1", "seed", "geometry")
    if f1.empty or not set(GEOMETRIES) <= set(f1.columns):
        return []
    f1 = 100 * f1.dropna()
    better = max((g for g in GEOMETRIES if g != "hyperbolic"), key=lambda g: f1[g].mean())  # the Euclidean MLRs
    return list(f1["hyperbolic"] - f1[better])


def settings(e, protocols: dict[str, dict]) -> str:
    """The settings of the profile's embedding config (e) beside the reference code's, and the protocol the
    classifiers shown were trained with (`protocols`: runs.hnn_table2.protocols; f1_values keeps no other runs)."""
    sampling = {"natural-mix" if p["data.natural_mix"] else "balanced" for p in protocols.values()}
    shown = {
        name: _setting(protocols, key, default)
        for name, key, default in (  # template field, config key, if None
            ("epochs", "trainer.epochs", "-"),
            ("batch", "data.batch_size", "-"),
            ("lr", "optim.lr", "-"),
            ("ball_lr", "optim.ball_lr", "-"),
            ("clip", "optim.clip_norm", "none"),
            ("decay", "optim.epoch_lr_factor", "1"),
        )
    }
    return prose.fill(
        "hnn",
        "table2_settings",
        negatives=e.data.negatives,
        dtype=e.trainer.dtype,
        **shown,
        nodes=e.data.eval_nodes or "all",
        code=CLAIMS.references["nickel_kiela_code"].values,
        sampling=" and ".join(sorted(sampling)),
    )


def _setting(protocols: dict[str, dict], key: str, default: str) -> str:
    """The classifiers' setting `key` as text (`default` where None); where they differ, each value with
    its classifiers: "0.3 (Euclidean MLR, ...), 0.1 (hyperbolic MLR)"."""
    each = {
        g: default if p[key] is None else f"{p[key]:g}" if isinstance(p[key], float) else str(p[key])
        for g, p in sorted(protocols.items())
    }
    values = list(dict.fromkeys(each.values()))
    return (
        values[0]
        if len(values) == 1
        else ", ".join(f"{value} ({', '.join(CLASSIFIERS[g] for g in each if each[g] == value)})" for value in values)
    )


def make(runs_dir: Path, profile: str, out: Path, seeds=None, overrides=()) -> list[Path]:
    """Write table2_f1, table2_embeddings, table2_claims, table2_burnin (once the burn-in ablation has
    runs), the page table2.md and, where the run folders are here, fig_table2_boundaries into `out`.
    `seeds` and `overrides` are ignored (the signature is every report's): Table 2 shows every seed run."""
    e, c = (compose([f"experiment=hnn/{name}", f"profile={profile}"]) for name in ("poincare", "table2"))
    runs, curves = run_table.load(runs_dir, "hnn", profile, out)
    runs = select.finished(runs)
    protocols = table2_runs.protocols(profile)
    every_emb = table2_runs.embeddings(runs, curves, c.data.hierarchy, REFERENCE)
    every_value = table2_runs.f1_values(runs, protocols)
    if every_value.empty and every_emb.empty:
        raise FileNotFoundError(prose.fill("hnn", "table2_no_runs", out=out, runs_dir=runs_dir, profile=profile))
    values, emb = table2_runs.classified(every_value, every_emb, lookup.table2_embeddings(profile, c, DIMS))
    every_emb["table2"], emb_map = every_emb.run.isin(emb.run), dict(zip(emb.dim, emb["map"]))
    made = prose.fill(
        "hnn",
        "table2_made",
        profile=profile,
        classifiers=len(values),
        embeddings=len(emb),
        seeds=", ".join(map(str, sorted(values.seed.unique()))) or "-",
        commits=run_table.commits(runs[runs.run.isin(set(values.run) | set(emb.run))]),
    )
    gaps, burnin = table2_runs.reference_gaps(out), table2_runs.burnin(runs, curves)
    table = table2(values, emb_map, gaps)
    reference = pd.read_csv(out / REFERENCE_CSV) if (out / REFERENCE_CSV).is_file() else pd.DataFrame()
    fields = {"profile": profile, "made": made, "experiment": BURNIN}
    if len(burnin):  # the burn-in caption's
        fields |= {"hierarchy": burnin.hierarchy[0], "dim": burnin.dim[0], "epochs": int(burnin.epochs.max())}
    section = functools.partial(table_engine.section, "hnn", out, **fields)  # templates/hnn.md's <stem>_*
    embeddings, f1 = table_engine.displayed("hnn", "table2_embeddings", every_emb), shown_table2(table)
    section("table2_embeddings", every_emb, embeddings)
    section("table2_f1", table, *f1)
    burnin_section = section("table2_burnin", burnin) if len(burnin) else ""
    if len(reference):  # the evaluation's CSV, left as it is
        section("table2_reference", None, table_engine.displayed("hnn", "table2_reference", reference))
    claims = render.write(
        out,
        "table2_claims",
        provenance.final(verdicts(values, emb_map, gaps), runs, "hnn"),
        prose.fill("hnn", "table2_claims_title", profile=profile),
    )
    figure = boundaries.figure(values, emb, Path(runs_dir) / "hnn" / profile, c, out)
    page = prose.fill(
        "hnn",
        "table2_page",
        profile=profile,
        made=made,
        settings=settings(e, protocols),
        claims=claims,
        embeddings=tables.markdown(embeddings),
        f1=tables.markdown(*f1),
    )
    (out / "table2.md").write_text("\n".join([page, "", *filter(None, [figure, burnin_section])]))
    stems = ["table2_embeddings", "table2_f1", *["table2_burnin"] * bool(len(burnin))]
    stems += [*["table2_reference"] * bool(len(reference)), "table2_claims"]
    return [*(out / f"{stem}.{ext}" for stem in stems for ext in ("csv", "md", "tex")), out / "table2.md"]
