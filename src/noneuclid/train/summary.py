"""What a run's metrics rows and summary.json hold besides the task's own metrics: the constraint
errors of manifold parameters, and the final numbers of a run."""

from __future__ import annotations

import statistics

from noneuclid.geometry import stiefel
from noneuclid.nn import StiefelParameter


def constraint_errors(model) -> dict:
    """{"orthonormality_error": max |Y^T Y - I| over the model's Stiefel parameters (0 when it has none)}."""
    errs = [float(stiefel.orthonormality_error(p.detach())) for p in model.parameters()
            if isinstance(p, StiefelParameter)]
    return {"orthonormality_error": max(errs, default=0.0)}


def summarise(rows: list[dict], train_seconds: float, model, runs: int = 1) -> dict:
    """Final numbers of a run for summary.json (rows without train_loss are mid-epoch evaluations);
    `runs` > 1 for a run trained in a stack of that many (train_seconds is then its share)."""
    evaluated = [r for r in rows if any(k.startswith("test_") for k in r)]
    evaluated_all = [r for r in rows if any(k.endswith("_nonfinite") for k in r)]
    rows = [r for r in rows if "train_loss" in r]
    last = rows[-1]
    summary = {
        "epochs": last["epoch"],
        "final_train_loss": last["train_loss"],
        "min_train_loss": min(r["train_loss"] for r in rows),
        "train_seconds": train_seconds,
        "stacked_runs": runs,
        "seconds_per_epoch": train_seconds / len(rows),
        "median_seconds_per_epoch": statistics.median(r["train_seconds"] for r in rows),
        "orthonormality_error": last["orthonormality_error"],
        "max_orthonormality_error": max(r["orthonormality_error"] for r in rows),
        "parameters": sum(p.numel() for p in model.parameters()) // runs,
        "stiefel_parameters": sum(p.numel() for p in model.parameters() if isinstance(p, StiefelParameter)),
        # NaN/inf events: training steps with a non-finite gradient + evaluated examples with non-finite outputs
        "nonfinite_steps": sum(r.get("nonfinite_steps", 0) for r in rows),
        "nonfinite_outputs": sum(v for r in evaluated_all for k, v in r.items() if k.endswith("_nonfinite")),
    }
    summary["nonfinite_events"] = summary["nonfinite_steps"] + summary["nonfinite_outputs"]
    if evaluated:
        summary.update({f"final_{k}": v for k, v in evaluated[-1].items() if k.startswith("test_")})
    if any("dev_accuracy" in r for r in evaluated):  # model selection on dev (Ganea et al.)
        best = max(evaluated, key=lambda r: r["dev_accuracy"])
        summary.update(best_dev_accuracy=best["dev_accuracy"], test_accuracy_at_best_dev=best["test_accuracy"])
    return summary
