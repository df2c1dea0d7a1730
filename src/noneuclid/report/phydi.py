"""PHYDI's Tables 1 and 2 (convergence of PHResNets on CIFAR-10) and Fig. 4 (PHTransformers on
WikiText-2), redrawn from the per-run data, with every claim of the paper judged by the claims engine.

    python -m noneuclid.report phydi [--runs runs] [--profile cpu]

Per run, from its per-epoch validation curve (only finished runs count; `seeds` = their number):
    M1          epochs until validation accuracy >= 80 % (the paper's M1)
    M1 at X %   epochs until validation accuracy >= X, with X fixed per cell by a rule that does not look
                at the inits: X = 0.9 x the lowest best validation accuracy of any run of the cell (every
                init, every seed), rounded down to a whole percent, so that every run reaches it
    AUC         the area under the validation-accuracy curve per epoch (its mean over the epochs run):
                higher = converges faster, and less sensitive to one lucky epoch than a threshold
    M2          our reading of "epochs to beat a model with the proposed approach": the first epoch at
                which PHYDI's mean curve is above the compared init's by more than their combined
                standard error
Fig. 4: epochs until validation perplexity <= T, T = 200 x U / U_paper where U is the unigram perplexity
(wikitext2.unigram_perplexity) of the vocabulary and tokens the runs used and U_paper that of the paper's
setting (all of WikiText-2, 28,782 words): the paper's threshold at the same ratio to "knowing only the
word frequencies"; and to T_r = report.fig4_threshold x U, the profile's threshold that its runs can
reach (set in its config before the runs). A run ends diverged (loss NaN/inf: DIVERGED in the run folder),
stuck (best ppl >= 0.95 U: nothing learned past the word frequencies), slow (above the threshold at its
last epoch) or reached; it fails when diverged or stuck. Tables show mean +- standard error over seeds
(the paper's +-).

Claims (claims/phydi.yaml), judged by the claims engine from per-seed values, cell by cell: Tables 1-2,
PHYDI vs standard and vs WKP in the direction the paper's numbers give each cell, in M1 (80 % where
every run of the cell reaches it, else M1 at X %), AUC and the validation accuracy at the paper's M2
epoch's training images (m2_epoch), and PHYDI's M1 lead growing from PHResNet18 to 152 per n; Fig. 4,
PostNorm failing (diverged or stuck) with depth and earlier at n = 2 than at n = 4, PreNorm stabler than
PostNorm, PreNorm fastest to T_r and lowest in best ppl in shallow and PHYDI in deep stacks, PHYDI's lead
over PreNorm growing with depth. Each verdict is reproduces,
consistent, inconclusive, contradicts or not testable here (why).
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator, NullFormatter  # noqa: E402
import pandas as pd  # noqa: E402

from noneuclid.claims import data as claims_data, engine, render  # noqa: E402
from noneuclid.config import sweep_values  # noqa: E402
from noneuclid.report import figures, run_table, tables  # noqa: E402
from noneuclid.report.estimates import Estimate, compare, estimate  # noqa: E402

M1_ACCURACY, X_FRACTION = 0.80, 0.9
PERPLEXITY = 200.0
STUCK_FRACTION = 0.95  # a run whose best val ppl is above this share of U is stuck (claims/phydi.yaml)
# U_paper: the unigram perplexity of WikiText-2's validation stream (10 columns, as evaluated) under the
# add-one unigram model of all 2,049,990 training tokens, 28,782 words, as the trainer logs it
# (val_unigram_perplexity); lm_cells checks it against runs on the full data
PAPER_UNIGRAM_PERPLEXITY = 804.3
CIFAR10_TRAIN_IMAGES = 50_000  # data.train_size null: the whole training split
INITS = ("standard", "wkp", "phydi")
NAMES = {"standard": "standard", "wkp": "WKP", "phydi": "PHYDI", "post": "PostNorm", "pre": "PreNorm"}
LABELS = {"standard": "PHResNet{d}", "wkp": "+ WKP", "phydi": "+ PHYDI"}
MODELS = {"phresnet": "PHResNet", "phtransformer": "PHTransformer"}  # cfg.model.name -> the paper's name
CLAIMS = claims_data.load("phydi")  # Tables 1-2 (table1_*, table2_*) and Fig. 4 (fig4_*)
CELL = re.compile(r"PHResNet(?P<depth>\d+), n = (?P<n>\d+)(?:, lr (?P<lr>[\d.]+))?, vs \w+")


def paper_table(table: str) -> dict[tuple, dict[str, tuple[float, float, float | None]]]:
    """The paper's Table 1 or 2 as claims/phydi.yaml holds it: (depth, n[, lr]) -> init -> (M1 mean, M1
    s.e., M2), M2 None for PHYDI itself (from the cells of <table>_m1 and <table>_m2)."""
    rows = {}
    for cell in CLAIMS[f"{table}_m1"].cells:
        match = CELL.fullmatch(cell.name)
        key = (int(match["depth"]), int(match["n"])) + ((float(match["lr"]),) if match["lr"] else ())
        other = next(arm for arm in cell.arms if arm != "phydi")
        m2 = CLAIMS[f"{table}_m2"].cell(cell.name).paper["M2"]
        rows.setdefault(key, {})["phydi"] = (cell.paper["phydi"], cell.paper_se["phydi"], None)
        rows[key][other] = (cell.paper[other], cell.paper_se[other], m2)
    return rows


PAPER_TABLE1, PAPER_TABLE2 = paper_table("table1"), paper_table("table2")
Curves = pd.DataFrame  # epoch (index, from 1) x seed (columns): one metric per finished run


# ---------------------------------------------------------------- per-run curve metrics

def epochs_to(curve: pd.Series, threshold: float, above: bool = True) -> float:
    """The first epoch (curve's index) whose value is >= threshold (above) or <= threshold; inf if none."""
    hit = curve[curve >= threshold] if above else curve[curve <= threshold]
    return float(hit.index.min()) if len(hit) else math.inf


def threshold_x(curves: dict[str, Curves]) -> float:
    """X of 'M1 at X %' for a cell: X_FRACTION x the lowest best accuracy of any run of the cell, rounded
    down to a whole percent (the same for every init: it cannot favour one)."""
    lowest = min(float(c.max().min()) for c in curves.values())
    return math.floor(100 * X_FRACTION * lowest) / 100


def auc(curve: pd.Series) -> float:
    """Mean of the per-epoch values over epochs 1..E: the area under the curve per epoch."""
    return float(curve.mean())


def beats_from(phydi: Curves, other: Curves) -> float:
    """M2: the first epoch at which PHYDI's mean curve exceeds `other`'s by more than the combined
    standard error of the two at that epoch; inf if never."""
    for epoch in phydi.index.intersection(other.index):
        a, b = estimate(phydi.loc[epoch].dropna()), estimate(other.loc[epoch].dropna())
        if compare(a, b, lower_is_better=False) == "better":
            return float(epoch)
    return math.inf


# ---------------------------------------------------------------- Tables 1 and 2

def resnet_rows(curves: dict[str, Curves], paper: dict, x: float) -> dict[str, dict]:
    """init -> our numbers for one cell (val-accuracy curves of its finished runs), beside the paper's,
    one number per column (mean and s.e. over seeds; inf: never; NaN: none, e.g. PHYDI's own M2)."""
    rows = {}
    for init in (i for i in INITS if i in curves):
        c = curves[init]
        cols = [c[s].dropna() for s in c]
        ref = paper.get(init)
        reached = [m for m in (epochs_to(s, M1_ACCURACY) for s in cols) if not math.isinf(m)]
        m1, m1_x = estimate(reached), estimate(epochs_to(s, x) for s in cols)
        area, best = estimate(100 * auc(s) for s in cols), estimate(100 * s.max() for s in cols)
        rows[init] = {
            "seeds": len(cols), "m1_mean": m1.mean, "m1_se": m1.se, "m1_reached": len(reached),
            "x_percent": round(100 * x), "m1_at_x_mean": m1_x.mean, "m1_at_x_se": m1_x.se,
            "auc_mean": area.mean, "auc_se": area.se, "best_val_acc_mean": best.mean, "best_val_acc_se": best.se,
            "m2": math.nan if init == "phydi" or "phydi" not in curves else beats_from(curves["phydi"], c),
            "epochs": max(len(s) for s in cols),
            "paper_m1_mean": ref[0] if ref else math.nan, "paper_m1_se": ref[1] if ref else math.nan,
            "paper_m2": math.nan if not ref or ref[2] is None else ref[2],
        }
    return rows


def resnet_shown(numbers: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """The Tables 1-2 numbers in words: 'mean ± s.e.' (the mean alone for one seed), 'not reached',
    'never', '-' where there is no such number."""
    def shown(r) -> dict:
        paper = not math.isnan(r.paper_m1_mean)
        return {**{k.split(".")[-1]: getattr(r, k.split(".")[-1]) for k in keys}, "model": r.model,
                "seeds": r.seeds,
                "M1 (ours)": str(Estimate(r.m1_mean, r.m1_se, r.m1_reached)) if r.m1_reached else "not reached",
                "reached 80 %": f"{r.m1_reached}/{r.seeds}", "X %": r.x_percent,
                "M1 at X % (ours)": str(Estimate(r.m1_at_x_mean, r.m1_at_x_se, r.seeds)),
                "AUC % (ours)": str(Estimate(r.auc_mean, r.auc_se, r.seeds)),
                "best val acc % (ours)": str(Estimate(r.best_val_acc_mean, r.best_val_acc_se, r.seeds)),
                "M2 (ours)": "-" if math.isnan(r.m2) else _epochs(r.m2), "epochs": r.epochs,
                "M1 (paper)": f"{r.paper_m1_mean:.2f} ± {r.paper_m1_se:.2f}" if paper else "",
                "M2 (paper)": "" if not paper else "-" if math.isnan(r.paper_m2) else int(r.paper_m2)}
    return pd.DataFrame([shown(r) for r in numbers.itertuples(index=False)])


def _epochs(e: float) -> str | int:
    return "never" if math.isinf(e) else int(e)


def claim_cell(key: tuple, other: str) -> str:
    """The claims file's name of a Tables 1-2 cell, e.g. 'PHResNet50, n = 3, lr 0.01, vs WKP'."""
    lr = f", lr {key[2]:g}" if len(key) > 2 else ""
    return f"PHResNet{key[0]}, n = {key[1]}{lr}, vs {NAMES[other]}"


def m1_level(curves: dict[str, Curves], x: float) -> float:
    """The accuracy level of a cell's M1: 80 % where every run of the cell reaches it, else X."""
    every_80 = all(not math.isinf(epochs_to(c[s].dropna(), M1_ACCURACY)) for c in curves.values() for s in c)
    return M1_ACCURACY if every_80 else x


def m2_epoch(paper_m2: float, images: int) -> int:
    """Our epoch whose end has seen as many training images as the paper's M2 epochs on all of CIFAR-10's
    training split: ceil(M2 x 50,000 / images), images = training images per epoch of our runs."""
    return math.ceil(paper_m2 * CIFAR10_TRAIN_IMAGES / images)


def resnet_claims(curves: dict[str, Curves], table: str, key: tuple, x: float,
                  images: int = CIFAR10_TRAIN_IMAGES) -> list[engine.Verdict]:
    """The cell's verdicts on the claims <table>_m1, _auc and _m2 (claims/phydi.yaml): PHYDI against
    standard and against WKP, in the direction the paper's numbers give each. Per seed: M1, the epochs to
    80 % where every run of the cell reaches it, else to X % (the verdict's metric says which); AUC %; the
    validation accuracy % after as many training images as the paper's M2 epochs (m2_epoch; images:
    training images per epoch of the cell's runs). None where the paper has no such cell."""
    level = m1_level(curves, x)
    label = f"m1 at {round(100 * level)} %" + ("" if level == M1_ACCURACY else " (80 % out of reach)")
    per_seed = {"m1": lambda curve, cell: epochs_to(curve, level), "auc": lambda curve, cell: 100 * auc(curve),
                "m2": lambda curve, cell: 100 * curve.get(m2_epoch(cell.paper["M2"], images), math.nan)}
    rows = []
    for metric, value in per_seed.items():
        claim = CLAIMS[f"{table}_{metric}"]
        for other in ("standard", "wkp"):
            if claim_cell(key, other) in {c.name for c in claim.cells}:
                cell = claim.cell(claim_cell(key, other))
                labels = {"m1": label, "m2": f"accuracy at epoch {m2_epoch(cell.paper.get('M2', 0), images)}"}
                row = _resnet_verdict(claim, cell, curves, value, images)
                rows.append(replace(row, metric=labels.get(metric, row.metric)))
    return rows


def _resnet_verdict(claim: claims_data.Claim, cell: claims_data.Cell, curves: dict[str, Curves],
                    value, images: int) -> engine.Verdict:
    """One claim cell's verdict from value(curve, cell) of every finished seed of its two inits."""
    missing = [NAMES[a] for a in cell.arms if a not in curves]
    if missing:
        return engine.untestable(claim, cell, f"no finished runs of {', '.join(missing)}",
                                 *(curves[a].shape[1] if a in curves else 0 for a in cell.arms))
    values = [[value(curves[a][s].dropna(), cell) for s in curves[a]] for a in cell.arms]
    if any(math.isnan(x) for v in values for x in v):
        m2, epochs = cell.paper["M2"], max(len(curves[a]) for a in cell.arms)
        return engine.untestable(claim, cell, f"the paper's M2 epoch {m2:g} ({m2 * CIFAR10_TRAIN_IMAGES:,.0f} "
                                              f"training images) is our epoch {m2_epoch(m2, images)} ({images:,} "
                                              f"images per epoch), beyond the runs' {epochs} epochs",
                                 *map(len, values))
    return engine.judge(claim, cell, *values)


def resnet_tables(cells: dict[tuple, dict[str, Curves]], keys: list[str], paper: dict, table: str,
                  images: dict[tuple, int] | None = None) -> tuple[pd.DataFrame, list[engine.Verdict]]:
    """(numbers: one row per cell and init, claims: the verdicts of the claims <table>_*, one per cell,
    metric and compared init) from the cells' val-accuracy curves, keyed by the settings tuple of `keys`;
    images: training images per epoch of each cell's runs (default: all of CIFAR-10's)."""
    numbers, claims = [], []
    for cell in sorted(cells):
        curves, ref = cells[cell], paper.get(cell, {})
        x = threshold_x(curves)
        settings = {k.split(".")[-1]: v for k, v in zip(keys, cell)}
        depth = settings.get("depth", "")
        for init, row in resnet_rows(curves, ref, x).items():
            numbers.append({**settings, "model": LABELS[init].format(d=depth), **row})
        claims += resnet_claims(curves, table, cell, x, (images or {}).get(cell, CIFAR10_TRAIN_IMAGES))
    return pd.DataFrame(numbers), claims


def lead_verdicts(cells: dict[tuple, dict[str, Curves]]) -> list[engine.Verdict]:
    """The cells of table1_lead_grows_with_depth (one per n): per seed, standard's M1 minus PHYDI's,
    PHResNet152 against PHResNet18, both at one accuracy level: the lower of the two cells' M1 levels
    (m1_level), which every run of both reaches."""
    claim, rows = CLAIMS["table1_lead_grows_with_depth"], []
    for cell in claim.cells:
        n = int(re.search(r"n = (\d+)", cell.name)[1])
        depths = [int(arm.removeprefix("depth")) for arm in cell.arms]
        absent = {d: [NAMES[i] for i in ("standard", "phydi") if i not in cells.get((d, n), {})] for d in depths}
        missing = [f"no finished runs of {', '.join(a)} in PHResNet{d}, n = {n}" for d, a in absent.items() if a]
        if missing:
            rows.append(engine.untestable(claim, cell, "; ".join(missing)))
            continue
        level = min(m1_level(cells[(d, n)], threshold_x(cells[(d, n)])) for d in depths)
        leads = [_m1_lead(cells[(d, n)], level) for d in depths]
        rows.append(replace(engine.judge(claim, cell, *leads), metric=f"m1_lead at {round(100 * level)} %"))
    return rows


def _m1_lead(curves: dict[str, Curves], level: float) -> list[float]:
    """Standard's M1 minus PHYDI's at `level`, per seed that both inits have, of one Table 1 cell."""
    first = {i: {s: epochs_to(curves[i][s].dropna(), level) for s in curves[i]} for i in ("standard", "phydi")}
    return [first["standard"][s] - first["phydi"][s] for s in first["standard"] if s in first["phydi"]]


# ---------------------------------------------------------------- Fig. 4

def scaled_threshold(unigram: float) -> float:
    """T = 200 x U / U_paper (see the module doc)."""
    return PERPLEXITY * unigram / PAPER_UNIGRAM_PERPLEXITY


def _lm_values(curves: Curves, diverged: dict, threshold: float) -> tuple[list[float], list[float]]:
    """Per seed: (epochs to ppl <= threshold, best ppl), inf for a diverged seed."""
    first, best = [], []
    for s in curves:
        c = curves[s].dropna()
        bad = diverged.get(s, False)
        first.append(math.inf if bad else epochs_to(c, threshold, above=False))
        best.append(math.inf if bad or c.empty else float(c.min()))
    return first, best


def outcomes(curves: Curves, diverged: dict, threshold: float, unigram: float) -> list[str]:
    """Per seed, how its run ended against the threshold: 'diverged' (loss NaN or inf), 'stuck' (best ppl
    >= STUCK_FRACTION x U, the unigram perplexity: nothing learned past the word frequencies), 'reached'
    (ppl <= threshold within its epochs), else 'slow' (past the unigram regime, above the threshold at
    its last epoch). A run fails when it diverged or is stuck."""
    first, best = _lm_values(curves, diverged, threshold)
    return ["diverged" if diverged.get(s, False) or math.isinf(b) else "stuck" if b >= STUCK_FRACTION * unigram
            else "slow" if math.isinf(f) else "reached" for s, f, b in zip(curves, first, best)]


def fig4_rows(cells: dict[tuple, dict[str, tuple[Curves, dict]]], unigram: dict[int, float],
              ratio: float | None = None) -> pd.DataFrame:
    """One row per (n, depth, norm): seeds, epochs to ppl <= T, best val ppl (mean +- s.e.), diverged
    seeds, the unigram perplexity U and T; with the profile's rule `ratio` (report.fig4_threshold) also
    epochs to ppl <= T_r = ratio x U. cells: (n, depth) -> norm -> (val-ppl curves, seed -> diverged)."""
    rows = []
    for (n, depth), norms in sorted(cells.items()):
        t = scaled_threshold(unigram[n])
        for norm, (curves, diverged) in sorted(norms.items()):
            first, best = _lm_values(curves, diverged, t)
            ends = outcomes(curves, diverged, ratio * unigram[n] if ratio is not None else t, unigram[n])
            row = {"n": n, "depth": depth, "norm": norm, "seeds": curves.shape[1], **_reached(first, "T"),
                   "best val ppl (ours)": "diverged" if math.isinf(estimate(best).mean) else str(estimate(best)),
                   "best val ppl mean": estimate(best).mean,
                   "best val ppl se": estimate(best).se,
                   **{state: ends.count(state) for state in ("diverged", "stuck", "slow")},
                   "epochs": max((len(curves[s].dropna()) for s in curves), default=0),
                   "unigram ppl U": round(unigram[n], 1), "T": round(t, 1)}
            if ratio is not None:
                row.update(_reached(_lm_values(curves, diverged, ratio * unigram[n])[0], "T_r"),
                           T_r=round(ratio * unigram[n], 1))
            rows.append(row)
    return pd.DataFrame(rows)


def _reached(first: list[float], name: str) -> dict:
    """Epochs to a threshold over the seeds that reached it (mean +- s.e.), and how many did: in words and
    as numbers."""
    reached = [f for f in first if not math.isinf(f)]
    return {f"epochs to ppl <= {name} (ours)": str(estimate(reached)) if reached else "not reached",
            f"reached {name}": f"{len(reached)}/{len(first)}", f"seeds reached {name}": len(reached),
            f"epochs to {name} mean": estimate(reached).mean, f"epochs to {name} se": estimate(reached).se}


def threshold_ratio(runs: pd.DataFrame) -> float | None:
    """The profile's rule for Fig. 4's reachable threshold, report.fig4_threshold (T_r = it x U), as the
    runs were configured with it; None where none is set."""
    column = "cfg.report.fig4_threshold"
    values = runs[column].dropna().unique() if column in runs else []
    if len(values) > 1:
        raise ValueError(f"the transformer runs were configured with several report.fig4_threshold: {list(values)}")
    return float(values[0]) if len(values) else None


# A Fig. 4 claim's arm: a norm (post, pre, phydi) at the cell's n and depth, at another depth
# (post_depth48) or n (post_n4), or PHYDI's lead over PreNorm at a depth (depth48)
ARM = re.compile(r"(?P<norm>post|pre|phydi)?_?(?:depth(?P<depth>\d+)|n(?P<n>\d+))?")
FIG4_METRICS = ("failed", "best_ppl", "epochs_to_ppl", "phydi_lead")
EPOCH_METRICS = ("epochs_to_ppl", "phydi_lead")  # counted in epochs: their floor is the first evaluation


def fig4_verdicts(cells: dict[tuple, dict[str, tuple[Curves, dict]]], unigram: dict[int, float],
                  ratio: float | None = None) -> list[engine.Verdict]:
    """Every cell of the Fig. 4 claims of claims/phydi.yaml, judged by the claims engine from per-seed
    values: failed (1 or 0: diverged or stuck, see outcomes; engine.judge_shares), best ppl, epochs to
    ppl <= the threshold, T_r (the profile's ratio x U; the paper's scaled T where the profile sets none),
    and PHYDI's lead over PreNorm in those epochs (same seed). A cell whose arm has no runs, whose runs
    lack the metric (never reached the threshold, or diverged), or whose runs all reached the threshold
    at the first evaluation (the floor of a metric in epochs: it cannot order them) is not testable here."""
    rows = []
    for claim in (c for c in CLAIMS.claims if c.metric in FIG4_METRICS):
        for cell in claim.cells:
            keys = [_fig4_arm(arm, cell.name) for arm in cell.arms]
            n = keys[0][0]
            threshold, name = (ratio * unigram[n], "T_r") if ratio and n in unigram else (
                scaled_threshold(unigram[n]) if n in unigram else math.nan, "T")
            values = [_fig4_values(claim.metric, cells, key, threshold, unigram.get(n, math.nan)) for key in keys]
            why = "; ".join(v for v in values if isinstance(v, str)) or _at_floor(claim.metric, cells, keys, threshold)
            judge = engine.judge_shares if claim.metric == "failed" else engine.judge
            row = (engine.untestable(claim, cell, why, *(0 if isinstance(v, str) else len(v) for v in values)) if why
                   else judge(claim, cell, *values))
            rows.append(replace(row, metric=_fig4_label(claim.metric, name, threshold, unigram.get(n, math.nan))))
    return rows


def _fig4_label(metric: str, name: str, threshold: float, unigram: float) -> str:
    """The metric as the claims table shows it, with the level it is counted at."""
    if math.isnan(threshold):
        return metric
    if metric == "failed":
        return f"failed (diverged, or best ppl >= {STUCK_FRACTION * unigram:.0f})"
    return metric if metric == "best_ppl" else f"{metric} at ppl <= {name} = {threshold:.0f}"


def _at_floor(metric: str, cells: dict, keys: list[tuple[int, int, str]], threshold: float) -> str:
    """Why epochs to the threshold cannot order a cell's arms (every run they compare reached it at the
    first evaluation, epoch 1), or '' where they can or the metric is not counted in epochs."""
    if metric not in EPOCH_METRICS:
        return ""
    firsts = [e for n, depth, norm in keys for m in (("pre", "phydi") if norm == "lead" else (norm,))
              for e in _lm_values(*cells[(n, depth)][m], threshold)[0]]
    if all(e == 1 for e in firsts):
        return (f"every run compared reached ppl <= {threshold:.0f} at its first evaluation (epoch 1): epochs to "
                "it cannot order them")
    return ""


def _fig4_arm(arm: str, cell: str) -> tuple[int, int, str]:
    """(n, depth, norm) of a Fig. 4 claim's arm in a cell named like 'n = 2, 24 layers' (what the arm
    does not name itself); norm 'lead' for PHYDI's lead over PreNorm."""
    match = ARM.fullmatch(arm)
    n, depth = re.search(r"n = (\d+)", cell), re.search(r"(\d+) layers", cell)
    return (int(match["n"] or n[1]), int(match["depth"] or depth[1]), match["norm"] or "lead")


def _fig4_values(metric: str, cells: dict, key: tuple[int, int, str], threshold: float,
                 unigram: float) -> list[float] | str:
    """Per seed of the arm `key` (n, depth, norm): its value of `metric`, or why there is none."""
    n, depth, norm = key
    norms = cells.get((n, depth), {})
    needed = ("pre", "phydi") if norm == "lead" else (norm,)
    missing = [NAMES[m] for m in needed if m not in norms]
    if missing:
        return f"no finished runs of {', '.join(missing)} at n = {n}, {depth} layers"
    if metric == "failed":
        return [float(end in ("diverged", "stuck")) for end in outcomes(*norms[norm], threshold, unigram)]
    first, best = {}, {}
    for m in needed:
        ends = _lm_values(*norms[m], threshold)
        first[m], best[m] = (dict(zip(norms[m][0].columns, v)) for v in ends)
    values = best if metric == "best_ppl" else first
    short = [f"{sum(math.isinf(e) for e in values[m].values())} of {len(values[m])} runs of {NAMES[m]}"
             for m in needed if any(math.isinf(e) for e in values[m].values())]
    if short:
        return (f"{', '.join(short)} at n = {n}, {depth} layers "
                + ("diverged" if metric == "best_ppl" else f"did not reach ppl <= {threshold:.0f} (or diverged)"))
    if norm != "lead":
        return list(values[norm].values())
    return [first["pre"][s] - first["phydi"][s] for s in first["pre"] if s in first["phydi"]]


def fig4(rows: pd.DataFrame, out: Path) -> None:
    """Left: epochs to ppl <= T_r (the profile's reachable threshold; T where it has none) by depth, over
    the seeds that reached it (at the top: a point where no seed did, x where a seed failed, a hollow v
    where a seed was slow; see outcomes; k/N beside a point: k of N seeds did); right:
    best validation perplexity by depth (mean +- s.e.) with the unigram perplexity U, T and T_r. A colour
    per norm, a line style per n."""
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(10, 4))
    ceiling = int(rows.epochs.max()) + 1
    name = "T_r" if "T_r" in rows else "T"  # the profile's reachable threshold, where it has one
    column = f"epochs to ppl <= {name} (ours)"
    colours = {norm: f"C{i}" for i, norm in enumerate(("post", "pre", "phydi"))}
    styles = {n: style for n, style in zip(sorted(rows.n.unique()), ("-", "--", ":"))}
    for (norm, n), g in rows.groupby(["norm", "n"]):
        g = g.sort_values("depth")
        look = {"color": colours[norm], "ls": styles[n], "label": f"{NAMES[norm]}, n={n}"}
        first = [float(v.split(" ")[0]) if v != "not reached" else ceiling for v in g[column]]
        ax.plot(g.depth, first, marker="o", **look)
        failed, slow = g.diverged + g.stuck > 0, g.slow > 0
        ax.scatter(g.depth[failed], [ceiling] * failed.sum(), marker="x", s=60, color=colours[norm])
        ax.scatter(g.depth[slow], [ceiling - 0.35] * slow.sum(), marker="v", s=40, facecolors="none",
                   edgecolors=colours[norm])
        _fig4_partial(ax, g.depth, first, g[f"reached {name}"], colours[norm])
        finite = g[g["best val ppl mean"] < math.inf]
        bx.errorbar(finite.depth, finite["best val ppl mean"], yerr=finite["best val ppl se"], marker="o",
                    capsize=2, **look)
    _fig4_levels(bx, rows, name)
    ax.set(xscale="log", xlabel="layers", ylabel=f"epochs to validation perplexity <= {name}",
           ylim=(0, ceiling + 0.5),
           title=f"at {ceiling}: x a seed failed (diverged or stuck), v a seed was slow;\n"
                 "k/N: seeds that reached the threshold")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    if (rows[column] == "not reached").all():  # say so, not just a flat line of x
        ax.text(0.5, 0.45, f"no run reached {name} = {rows[name].min():.1f}\nin {ceiling - 1} epochs",
                transform=ax.transAxes, ha="center", va="center")
    bx.set(xscale="log", yscale="log", xlabel="layers", ylabel="best validation perplexity")
    depths = sorted(rows.depth.unique())
    for a in (ax, bx):  # the depths themselves as ticks, not log-scale powers of ten
        a.set_xticks(depths, [str(d) for d in depths])
        a.xaxis.set_minor_formatter(NullFormatter())
    ax.legend(fontsize=7)
    bx.legend(fontsize=6)
    fig.tight_layout()
    figures.save(fig, out)


def _fig4_partial(ax, depths: pd.Series, first: list[float], reached: pd.Series, colour: str) -> None:
    """'k/N' beside each point whose mean is over only some of its seeds (k of N reached the threshold)."""
    for depth, y, share in zip(depths, first, reached):
        k, total = (int(v) for v in share.split("/"))
        if 0 < k < total:
            ax.annotate(share, (depth, y), xytext=(4, 4), textcoords="offset points", fontsize=7, color=colour)


def _fig4_levels(bx, rows: pd.DataFrame, name: str) -> None:
    """The unigram perplexity U, T and (name T_r) T_r as horizontal lines: once where every n has the
    same data (the same U), else once per n."""
    levels = rows.drop_duplicates("unigram ppl U")
    for _, row in levels.iterrows():
        tag = f", n={row.n}" if len(levels) > 1 else ""
        bx.axhline(row["unigram ppl U"], color="black", lw=0.8, ls="--", label=f"unigram U = {row['unigram ppl U']:.0f}{tag}")
        bx.axhline(row["T"], color="grey", lw=0.8, ls=":", label=f"T = 200 U / U_paper = {row['T']:.0f}{tag}")
        if name == "T_r":
            bx.axhline(row["T_r"], color="grey", lw=0.8, ls="-.", label=f"T_r = {row['T_r']:.0f}{tag}")


# ---------------------------------------------------------------- the checks in words

OUTCOMES = {engine.REPRODUCES: "Reproduces (the paper's direction, beyond the 95 % interval)",
            engine.CONSISTENT: "Consistent (the difference on the paper's side, the interval holds the boundary)",
            engine.INCONCLUSIVE: "Inconclusive (the difference not on the paper's side, the interval holds the boundary)",
            engine.CONTRADICTS: "Contradicts (the opposite, beyond the 95 % interval)",
            engine.NOT_TESTABLE: "Not testable here"}


def digest(checks: list[tuple[str, list[engine.Verdict]]]) -> list[str]:
    """Markdown bullets grouping every verdict by outcome, each naming its cell in the paper's terms (the
    cells of a table without any runs of an arm: one bullet per table and claim); only the outcomes that
    have checks. checks: (table title, its verdicts)."""
    groups = {outcome: [] for outcome in OUTCOMES}
    counts = {outcome: sum(row.verdict == outcome for _, claims in checks for row in claims) for outcome in OUTCOMES}
    for title, claims in checks:
        unrun = {}  # claim -> its cells without runs
        for row in claims:
            if row.verdict == engine.NOT_TESTABLE and row.reason.startswith("no finished runs"):
                unrun.setdefault(row.claim, []).append(row.cell)
            else:
                groups[row.verdict].append(_verdict_bullet(title, row))
        groups[engine.NOT_TESTABLE] += [f"- {title}, {claim}: no finished runs in {len(cells)} "
                                        f"cell{'' if len(cells) == 1 else 's'} ({'; '.join(cells)})"
                                        for claim, cells in unrun.items()]
    lines = []
    for outcome, title in OUTCOMES.items():
        count = counts[outcome]
        lines += [f"**{title}: {count} check{'' if count == 1 else 's'}.**", "", *groups[outcome], ""] if count else []
    return lines


def _verdict_bullet(title: str, row: engine.Verdict) -> str:
    """e.g. '- Table 1, PHResNet152, n = 4, vs standard, auc: ours 71.2 vs 65.3 (phydi vs standard),
    difference +5.9 [+1.2, +10.6]; ~9 seeds per arm would decide'."""
    shown = render.display(row)
    detail = shown["verdict"].removeprefix(row.verdict).strip(" ():")
    return (f"- {title}, {row.cell}, {row.metric}"
            + (f": ours {shown['ours']} ({row.arm_a} vs {row.arm_b}), difference "
               f"{shown['difference [95 % interval]']}" if shown["ours"] else "")
            + (f"; paper {shown['paper']}" if row.paper else "") + (f"; {detail}" if detail else ""))


def _resnet_name(depth: int, lr: float | None = None) -> str:
    return f"PHResNet{depth}" + ("" if lr is None else f" (lr {lr:g})")


def not_run(cells, paper: dict) -> str:
    """The paper's cells (keys (depth, n) or (depth, n, lr) of `paper`) without finished runs here, by n,
    e.g. 'n = 2: PHResNet18, PHResNet50; n = 3: PHResNet18 (2 of the paper's 9 cells)'; '' if none."""
    missing = [k for k in paper if k not in cells]
    if not missing:
        return ""
    by_n = {n: [_resnet_name(k[0], *k[2:]) for k in missing if k[1] == n] for n in sorted({k[1] for k in missing})}
    return "; ".join(f"n = {n}: {', '.join(names)}" for n, names in by_n.items()) + \
        f" ({len(missing)} of the paper's {len(paper)} cells)"


# ---------------------------------------------------------------- run folders -> cells

def _runs(out: Path, model: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(one row per run of `model`, one row per run and evaluated epoch) from the per-run data in
    out/runs.csv and out/curves.csv.gz (run_table)."""
    paths = [out / "runs.csv", out / "curves.csv.gz"]
    if not paths[0].exists():
        return pd.DataFrame(), pd.DataFrame()
    runs, curves = (pd.read_csv(p, low_memory=False) for p in paths)
    runs = runs[runs["cfg.model.name"] == model].copy()
    curves = curves[curves.run.isin(runs.run)]
    if not curves.empty:
        curves = curves[curves["epoch"].notna() & curves.filter(like="val_").notna().any(axis=1)]
        curves = curves.drop_duplicates(["run", "epoch"], keep="last")
    return runs, curves


def _curves(runs: pd.DataFrame, curves: pd.DataFrame, column: str) -> Curves:
    """epoch x seed of `column` for these runs (one per seed)."""
    if runs["cfg.seed"].duplicated().any():
        raise ValueError(f"runs {', '.join(runs.run)} share a cell and a seed but differ in another setting: "
                         f"keep one setting per profile under runs/phydi/<profile> (move the others away)")
    c = curves[curves.run.isin(runs.run)].merge(runs[["run", "cfg.seed"]], on="run")
    return c.pivot(index="epoch", columns="cfg.seed", values=column).sort_index()


def resnet_cells(runs: pd.DataFrame, curves: pd.DataFrame, keys: list[str]) -> dict[tuple, dict[str, Curves]]:
    """settings tuple -> init -> val-accuracy curves of the finished runs."""
    done = runs[runs.status == "done"]
    cells = {}
    for setting, group in done.groupby([f"cfg.{k}" for k in keys], sort=True):
        cells[tuple(setting)] = {init: _curves(g, curves, "val_accuracy") for init, g in group.groupby("cfg.model.init")}
    return cells


def lm_cells(runs: pd.DataFrame, curves: pd.DataFrame) -> tuple[dict, dict[int, float]]:
    """((n, depth) -> norm -> (val-ppl curves, seed -> diverged)) of the finished or diverged runs, and
    n -> the unigram perplexity their data has (logged by the trainer as val_unigram_perplexity)."""
    ended = runs[runs.status.isin(["done", "diverged"])]
    if len(ended) and "val_unigram_perplexity" not in curves:
        raise ValueError("these transformer runs did not log val_unigram_perplexity (made before it was added): "
                         "retrain them")
    cells, unigram = {}, {}
    for (n, depth), group in ended.groupby(["cfg.model.n", "cfg.model.depth"], sort=True):
        cells[(int(n), int(depth))] = {
            norm: (_curves(g, curves, "val_perplexity").reindex(columns=sorted(g["cfg.seed"])),  # a run that
                   dict(zip(g["cfg.seed"], g.status == "diverged")))  # diverged in epoch 1 has no rows: NaN
            for norm, g in group.groupby("cfg.model.norm")}
        u = curves[curves.run.isin(group.run)]["val_unigram_perplexity"].dropna().unique()
        if len(u) != 1:
            raise ValueError(f"runs of n={n} have unigram perplexities {list(u)}: their data differ; keep one "
                             f"data setting per profile (or retrain runs made before val_unigram_perplexity was logged)")
        full = group[["cfg.data.vocab_size", "cfg.data.train_tokens", "cfg.data.eval_tokens"]].isna().all(axis=None)
        if full and abs(u[0] - PAPER_UNIGRAM_PERPLEXITY) > 0.05:
            raise ValueError(f"runs on all of WikiText-2 logged a unigram perplexity {u[0]:.2f}, not "
                             f"PAPER_UNIGRAM_PERPLEXITY = {PAPER_UNIGRAM_PERPLEXITY}: the data or the baseline changed")
        unigram.setdefault(int(n), float(u[0]))
    return cells, unigram


def _reductions(runs: pd.DataFrame, keys: dict[str, str]) -> str:
    """The settings of the runs that a profile reduces, as 'label: values'."""
    parts = []
    for key, label in keys.items():
        col = f"cfg.{key}"
        if col in runs:
            values = sorted(set(runs[col]), key=lambda v: (isinstance(v, str), v if v == v else 0))
            parts.append(f"{label} {', '.join(str(int(v)) if isinstance(v, float) and v.is_integer() else str(v) for v in values)}")
    return "; ".join(parts)


def _write(table: pd.DataFrame, out: Path, name: str, caption: str, shown: pd.DataFrame | None = None) -> str:
    """The table as CSV and its display `shown` (default: the table) as Markdown and LaTeX (booktabs,
    with `caption`)."""
    table.to_csv(out / f"{name}.csv", index=False, float_format=tables.FLOAT_FORMAT if shown is not None else None)
    table = table if shown is None else shown
    md = table.to_markdown(index=False)
    (out / f"{name}.md").write_text(md + "\n")
    (out / f"{name}.tex").write_text(tables.latex(table.astype(str), caption, f"tab:phydi_{name}"))
    return md


def make(runs_dir: Path, profile: str, out: Path, seeds=None, overrides=()) -> list[Path]:
    """Write table1, table2, their claims, fig4 and its claims (CSV + Markdown), fig4 (PNG + PDF) and
    summary.md from the per-run data in out (runs.csv, curves.csv.gz), after merging into it the runs under
    runs/phydi/<profile> (seeds and overrides are not chosen here)."""
    if seeds or overrides:
        raise ValueError("the phydi report reads every run under runs/phydi/<profile>: drop --seeds and overrides")
    run_table.export(runs_dir, "phydi", profile, out)
    resnets, resnet_curves = _runs(out, "phresnet")
    transformers, transformer_curves = _runs(out, "phtransformer")
    if resnets.empty and transformers.empty:
        raise FileNotFoundError(f"no phydi runs under {runs_dir}/phydi/{profile}: run `python -m noneuclid.train "
                                f"-m experiment=phydi/table1 profile={profile}` (and table2, fig4) first")
    out.mkdir(parents=True, exist_ok=True)
    checks, skipped = [], []  # (title, claims table); cells of the paper with no runs here
    header = [f"# PHYDI: our runs ({profile} profile)", "",
             f"Made by `make reproduce-phydi PROFILE={profile}` (the sweeps experiment=phydi/table1, table2 "
             f"and fig4, then `python -m noneuclid.report phydi --profile {profile}`). Only finished "
             "runs count (`seeds`); mean ± standard error over seeds. Every claim: the claims engine "
             "(claims/phydi.yaml) on our per-seed values, cell by cell.", ""]
    lines = (_resnet_section(resnets, resnet_curves, out, checks, skipped)
             + _fig4_section(transformers, transformer_curves, out, checks, skipped)
             + _compute_section(pd.concat([resnets, transformers]), out))
    verdicts = ["## What reproduces, what does not, what cannot be tested here", "", *digest(checks),
                *([f"No finished runs here (not in this profile's sweeps, or not trained yet): "
                   f"{'; '.join(skipped)}.", ""] if skipped else [])]
    (out / "summary.md").write_text("\n".join(header + verdicts + lines))
    return sorted(out.iterdir())


def resnet_speed(resnets: pd.DataFrame) -> pd.DataFrame:
    """Training speed of the finished PHResNet runs per depth and n: runs, median over runs of their
    median seconds per epoch, and the training images per second that gives."""
    done = resnets[resnets.status == "done"].assign(
        images=resnets["cfg.data.train_size"].fillna(CIFAR10_TRAIN_IMAGES),
        threads=resnets["env.torch_threads"])
    rows = []
    for (depth, n), g in done.groupby(["cfg.model.depth", "cfg.model.n"], sort=True):
        seconds = g.median_seconds_per_epoch.median()
        rows.append({"model": f"PHResNet{int(depth)}", "n": int(n), "runs": len(g),
                     "threads": ", ".join(str(int(t)) for t in sorted(g.threads.unique())),
                     "seconds_per_epoch": seconds, "images_per_second": g.images.median() / seconds})
    return pd.DataFrame(rows, columns=["model", "n", "runs", "threads", "seconds_per_epoch", "images_per_second"])


def compute(runs: pd.DataFrame) -> pd.DataFrame:
    """Training time of the finished runs per sweep (experiment), model and n: runs, hours in all and
    median minutes per run (train_seconds: the training epochs, without evaluations or start-up)."""
    done = runs[runs.status == "done"]
    rows = [{"experiment": experiment, "model": f"{MODELS[model]}{int(depth)}", "n": int(n), "runs": len(g),
             "train_hours": g.train_seconds.sum() / 3600, "minutes_per_run": g.train_seconds.median() / 60}
            for (experiment, model, depth, n), g in done.groupby(
                ["cfg.experiment_name", "cfg.model.name", "cfg.model.depth", "cfg.model.n"], sort=True)]
    return pd.DataFrame(rows, columns=["experiment", "model", "n", "runs", "train_hours", "minutes_per_run"])


def _compute_section(runs: pd.DataFrame, out: Path) -> list[str]:
    """The compute table written into out; its summary lines."""
    table = compute(runs)
    shown = table.assign(train_hours=table.train_hours.map("{:.2f}".format),
                         minutes_per_run=table.minutes_per_run.map("{:.1f}".format)).rename(
        columns={"train_hours": "training h", "minutes_per_run": "min / run"})
    return ["## Compute (every finished run)", "",
            f"Training time in all and the median per run, as trained here (one process per core, the "
            f"other core busy; {table.runs.sum()} runs, {table.train_hours.sum():.1f} h of training; without "
            "evaluations and start-up).", "",
            _write(table, out, "compute", "PHYDI training time per sweep, model and n on this machine", shown), ""]


def _resnet_section(resnets: pd.DataFrame, curves: pd.DataFrame, out: Path, checks: list, skipped: list) -> list[str]:
    """Tables 1-2 written into out; their summary lines. Appends to checks (title, claims) and skipped."""
    if resnets.empty:
        skipped.append("Tables 1-2: no finished runs")
        return []
    lines = ["Settings of the ResNet runs: " + _reductions(resnets, {
        "data.train_size": "training images (null = 50000)", "model.width_mult": "width x",
        "trainer.epochs": "epochs", "data.batch_size": "batch"}) + ". M1 at X %: X = 0.9 x the lowest "
        "best validation accuracy of any run of the cell, rounded down (the same X for every init of a "
        "cell). AUC: mean validation accuracy over the epochs run.", ""]
    for name, keys, paper in (("table1", ["model.depth", "model.n"], PAPER_TABLE1),
                              ("table2", ["model.depth", "model.n", "optim.lr"], PAPER_TABLE2)):
        runs_ = resnets[resnets["cfg.experiment_name"] == f"phydi/{name}"]
        cells = resnet_cells(runs_, curves, keys)
        images = {k: int(g["cfg.data.train_size"].fillna(CIFAR10_TRAIN_IMAGES).max())
                  for k, g in runs_.groupby([f"cfg.{k}" for k in keys])}
        title = f"Table {name[-1]}"
        if not cells:
            lines += [f"## {name}: no finished runs", ""]
            skipped.append(f"{title}: no finished runs")
            if name == "table1":  # the claim over depths still listed, not testable here
                checks.append((title, lead_verdicts({})))
                lines += [tables.write_claims(out, f"{name}_claims", checks[-1][1], f"tab:phydi_{name}_claims"), ""]
            continue
        numbers, claims = resnet_tables(cells, keys, paper, name, images)
        claims += lead_verdicts(cells) if name == "table1" else []
        checks.append((title, claims))
        missing = not_run(cells, paper)
        if missing:
            skipped.append(f"{title}: {missing}")
        lines += [f"## {name.capitalize()}: checks against the paper, cell by cell", "",
                  tables.write_claims(out, f"{name}_claims", claims, f"tab:phydi_{name}_claims"), "",
                  f"## {name.capitalize()}: our numbers beside the paper's", "",
                  _write(numbers, out, name, f"PHYDI {title}: our numbers (mean ± s.e. over seeds) beside the paper's",
                         resnet_shown(numbers, keys)), ""]
    speed = resnet_speed(resnets)
    shown = speed.assign(seconds_per_epoch=speed.seconds_per_epoch.map("{:.1f}".format),
                         images_per_second=speed.images_per_second.map("{:.0f}".format)).rename(
        columns={"seconds_per_epoch": "s / epoch", "images_per_second": "images / s"})
    return lines + ["## Training speed (Tables 1-2's runs)", "",
                    "Median over runs of each run's median seconds per training epoch, as trained here (one "
                    "process per core, the other core busy; channels_last; float32).", "",
                    _write(speed, out, "speed", "PHResNet training speed on this machine", shown), ""]


def _fig4_section(transformers: pd.DataFrame, curves: pd.DataFrame, out: Path, checks: list, skipped: list) -> list[str]:
    """Fig. 4 written into out; its summary lines. Appends to checks (title, claims) and skipped."""
    cells, unigram = lm_cells(transformers, curves) if not transformers.empty else ({}, {})
    if not cells:  # the claims still listed, each not testable here
        skipped.append("Fig. 4: no finished runs")
        checks.append(("Fig. 4", fig4_verdicts({}, {})))
        return ["## Fig. 4: no finished runs", "", tables.write_claims(out, "fig4_claims", checks[-1][1], "tab:phydi_fig4_claims"), ""]
    missing_n = [n for n in (int(v) for v in sweep_values("phydi/fig4", "model.n")) if n not in {m for m, _ in cells}]
    if missing_n:
        skipped.append(f"Fig. 4: n = {', '.join(map(str, missing_n))}")
    ratio = threshold_ratio(transformers)
    rows = fig4_rows(cells, unigram, ratio)
    claims = fig4_verdicts(cells, unigram, ratio)
    checks.append(("Fig. 4", claims))
    fig4(rows, out / "fig4")
    data = rows.drop(columns=[c for c in rows if c.endswith("(ours)") or c.startswith("reached ")])
    shown = rows.drop(columns=[c for c in rows if c.endswith((" mean", " se")) or c.startswith("seeds reached ")])
    return ["## Fig. 4: PHTransformers by depth", "",
            "Settings of the transformer runs: " + _reductions(transformers, {
                "data.vocab_size": "vocabulary (null = all 28,782 words)",
                "data.train_tokens": "training tokens (null = all)", "trainer.epochs": "epochs",
                "model.depth": "depths"}) + ". "
            f"U: unigram perplexity of the validation tokens under the training tokens' word "
            f"frequencies (add-one); T = 200 x U / {PAPER_UNIGRAM_PERPLEXITY:.1f}, the paper's "
            "threshold at the same ratio to the unigram perplexity of the paper's full setting.", "",
            tables.write_claims(out, "fig4_claims", claims, "tab:phydi_fig4_claims"), "",
            _write(data, out, "fig4", "PHYDI Fig. 4: epochs to the perplexity thresholds and best validation "
                   "perplexity, mean ± s.e. over seeds", shown), "",
            "![Fig. 4](fig4.png)", ""]
