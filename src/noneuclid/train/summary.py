"""What a run's metrics rows and summary.json hold besides the task's own metrics: the constraint
errors of manifold parameters, and the final numbers of a run."""

from __future__ import annotations

import statistics


def constraint_errors(model) -> dict:
    """{p.constraint: the largest p.constraint_error() over the model's parameters of that kind}, for
    the manifold parameters that define one (e.g. StiefelParameter: "orthonormality_error"); {} for
    a model without them."""
    errors = {}
    for p in model.parameters():
        if hasattr(p, "constraint_error"):
            errors[p.constraint] = max(errors.get(p.constraint, 0.0), p.constraint_error())
    return errors


def _constrained(model) -> tuple[set, int]:
    """(the constraint names of the model's manifold parameters, how many numbers those parameters hold)."""
    params = [p for p in model.parameters() if hasattr(p, "constraint_error")]
    return {p.constraint for p in params}, sum(p.numel() for p in params)


def summarise(rows: list[dict], train_seconds: float, model, runs: int = 1) -> dict:
    """Final numbers of a run for summary.json (rows without train_loss are mid-epoch evaluations);
    `runs` > 1 for a run trained in a stack of that many (train_seconds is then its share);
    train_cpu_seconds: the CPU time of its epochs (None where an epoch, trained before it was logged, lacks it)."""
    evaluated = [r for r in rows if any(k.startswith("test_") for k in r)]
    evaluated_all = [r for r in rows if any(k.endswith("_nonfinite") for k in r)]
    rows = [r for r in rows if "train_loss" in r]
    last = rows[-1]
    constraints, constrained = _constrained(model)
    summary = {
        "epochs": last["epoch"],
        "final_train_loss": last["train_loss"],
        "min_train_loss": min(r["train_loss"] for r in rows),
        "train_seconds": train_seconds,
        "train_cpu_seconds": sum(r["train_cpu_seconds"] for r in rows)
        if all("train_cpu_seconds" in r for r in rows)
        else None,
        "stacked_runs": runs,
        "seconds_per_epoch": train_seconds / len(rows),
        "median_seconds_per_epoch": statistics.median(r["train_seconds"] for r in rows),
        "parameters": sum(p.numel() for p in model.parameters()) // runs,
        "constrained_parameters": constrained // runs,
        # NaN/inf events: training steps with a non-finite gradient + evaluated examples with non-finite outputs
        "nonfinite_steps": sum(r.get("nonfinite_steps", 0) for r in rows),
        "nonfinite_outputs": sum(v for r in evaluated_all for k, v in r.items() if k.endswith("_nonfinite")),
    }
    summary["nonfinite_events"] = summary["nonfinite_steps"] + summary["nonfinite_outputs"]
    for name in sorted(constraints):
        summary.update({name: last[name], f"max_{name}": max(r[name] for r in rows)})
    if evaluated:
        summary.update({f"final_{k}": v for k, v in evaluated[-1].items() if k.startswith("test_")})
    if any("dev_accuracy" in r for r in evaluated):  # model selection on dev (Ganea et al.)
        best = max(evaluated, key=lambda r: r["dev_accuracy"])
        summary.update(best_dev_accuracy=best["dev_accuracy"], test_accuracy_at_best_dev=best["test_accuracy"])
    return summary
