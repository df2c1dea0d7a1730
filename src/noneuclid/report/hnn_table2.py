"""Ganea et al.'s Table 2 (F1 of hyperbolic vs Euclidean MLR on WordNet noun subtrees), the
reconstruction quality of the Poincare embeddings it classifies, and the claims table, from the per-run
data in results/hnn/<profile>/ (runs.csv, curves.csv.gz; see report.run_table) after merging into it the
ended runs under runs/hnn/<profile>/; the figure of the learned decision boundaries in the 2-D ball
needs the run folders (their checkpoints) and is left as it is without them.

    python -m noneuclid.report hnn table2 [--runs runs] [--profile cpu]

writes results/hnn/<profile>/{table2_f1, table2_embeddings, table2_claims}.{csv,md,tex}, the page
table2.md (all three and the figure) and fig_table2_boundaries.{png,pdf}; for the cpu and paper
profiles the report command then refreshes the claims digest of docs/hnn.md (report.docs).
"""

from __future__ import annotations

import functools
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import torch  # noqa: E402
import yaml  # noqa: E402
from omegaconf import OmegaConf  # noqa: E402

from noneuclid.claims import data as claims_data, engine, render  # noqa: E402
from noneuclid.config import compose  # noqa: E402
from noneuclid.data import wordnet  # noqa: E402
from noneuclid.models.mlr import GEOMETRIES, PointMLR  # noqa: E402
from noneuclid.report import figures, hnn_burnin, run_table, tables  # noqa: E402
from noneuclid.report.estimates import t975  # noqa: E402
from noneuclid.runs.settings import device_type, digest_settings  # noqa: E402
from noneuclid.runs.lookup import poincare_embedding  # noqa: E402

DIMS = (2, 3, 5, 10)
LABELS = {"hyperbolic": "hyperbolic MLR", "euclidean": "Euclidean MLR", "euclidean_log0": "Euclidean MLR on log_0"}
COLORS = {"hyperbolic": "tab:red", "euclidean": "tab:blue", "euclidean_log0": "tab:green"}
# Reconstruction of the noun closure by Poincare embeddings: Nickel & Kiela (2017), Table 1
RECONSTRUCTION_REFERENCE = {5: (4.9, 0.823), 10: (4.02, 0.851)}
NOT_AVAILABLE = "not available here"
# Table 2 tests the classifiers only on embeddings that reconstruct the hierarchy: a dimension whose
# embedding's MAP (all nouns) is below this, or was not evaluated, has its cells "not testable here".
MIN_EMBEDDING_MAP = 0.5
CLAIMS = claims_data.load("hnn")
AT_LEAST_AS_GOOD, LOW_DIMENSIONS = "table2_hyperbolic_mlr_at_least_as_good", "table2_margin_largest_in_low_dimensions"


