"""Ganea et al.'s Table 2 (claims/hnn_tables.yaml's table2_f1: F1 of the hyperbolic vs the Euclidean MLRs on
WordNet noun subtrees) and its claims (report.hnn_table2_claims), beside the Poincare embeddings it classifies,
the burn-in ablation (experiment=hnn/burnin) and the boundary figure (its data: evaluate.table2_boundaries),
from the runs' rows (runs.hnn_table2) of the per-run data in results/hnn/<profile>/ and the ended runs under
runs/hnn/<profile>/.

    python -m noneuclid.report hnn table2 [--runs runs] [--profile cpu]
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from noneuclid import tables
from noneuclid.claims.estimates import Estimate, difference_interval
from noneuclid.config import compose
from noneuclid.figures import hnn as drawn
from noneuclid.report import hnn_table2_claims as table2_claims, provenance, table_engine
from noneuclid.report.hnn_claims import CLAIMS, CLASSIFIERS, text
from noneuclid.runs import hnn_table2 as table2_runs, select, table as run_table
from noneuclid.runs.hnn_table2 import BURNIN, TABLE2_PROTOCOL

F1, EMBEDDINGS = "table2_f1", "table2_embeddings"  # claims/hnn_tables.yaml's
REFERENCE_CSV, NICKEL_KIELA = "table2_reference.csv", "nickel_kiela_reconstruction"  # an evaluation's; a reference


def f1_table(values: pd.DataFrame, gaps: dict | None = None) -> pd.DataFrame:
    """Table 2's data (claims/hnn_tables.yaml's table2_f1) from the classifier runs' `values` (f1_values)."""
    return table_engine.data("hnn", F1, table2_claims.flagged(values, gaps or {}), table_engine.cells("hnn", F1))


def burnin_rows(runs: pd.DataFrame, curves: pd.DataFrame) -> pd.DataFrame:
    """claims/hnn_tables.yaml's table2_burnin: one row per burn-in of experiment=hnn/burnin, the reference's
    first (the highest lr factor; negatives by frequency before uniform), with the 95 % interval of its MAP minus
    the first row's; empty without runs."""
    found = runs[select.chosen(runs, {"experiment_name": BURNIN})] if len(runs) else runs
    if found.empty:
        return found
    last = table2_runs.last_reconstruction(found, curves)
    last = last.assign(uniform=last.burnin_negatives.str.contains("uniform"))
    last = last.sort_values(["cfg.optim.burnin_factor", "uniform", "burnin_negatives"], ascending=[False, True, True])
    data = table_engine.summarised("hnn", "table2_burnin", last)
    aps = [Estimate(*ap) for ap in zip(data["map"], data.map_se, data.seeds)]
    low, high = zip(*[(math.nan, math.nan), *(difference_interval(ap, aps[0]) for ap in aps[1:])])
    data = data.assign(map_minus_first_low=low, map_minus_first_high=high)
    return data[[*data.columns.drop("epochs"), "epochs"]]


def settings(e, protocols: dict[str, dict]) -> str:
    """The settings of the profile's embedding config (e) beside the reference code's, and the protocol the
    classifiers shown were trained with (`protocols`: runs.hnn_table2.protocols; f1_values keeps no other runs)."""
    sampling = sorted({"natural-mix" if p["data.natural_mix"] else "balanced" for p in protocols.values()})
    return text(
        "table2_settings",
        negatives=e.data.negatives,
        dtype=e.trainer.dtype,
        nodes=e.data.eval_nodes or "all",
        code=CLAIMS.references["nickel_kiela_code"].values,
        sampling=" and ".join(sampling),
        p={key: _setting(protocols, key) for key in TABLE2_PROTOCOL},
    )


def _setting(protocols: dict[str, dict], key: str) -> str:
    """The classifiers' setting `key` as text ('none' where unset); where they differ, each value with
    its classifiers: "0.3 (Euclidean MLR, ...), 0.1 (hyperbolic MLR)"."""
    each = {
        g: "none" if p[key] is None else f"{p[key]:g}" if isinstance(p[key], float) else str(p[key])
        for g, p in sorted(protocols.items())
    }
    values = list(dict.fromkeys(each.values()))
    named = [f"{value} ({', '.join(CLASSIFIERS[g] for g in each if each[g] == value)})" for value in values]
    return values[0] if len(values) == 1 else ", ".join(named)


