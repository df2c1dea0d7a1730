"""An independent reference for Table 2's Euclidean classifiers: scikit-learn's LogisticRegression
(L-BFGS to convergence, no penalty) on the points, split and class weighting of each of our finished
Euclidean MLR runs (on the raw points, and on log_0 of the points), its test F1 beside ours.

    python -m noneuclid.evaluate table2-reference --profile cpu [--runs runs] [--out results/hnn/cpu]

Our Euclidean MLR's two logits <a_k, x - p_k> (or W x + b: model.offsets) differ by an affine
function of x, so it is a logistic regression; trained to convergence on the same data it reaches the
same decision (up to where the optimum is flat). Balanced batches weigh both classes equally, as class_weight="balanced"
does; data.natural_mix runs are weighted as they come. The hyperbolic MLR has no such reference.

Writes (merges into) table2_reference.csv: subtree, dim, classifier, sampling (balanced batches or
the natural mix), seeds, ours_f1 and reference_f1 (means over the same seeds, F1 in %), difference
(ours - reference), and the training losses (means over the seeds): ours (the last epoch's, as logged) and the reference's at its
optimum (the lowest there is), so that a row whose F1 differs where the optimum is flat shows whether
ours reached it. A cell whose runs are found replaces its row, unless they are fewer than the row's
seeds; the file's other rows stay, so that rerunning some cells (one classifier's new protocol, say)
needs only their runs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import torch
from omegaconf import OmegaConf
from tqdm import tqdm

from noneuclid.geometry import poincare as pb
from noneuclid.runs import lookup
from noneuclid.train import tasks
from noneuclid.train.tasks.subtrees import f1_score

GEOMETRIES = ("euclidean", "euclidean_log0")
CELL = ["subtree", "dim", "classifier", "sampling"]  # a row of the file


def classifier_runs(runs_dir: Path, profile: str) -> list[Path]:
    """The finished Euclidean MLR runs (both inputs) of today's protocol (lookup.table2_protocols) under
    runs_dir/hnn/<profile>."""
    protocols = lookup.table2_protocols(profile)
    configs = sorted((Path(runs_dir) / "hnn" / profile).glob("mlr-euclidean*/config.yaml"))
    return [c.parent for c in configs if (c.parent / "DONE").exists() and _today(c.parent, protocols)]


def _today(folder: Path, protocols: dict[str, dict]) -> bool:
    """Whether the finished run in `folder` has its classifier's protocol and, where that stops by
    trainer.converge, stopped on its own plateau (lookup.converges)."""
    cfg = OmegaConf.load(folder / "config.yaml")
    today = protocols[cfg.model.geometry]
    if not all(OmegaConf.select(cfg, k) == v for k, v in today.items()):
        return False
    return not lookup.converges(today) or bool(json.loads((folder / "summary.json").read_text()).get("own_plateau"))


def reference_f1(folder: Path) -> dict:
    """One run's settings, our final test F1 and training loss and scikit-learn's on the same points and split."""
    from sklearn.linear_model import LogisticRegression  # a test/bench dependency only
    from sklearn.metrics import log_loss

    cfg = OmegaConf.load(folder / "config.yaml")
    task = tasks.build(cfg)
    (x, y), (x_test, y_test) = task.splits["train"], task.splits["test"]
    if cfg.model.geometry == "euclidean_log0":
        x, x_test = pb.logmap0(x, cfg.model.c), pb.logmap0(x_test, cfg.model.c)
    weight = None if cfg.data.natural_mix else "balanced"
    model = LogisticRegression(C=np.inf, solver="lbfgs", max_iter=10_000, tol=1e-10, class_weight=weight)
    model.fit(x.double().numpy(), y.numpy())
    pred, train_probabilities = model.predict(x_test.double().numpy()), model.predict_proba(x.double().numpy())
    summary = json.loads((folder / "summary.json").read_text())
    return {"subtree": cfg.data.subtree, "dim": cfg.data.dim, "classifier": cfg.model.geometry,
            "sampling": "natural" if cfg.data.natural_mix else "balanced", "seed": cfg.seed,
            "ours_f1": 100 * summary["final_test_f1"],
            "reference_f1": 100 * f1_score(torch.from_numpy(pred), y_test),
            "ours_train_loss": summary["final_train_loss"],
            "reference_train_loss": log_loss(y.numpy(), train_probabilities, sample_weight=_weights(y, weight))}


def table(rows: list[dict]) -> pd.DataFrame:
    """Per subtree, dim, classifier and sampling: the seeds, the mean F1 of ours and the reference's, their
    difference and the mean training losses."""
    runs, keys = pd.DataFrame(rows), CELL
    out = runs.groupby(keys).agg(seeds=("seed", "size"), ours_f1=("ours_f1", "mean"),
                                 reference_f1=("reference_f1", "mean")).reset_index()
    out["difference"] = out.ours_f1 - out.reference_f1
    losses = runs.groupby(keys)[["ours_train_loss", "reference_train_loss"]].mean().reset_index()
    return out.merge(losses, on=keys)


def merged(old: pd.DataFrame, new: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the file's rows: new's, and old's of the cells new has not or has from fewer seeds, sorted by cell;
    the rows of new left out for having fewer seeds than old's)."""
    keys = CELL
    seeds = new[keys].merge(old[[*keys, "seeds"]], on=keys, how="left").seeds.to_numpy()
    partial = new.seeds.to_numpy() < np.nan_to_num(seeds, nan=0)  # some of the cell's runs are not here
    replaced = new[~partial].set_index(keys).index
    kept = old[~old.set_index(keys).index.isin(replaced)]
    return pd.concat([kept, new[~partial]], ignore_index=True).sort_values(keys, ignore_index=True), new[partial]


def _weights(y: torch.Tensor, class_weight: str | None) -> np.ndarray | None:
    """Per training example, the weight class_weight="balanced" gives its class (None: unweighted)."""
    if class_weight is None:
        return None
    counts = np.bincount(y.numpy(), minlength=2)
    return (len(y) / (2 * counts))[y.numpy()]


def make(runs_dir: Path, profile: str, out: Path) -> Path:
    """table2_reference.csv in `out`: the cells of every finished Euclidean MLR run of `profile` (re)computed,
    the file's other cells kept (merged)."""
    folders = classifier_runs(runs_dir, profile)
    if not folders:
        raise FileNotFoundError(f"no finished Euclidean MLR runs under {Path(runs_dir) / 'hnn' / profile}: "
                                f"train them first (python -m noneuclid.train -m experiment=hnn/table2 "
                                f"profile={profile})")
    rows = [reference_f1(folder) for folder in tqdm(folders, desc="scikit-learn references", unit="run")]
    out.mkdir(parents=True, exist_ok=True)
    path, new = out / "table2_reference.csv", table(rows)
    if path.is_file():
        new, partial = merged(pd.read_csv(path), new)
        for r in partial.itertuples():
            print(f"kept {path.name}'s row of {r.subtree} {r.dim}-D {r.classifier}: {r.seeds} of its seeds' runs "
                  f"are here, fewer than the row's", file=sys.stderr)
    new.to_csv(path, index=False, float_format="%.10g")
    return path