def per_run(runs_dir, profile: str, out: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(runs, curves): out/runs.csv and out/curves.csv.gz after merging the ended runs under
    runs_dir/hnn/<profile> into them; the ended runs only (status done)."""
    runs, curves = run_table.load(runs_dir, "hnn", profile, out)
    return (runs[runs.status == "done"] if len(runs) else runs), curves


def embeddings(runs: pd.DataFrame, curves: pd.DataFrame, hierarchy: str) -> pd.DataFrame:
    """One row per finished embedding run of `hierarchy` (the burn-in ablation's aside), by dimension:
    its recipe, epochs, training minutes, the last reconstruction (nodes ranked, mean rank, MAP) and
    the reference's, NaN where it has none."""
    rows = []
    found = runs[(runs["cfg.model.name"] == "poincare_embedding") & (runs["cfg.data.hierarchy"] == hierarchy)
                 & (runs.experiment != hnn_burnin.EXPERIMENT)] if len(runs) else runs
    for run in found.sort_values(["cfg.model.dim", "cfg.data.batch_size"]).itertuples() if len(found) else ():
        run = found.loc[run.Index]
        evaluated = curves[(curves.run == run.run) & curves.reconstruction_map.notna()]
        last = evaluated.iloc[-1]
        dim = int(run["cfg.model.dim"])
        reference = RECONSTRUCTION_REFERENCE.get(dim, (float("nan"), float("nan")))
        rows.append({"dim": dim, "epochs": int(run.epochs), **_recipe(run), "train_minutes": run.train_seconds / 60,
                     "evaluated_at_epoch": int(last.epoch), "nodes_ranked": int(last.reconstruction_nodes),
                     "mean_rank": last.reconstruction_mean_rank, "map": last.reconstruction_map,
                     "reference_mean_rank": reference[0], "reference_map": reference[1], "run": run.run})
    return pd.DataFrame(rows, columns=["dim", "epochs", *RECIPE, "train_minutes", "evaluated_at_epoch",
                                       "nodes_ranked", "mean_rank", "map", "reference_mean_rank", "reference_map", "run"])


def embedding_of(row: pd.Series) -> str:
    """The run name of the Poincare embedding a classifier's runs.csv row classified (as the subtree
    task finds it: runs.lookup.poincare_embedding), on the device the classifier ran on."""
    overrides = row.get("cfg.data.embedding_overrides")
    overrides = [] if pd.isna(overrides) else yaml.safe_load(str(overrides)) or []
    cuda = not pd.isna(row.get("env.cuda")) and row.get("env.cuda") != ""
    return _embedding_name(str(row["cfg.profile.name"]), int(row["cfg.data.dim"]), str(row["cfg.data.hierarchy"]),
                           int(row["cfg.data.embedding_seed"]), str(row["cfg.trainer.device"]), tuple(overrides), cuda)


@functools.cache
def _embedding_name(profile: str, dim: int, hierarchy: str, seed: int, device: str, overrides: tuple,
                    cuda: bool) -> str:
    """The folder name that these overrides give on a machine with (cuda) or without a GPU."""
    cfg = compose(poincare_embedding(profile, dim, hierarchy, seed, device, overrides))
    return f"{cfg.study.run_name}-{digest_settings(OmegaConf.to_container(cfg, resolve=True), device_type(device, cuda))}"


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


RECIPE = ("batch_size", "lr", "burnin_epochs", "burnin_factor", "burnin_negatives")  # an embedding run's


def _recipe(run: pd.Series) -> dict:
    """The embedding run's batch, lr and burn-in, from its config columns."""
    return {"batch_size": int(run["cfg.data.batch_size"]), "lr": float(run["cfg.optim.lr"]),
            "burnin_epochs": int(run["cfg.optim.burnin_epochs"]), "burnin_factor": float(run["cfg.optim.burnin_factor"]),
            "burnin_negatives": hnn_burnin.draws(run.get("cfg.data.burnin_negatives"), run["cfg.data.negatives"])}


def f1_values(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per finished classifier run: subtree, dim, geometry, seed, test F1 (last epoch), run, and
    the run name of the embedding it classified."""
    found = runs[runs["cfg.model.name"] == "point_mlr"] if len(runs) else runs
    columns = {"cfg.data.subtree": "subtree", "cfg.data.dim": "dim", "cfg.model.geometry": "geometry",
               "cfg.seed": "seed", "final_test_f1": "f1", "run": "run"}
    if found.empty:
        return pd.DataFrame(columns=[*columns.values(), "embedding"])
    values = found[list(columns)].rename(columns=columns).astype({"dim": int, "seed": int}).reset_index(drop=True)
    values["embedding"] = [embedding_of(row) for _, row in found.iterrows()]
    twice = values[values.duplicated(["subtree", "dim", "geometry", "seed", "embedding"], keep=False)]
    if len(twice):  # e.g. classifiers of an earlier embedding of that dimension beside the current one's
        raise ValueError(f"several finished runs of one Table 2 cell, seed and embedding: {', '.join(twice.run)}; "
                         "drop the stale rows")
    return values


def untestable(emb_map: dict[int, float]) -> dict[int, str]:
    """dim -> why its cells cannot be tested (an empty string where they can), from the embedding's MAP."""
    return {dim: "" if emb_map.get(dim, 0.0) >= MIN_EMBEDDING_MAP else
            f"embedding MAP {emb_map[dim]:.3f} < {MIN_EMBEDDING_MAP}" if dim in emb_map else
            "no finished embedding" for dim in DIMS}


def table2(values: pd.DataFrame, emb_map: dict[int, float]) -> pd.DataFrame:
    """One row per subtree, dimension and classifier: the embedding's MAP (the precondition), then
    test F1 % over the seeds as n, mean, s.d., s.e. and the 95 % Student-t interval, or why the cell is
    not testable; the paper's value (not available here)."""
    rows, why = [], untestable(emb_map)
    for subtree in wordnet.SUBTREES:
        for dim in DIMS:
            for geometry in GEOMETRIES:
                f1 = 100 * values[(values.subtree == subtree) & (values.dim == dim) & (values.geometry == geometry)].f1
                n, mean = len(f1), f1.mean() if len(f1) else float("nan")
                sd = f1.std(ddof=1) if n > 1 else float("nan")
                half = t975(n - 1) * sd / n ** 0.5 if n > 1 else float("nan")
                rows.append({"subtree": subtree, "dim": dim, "embedding_map": emb_map.get(dim, float("nan")),
                             "classifier": geometry, "n": n, "f1_mean": mean, "f1_sd": sd,
                             "f1_se": sd / n ** 0.5 if n > 1 else float("nan"), "f1_ci_low": mean - half,
                             "f1_ci_high": mean + half, "not_testable": why[dim], "paper": NOT_AVAILABLE})
    return pd.DataFrame(rows)


def shown_table2(table: pd.DataFrame) -> tuple[pd.DataFrame, set]:
    """(one row per subtree and dimension with 'mean ± s.e. (n)' per classifier, the cells of the best
    mean in each row to set in bold)."""
    rows, bold = [], set()
    for (subtree, dim), cell in table.groupby(["subtree", "dim"], sort=False):
        row = {"subtree": subtree, "dim": str(dim), "embedding MAP": _number(cell.embedding_map.iloc[0], ".3f")}
        for r in cell.itertuples():
            row[LABELS[r.classifier]] = ("not testable here" if r.not_testable else "not run" if r.n == 0 else
                                         f"{r.f1_mean:.2f} ± {r.f1_se:.2f} (n={r.n})" if r.n > 1
                                         else f"{r.f1_mean:.2f} (n=1)")
        tested = cell[(cell.n > 0) & (cell.not_testable == "")]
        if len(tested) > 1:
            bold.add((len(rows), LABELS[tested.loc[tested.f1_mean.idxmax(), "classifier"]]))
        row["paper"] = NOT_AVAILABLE
        rows.append(row)
    return pd.DataFrame(rows), bold


def shown_embeddings(emb: pd.DataFrame) -> pd.DataFrame:
    """The embeddings table in words: our mean rank and MAP beside the reference's."""
    return pd.DataFrame([{"dim": str(r.dim), "epochs": str(r.epochs), "batch x lr": f"{r.batch_size} x {r.lr:g}",
                          "burn-in": f"{r.burnin_epochs} epochs at x{r.burnin_factor:g}, negatives {r.burnin_negatives}",
                          "Table 2": "classified" if r.table2 else "-",
                          "train minutes": f"{r.train_minutes:.0f}",
                          "nodes ranked": f"{r.nodes_ranked:,}", "mean rank": f"{r.mean_rank:.2f}", "MAP": f"{r.map:.3f}",
                          "Nickel & Kiela (mean rank / MAP)": NOT_AVAILABLE if pd.isna(r.reference_map)
                          else f"{r.reference_mean_rank:g} / {r.reference_map:g}"} for r in emb.itertuples()],
                        columns=["dim", "epochs", "batch x lr", "burn-in", "Table 2", "train minutes", "nodes ranked",
                                 "mean rank", "MAP", "Nickel & Kiela (mean rank / MAP)"])


def _number(x: float, fmt: str) -> str:
    return "-" if pd.isna(x) else f"{x:{fmt}}"


def verdicts(values: pd.DataFrame, emb_map: dict[int, float]) -> list[engine.Verdict]:
    """The two Table 2 claims of claims/hnn.yaml, cell by cell: test F1 per seed of the hyperbolic MLR
    against each Euclidean one (Welch: the classifiers do not share their initial weights); the
    margin per seed (hyperbolic minus the better Euclidean MLR by mean) in 2-D against 10-D. A cell of
    a dimension below the precondition is not testable here."""
    why, rows = untestable(emb_map), []
    claim = CLAIMS[AT_LEAST_AS_GOOD]
    for cell in claim.cells:
        subtree, dim = cell.name.split(", ")[0], int(cell.name.split(", ")[1].removesuffix("-D"))
        arms = [100 * values[(values.subtree == subtree) & (values.dim == dim) & (values.geometry == g)].f1.to_numpy()
                for g in cell.arms]
        rows.append(_judged(claim, cell, arms, why[dim]))
    claim = CLAIMS[LOW_DIMENSIONS]
    for cell in claim.cells:
        subtree = cell.name.split(", ")[0]
        arms = [_margins(values, subtree, int(arm.removeprefix("d"))) for arm in cell.arms]
        reason = "; ".join(f"{arm[1:]}-D: {why[int(arm[1:])]}" for arm in cell.arms if why[int(arm[1:])])
        rows.append(_judged(claim, cell, arms, reason))
    return rows


def _judged(claim, cell, arms, reason: str) -> engine.Verdict:
    """engine.judge of the per-seed values of the two arms, or not testable for `reason` or too few seeds."""
    if reason:
        return engine.untestable(claim, cell, reason, *map(len, arms))
    if min(map(len, arms)) < 2:
        return engine.untestable(claim, cell, f"fewer than 2 finished seeds in an arm ({len(arms[0])}, {len(arms[1])})",
                                 *map(len, arms))
    return engine.judge(claim, cell, *arms)


def _margins(values: pd.DataFrame, subtree: str, dim: int) -> list[float]:
    """Per seed with all three classifiers: F1 points of the hyperbolic MLR minus the Euclidean MLR
    whose mean is the higher."""
    f1 = values[(values.subtree == subtree) & (values.dim == dim)].pivot_table("f1", "seed", "geometry")
    if f1.empty or not set(GEOMETRIES) <= set(f1.columns):
        return []
    f1 = 100 * f1.dropna()
    better = max(("euclidean", "euclidean_log0"), key=lambda g: f1[g].mean())
    return list(f1["hyperbolic"] - f1[better])


@torch.no_grad()
def figure(values: pd.DataFrame, emb: pd.DataFrame, root: Path, hierarchy: str, generated_dir,
           out: Path) -> list[str] | None:
    """For the 2-D embedding: the ball with each subtree's points against the rest and the decision
    boundaries (logit difference 0 on a grid) of the three classifiers trained with seed 0, from
    their run folders under `root`, a legend on every panel. Returns a sentence for each boundary that
    falls outside the ball (no sign change of the logit difference inside it), or None if there is no
    2-D run or its folders are not here."""
    seed0 = values[(values.dim == 2) & (values.seed == 0)]
    folders = [root / run for run in (*emb[emb.dim == 2].run, *seed0.run)]
    if seed0.empty or emb[emb.dim == 2].empty or not all((f / "checkpoint.pt").is_file() for f in folders):
        return None
    points = torch.load(folders[0] / "checkpoint.pt", map_location="cpu", weights_only=False)["model"]["weight"]
    h = wordnet.load(hierarchy, generated_dir)
    grid = torch.linspace(-1, 1, 401, dtype=points.dtype)
    gx, gy = torch.meshgrid(grid, grid, indexing="xy")
    inside = gx ** 2 + gy ** 2 < 0.999
    xy = torch.stack([gx, gy], -1) * inside[..., None]  # outside the ball: masked below
    fig, axes = plt.subplots(1, len(wordnet.SUBTREES), figsize=(4 * len(wordnet.SUBTREES), 4.4),
                             constrained_layout=True)
    outside = []
    for ax, subtree in zip(axes, wordnet.SUBTREES):
        pos = h.descendants(subtree)
        ax.add_patch(plt.Circle((0, 0), 1, fill=False, lw=0.8))
        ax.scatter(*points[~pos].T, s=0.2, c="0.75", rasterized=True, label="other nouns")
        ax.scatter(*points[pos].T, s=0.5, c="k", rasterized=True, label="subtree")
        for geometry in GEOMETRIES:
            row = seed0[(seed0.subtree == subtree) & (seed0.geometry == geometry)]
            if row.empty:
                continue
            margin = _margin(root / row.run.iloc[0], geometry, xy, points.dtype).masked_fill(~inside, float("nan"))
            if not (margin[inside] > 0).any() or not (margin[inside] < 0).any():
                outside.append(f"{subtree}, {LABELS[geometry]}: the decision boundary lies outside the ball "
                               f"(every point is classified {'in' if (margin[inside] > 0).all() else 'out of'} the subtree).")
            else:
                ax.contour(gx, gy, margin, levels=[0], colors=COLORS[geometry], linewidths=1.2)
            ax.plot([], [], c=COLORS[geometry], label=LABELS[geometry])
        ax.set(xlim=(-1.02, 1.02), ylim=(-1.02, 1.02), aspect="equal", title=f"{subtree} (2-D)")
        ax.axis("off")
        ax.legend(fontsize=6, loc="lower left", markerscale=8)
    fig.suptitle("Decision boundaries of the three classifiers in the 2-D Poincare ball (classifiers of seed 0; "
                 "the paper draws none)", fontsize=9)
    figures.save(fig, out)
    return outside


def _margin(folder: Path, geometry: str, xy: torch.Tensor, dtype) -> torch.Tensor:
    """The trained classifier's logit difference (subtree - rest) at the points xy [..., 2]."""
    model = PointMLR(2, geometry).to(dtype)
    model.load_state_dict(torch.load(folder / "checkpoint.pt", map_location="cpu", weights_only=False)["model"])
    logits = model(xy)
    return logits[..., 1] - logits[..., 0]


def settings(e, c) -> str:
    """The settings of the profile's embedding (e) and classifier (c) configs, in words (each embedding's
    batch, lr and burn-in are in its row of the embeddings table)."""
    return (f"Settings: embeddings {e.data.negatives} negatives per edge, {e.trainer.dtype}, reconstruction on "
            f"{e.data.eval_nodes or 'all'} nodes (the reference code: 1500 epochs per process, batches of 50, lr 1.0, "
            "20 burn-in epochs at x0.1 with 5 negatives by frequency); "
            f"classifiers {c.trainer.epochs} epoch(s) of balanced batches of {c.data.batch_size}, Adam lr "
            f"{c.optim.lr}, Riemannian SGD lr {c.optim.ball_lr} for p_k.")


def make(runs_dir: Path, profile: str, out: Path) -> list[Path]:
    """Write table2_f1, table2_embeddings, table2_claims (CSV, Markdown, LaTeX), the page table2.md
    and, where the run folders are here, fig_table2_boundaries.{png,pdf} into `out`."""
    e = compose(["experiment=hnn/poincare", f"profile={profile}"])
    c = compose(["experiment=hnn/table2", f"profile={profile}"])
    runs, curves = per_run(runs_dir, profile, out)
    every_emb, every_value = embeddings(runs, curves, c.data.hierarchy), f1_values(runs)
    own = {}  # dim -> the profile's own embedding, trained on the CPU or on a GPU
    for dim in DIMS:
        names = [_embedding_name(profile, dim, c.data.hierarchy, c.data.embedding_seed, c.trainer.device, (), cuda)
                 for cuda in (False, True)]
        own[dim] = next((n for n in names if n in set(every_emb.run)), names[0])
    values, emb = classified(every_value, every_emb, own)
    every_emb["table2"] = every_emb.run.isin(emb.run)
    if every_value.empty and every_emb.empty:
        raise FileNotFoundError(f"no finished Table 2 runs in {out}/runs.csv nor under {runs_dir}/hnn/{profile}: run "
                                f"`python -m noneuclid.train -m experiment=hnn/poincare profile={profile}` and then "
                                f"`python -m noneuclid.train -m experiment=hnn/table2 profile={profile}` first")
    emb_map = dict(zip(emb.dim, emb["map"]))
    made = (f"Made by `python -m noneuclid.train -m experiment=hnn/poincare profile={profile}`, "
            f"`python -m noneuclid.train -m experiment=hnn/table2 profile={profile}` and "
            f"`python -m noneuclid.report hnn table2 --profile {profile}` from {len(values)} finished classifier runs "
            f"(seeds {', '.join(map(str, sorted(values.seed.unique()))) or '-'}) and {len(emb)} embeddings; "
            f"runs of commit {_commits(runs, set(values.run) | set(emb.run))}.")
    table = table2(values, emb_map)
    shown, bold = shown_table2(table)
    rows = verdicts(values, emb_map)
    written = [*tables.write(out, "table2_embeddings", every_emb, shown_embeddings(every_emb),
                             f"Poincare embeddings of the WordNet noun closure ({profile} profile)",
                             "Reconstruction over all nodes at the last evaluation, beside Nickel & Kiela's Table 1; "
                             "Table 2 "
                             "classifies in each dimension the profile's own recipe where it has finished (else the "
                             "earlier recipe's). " + made),
               *tables.write(out, "table2_f1", table, shown, f"Ganea et al., Table 2: test F1 % ({profile} profile)",
                             f"Mean ± standard error over seeds (n; the 95 % interval in the CSV); best mean in bold; a "
                             f"dimension whose embedding's MAP is below {MIN_EMBEDDING_MAP} is not testable here. "
                             "The paper's F1 values are not in the stored paper text. " + made, bold)]
    tables.write_claims(out, "table2_claims", rows,
                        f"Ganea et al., Table 2: the paper's claims ({profile} profile)")
    written += [*(out / f"table2_claims.{ext}" for ext in ("csv", "md", "tex")), *_write_burnin(out, runs, curves, profile)]
    caption = out / "fig_table2_boundaries.md"  # what the figure shows in words, kept with it
    _boundaries(values, emb, Path(runs_dir) / "hnn" / profile, c, out)
    (out / "table2.md").write_text("\n".join([
        f"# Ganea et al., Table 2: hyperbolic vs Euclidean MLR on WordNet noun subtrees ({profile} profile)", "",
        made, "", settings(e, c), "",
        "## Poincare embeddings of the noun closure (reconstruction)", "",
        tables.markdown(shown_embeddings(every_emb)), "",
        "## Table 2: test F1 %", "", "Mean ± standard error over seeds (n); best mean in bold.", "",
        tables.markdown(shown, bold), "", "## The paper's claims", "", render.to_markdown(rows), "",
        *([caption.read_text()] if caption.is_file() else []),
        *([(out / "table2_burnin.md").read_text().replace("# ", "## ", 1)] if (out / "table2_burnin.md").is_file() else []),
    ]))
    return [*written, out / "table2.md"]


def _boundaries(values: pd.DataFrame, emb: pd.DataFrame, root: Path, c, out: Path) -> None:
    """fig_table2_boundaries.{png,pdf} and its caption (.md) in `out` where the 2-D runs' folders are
    under `root`; else, where there are 2-D runs, says that it is not redrawn and why (an earlier
    figure in `out` stays as it is)."""
    drawn = figure(values, emb, root, c.data.hierarchy, c.paths.generated_dir, out / "fig_table2_boundaries")
    if drawn is not None:
        (out / "fig_table2_boundaries.md").write_text("".join(
            f"{line}\n" for line in ["![decision boundaries in the 2-D ball](fig_table2_boundaries.png)", "", *drawn]))
    elif not values[values.dim == 2].empty:
        left = "; the figure there is left as it is" if (out / "fig_table2_boundaries.png").is_file() else ""
        print(f"{out / 'fig_table2_boundaries'}: not redrawn: it needs the 2-D embedding's points and its "
              f"classifiers' weights, which only their run folders' checkpoints hold (not under {root}){left}")


def _commits(runs: pd.DataFrame, names: set) -> str:
    """The commits (7 digits) of the runs named, '-' for none (Table 1's runs share runs.csv)."""
    return run_table.commits(runs[runs.run.isin(names)] if len(runs) else runs)


def _write_burnin(out: Path, runs: pd.DataFrame, curves: pd.DataFrame, profile: str) -> list[Path]:
    """table2_burnin.{csv,md,tex} when the burn-in ablation has finished runs (none: nothing written)."""
    data = hnn_burnin.table(runs, curves)
    if data.empty:
        return []
    return tables.write(out, "table2_burnin", data, hnn_burnin.shown(data),
                        f"Beyond the paper: the burn-in of the Poincare embeddings ({profile} profile)",
                        f"The closure of {data.hierarchy[0]} in {data.dim[0]}-D, {int(data.epochs.max())} epochs; "
                        "reconstruction (all nodes) at the last evaluation, mean ± standard error over seeds; the "
                        "first row is Nickel & Kiela's code. "
                        f"Made by `python -m noneuclid.train -m experiment={hnn_burnin.EXPERIMENT} profile={profile}` "
                        f"and `python -m noneuclid.report hnn table2 --profile {profile}`.")
