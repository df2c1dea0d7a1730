"""Does float32 compute Ganea et al.'s trained models as float64 does? The PREFIX-10 weights of each
Table 1 model (every seed), trained in float64 and in float32, each evaluated in both dtypes: test
accuracy, the gradient on the first training batch and the Riemannian SGD step (why the same weights:
report/templates/hnn.md, section same_weights). Writes same_weights.csv into a float32 report's folder, which the report
includes:

    python -m noneuclid.evaluate same-weights --profile cpu --out results/hnn/cpu-float32 trainer.dtype=float32
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import torch
from omegaconf import OmegaConf

from noneuclid import models, optim
from noneuclid.claims import data as claims_data
from noneuclid.nn.parameters import PoincareParameter
from noneuclid.runs.lookup import float64_overrides, table1_run_folder
from noneuclid.train import tasks
from noneuclid.train.stacking import optimizer_state

CPU = torch.device("cpu")


def evaluate_in(cfg, task, weights: dict, dtype) -> tuple[dict, dict, dict]:
    """A run's weights in `dtype`: its test metrics, the gradient of its loss on the first training
    batch and the step the run's optimizer (cfg.optim, clipping included) then gives each ball-valued
    weight (x_new - x: Riemannian SGD; compensated, plus what it keeps for later steps), both per
    parameter, as float64."""
    task, model = _model_in(cfg, task, weights, dtype)
    metrics = task.evaluate(model, "test")[0]
    grads = _first_batch_gradient(task, model)
    ball = {n: p for n, p in model.named_parameters() if isinstance(p, PoincareParameter)}
    before = {n: p.detach().clone() for n, p in ball.items()}
    optimizer = optim.build(cfg.optim, list(model.named_parameters()))
    optimizer.step()
    deferred = {n: optimizer_state(optimizer, p).get("residual", 0) for n, p in ball.items()}  # compensated RSGD
    return metrics, grads, {n: (p.detach() - before[n] + deferred[n]).double() for n, p in ball.items()}


def gradients_in(cfg, task, weights: dict, dtype, **model) -> dict:
    """The gradient of a run's loss on the first training batch at its weights in `dtype`, per
    parameter as float64, with `model` settings overriding the run's (e.g. carry_gaps=True)."""
    return _first_batch_gradient(*_model_in(cfg, task, weights, dtype, **model))


def _model_in(cfg, task, weights: dict, dtype, **model) -> tuple:
    """(the task's data in `dtype`, the run's model with its weights in `dtype`), eager (no compile
    time), with `model` settings overriding the run's."""
    task = task.to(CPU, dtype)
    net = models.build_on({**cfg.model, "compile": False, **model}, CPU, dtype, **task.model_kwargs)
    net.load_state_dict({k: v.to(dtype) for k, v in weights.items()})
    return task, net


def _first_batch_gradient(task, model) -> dict:
    """The gradient of the loss on the first training batch, per parameter, as float64 copies."""
    loss, _ = task.loss(model, next(iter(task.batches(0))))
    loss.backward()
    return {n: p.grad.double().clone() for n, p in model.named_parameters() if p.grad is not None}


def _largest(per_parameter: dict, fmt: str) -> str:
    """The largest value of {parameter: value}, formatted, and its parameter (none when 0); '-' when empty."""
    if not per_parameter:
        return "-"
    name = max(per_parameter, key=per_parameter.get)
    return f"{per_parameter[name]:{fmt}}" + (f" ({name})" if per_parameter[name] else "")


def _relative_errors(approx: dict, exact: dict) -> dict:
    """||approx - exact|| / ||exact|| per parameter of `exact`."""
    return {n: float((approx[n] - e).norm() / e.norm().clamp_min(1e-300)) for n, e in exact.items()}


def evaluate_runs(folders: dict, labels: dict) -> pd.DataFrame | None:
    """One row per finished run, in the order of `folders`, which maps (row, seed) to its folder (runs
    of one dtype); labels maps row to the model's name."""
    rows = []
    for (row, seed), folder in folders.items():
        if not (folder / "DONE").exists():
            continue
        cfg = OmegaConf.load(folder / "config.yaml")
        task = tasks.build(cfg)  # token ids: the same data for both dtypes
        weights = torch.load(folder / "checkpoint.pt", map_location=CPU, weights_only=False)["model"]
        (m64, g64, s64), (m32, g32, s32) = (evaluate_in(cfg, task, weights, dt) for dt in (torch.float64, torch.float32))
        lost = {n: float(((s32[n] == 0) & (s != 0)).sum()) / s.numel() for n, s in s64.items()}
        carried = "-"
        if cfg.model.geometry != "euclidean" and cfg.model.cell == "gru":  # the gates' gaps carried
            carried = _largest(_relative_errors(*(gradients_in(cfg, task, weights, dt, carry_gaps=True)
                                                  for dt in (torch.float32, torch.float64))), ".1e")
        rows.append({"model": labels[row], "seed": seed, "trained in": cfg.trainer.dtype,
                     "test accuracy %, float64": round(100 * m64["test_accuracy"], 2),
                     "test accuracy %, float32": round(100 * m32["test_accuracy"], 2),
                     "test loss, float64": round(m64["test_loss"], 4), "test loss, float32": round(m32["test_loss"], 4),
                     "states at the boundary s1 / s2": f"{m64['test_boundary_share_s1']:.0%} / "
                                                       f"{m64['test_boundary_share_s2']:.0%}"
                                                       if "test_boundary_share_s1" in m64 else "-",
                     "float32 gradient, largest relative error": _largest(_relative_errors(g32, g64), ".1e"),
                     "the same with model.carry_gaps": carried,
                     "float32 RSGD step, largest relative error": _largest(_relative_errors(s32, s64), ".1e"),
                     "RSGD step coordinates lost to float32 rounding": _largest(lost, ".1%"),
                     "non-finite float32 outputs": m32["test_nonfinite"]})
    return pd.DataFrame(rows) if rows else None


def make(runs_dir: Path, profile: str, out: Path, seeds, overrides) -> Path:
    """same_weights.csv in `out`: the PREFIX-10 weights trained in float64 (overrides without the
    dtype), then those trained with `overrides`, each evaluated in both dtypes."""
    rows = claims_data.load("hnn").labels["models"]  # Table 1's models -> their names
    tables = [evaluate_runs({(row, s): table1_run_folder(runs_dir, profile, row, "prefix10", s, trained_in)
                             for row in rows for s in seeds}, rows)
              for trained_in in (float64_overrides(overrides), overrides)]
    tables = [t for t in tables if t is not None]
    if not tables:
        raise FileNotFoundError(f"no finished PREFIX-10 runs of Table 1 under {runs_dir}/hnn/{profile} "
                                f"with {' '.join(overrides) or 'the default settings'}")
    out.mkdir(parents=True, exist_ok=True)
    pd.concat(tables).to_csv(out / "same_weights.csv", index=False)
    return out / "same_weights.csv"