def boundaries(values: pd.DataFrame, out: Path, profile: str) -> str:
    """The boundary figure (figures.hnn.boundaries) drawn in `out` from its data there (written by `python -m
    noneuclid.evaluate table2-boundaries`); without them, where `values` have 2-D runs, says so. Returns the
    figure in words (fig_table2_boundaries.md, kept with it; '' without)."""
    if (out / drawn.POINTS).is_file() and (out / drawn.GRID).is_file():
        drawn.boundaries(pd.read_csv(out / drawn.POINTS), pd.read_csv(out / drawn.GRID), out)
    elif not values[values.dim == 2].empty:
        print(text("boundaries_not_drawn", stem=out / drawn.BOUNDARIES, profile=profile, out=out))
    caption = out / f"{drawn.BOUNDARIES}.md"
    return caption.read_text() if caption.is_file() else ""


def make(runs_dir: Path, profile: str, out: Path) -> list[Path]:
    """Write table2_embeddings, table2_f1, table2_burnin (once the burn-in ablation has runs), table2_reference
    (once evaluated), table2_claims, the page table2.md and fig_table2_boundaries into `out`: every seed run."""
    e, c = (compose([f"experiment=hnn/{name}", f"profile={profile}"]) for name in ("poincare", "table2"))
    runs, curves = run_table.load(runs_dir, "hnn", profile, out)
    runs, protocols = select.finished(runs), table2_runs.protocols(profile)
    values, shown, found = table2_runs.shown(runs, curves, profile, c.data, CLAIMS.references[NICKEL_KIELA].values)
    if found.empty and not select.chosen(runs, {"model.name": "point_mlr"}).any():
        raise FileNotFoundError(text("table2_no_runs", out=out, runs_dir=runs_dir, profile=profile))
    every_emb = table_engine.frame("hnn", EMBEDDINGS, found)
    every_emb["table2"] = every_emb.run.isin(shown.run)
    emb = every_emb[every_emb.table2]
    emb_map = dict(zip(emb.dim, emb["map"]))
    made = text(
        "table2_made",
        profile=profile,
        classifiers=len(values),
        embeddings=len(emb),
        seeds=", ".join(map(str, sorted(values.seed.unique()))) or "-",
        commits=run_table.commits(runs[runs.run.isin(set(values.run) | set(emb.run))]),
    )
    reference = pd.read_csv(out / REFERENCE_CSV) if (out / REFERENCE_CSV).is_file() else pd.DataFrame()
    gaps, burnin = table2_claims.reference_gaps(reference), burnin_rows(runs, curves)
    f1, embeddings = f1_table(values, gaps), table_engine.displayed("hnn", EMBEDDINGS, every_emb)
    f1_shown = table_engine.shown("hnn", F1, f1), table_engine.bold("hnn", F1, f1)
    written = {EMBEDDINGS: (every_emb, embeddings), F1: (f1, *f1_shown)}  # stem -> its data[, shown, bold]
    fields = {"profile": profile, "made": made, "experiment": BURNIN}
    if len(burnin):  # with its caption's fields
        fields |= {"hierarchy": burnin.hierarchy[0], "dim": burnin.dim[0], "epochs": int(burnin.epochs.max())}
        written["table2_burnin"] = (burnin,)
    if len(reference):  # the evaluation's CSV, left as it is
        written["table2_reference"] = (None, table_engine.displayed("hnn", "table2_reference", reference))
    # each under templates/hnn.md's <stem>_title and <stem>_caption
    sections = {stem: table_engine.section("hnn", out, stem, *table, **fields) for stem, table in written.items()}
    judged = table2_claims.verdicts(values, emb_map, gaps)
    claims = provenance.write(out, "table2_claims", judged, runs, "hnn", text("table2_claims_title", profile=profile))
    figure = boundaries(values, out, profile)
    page = text(
        "table2_page",
        profile=profile,
        made=made,
        settings=settings(e, protocols),
        claims=claims,
        embeddings=tables.markdown(embeddings),
        f1=tables.markdown(*f1_shown),
    )
    (out / "table2.md").write_text("\n".join([page, "", *filter(None, [figure, sections.get("table2_burnin")])]))
    return tables.files(out, [*sections, "table2_claims"], "table2")
