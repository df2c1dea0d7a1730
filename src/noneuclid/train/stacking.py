"""Several runs trained as one model: the weights of K runs stacked along a leading runs dimension.

Ganea et al.'s models are tiny (dimension 5): one training step is a few hundred small tensor
operations, and much of their cost is per call. Runs that differ only in seed and data (the 3 seeds
x 3 PREFIX datasets of one Table 1 model, the seeds of one Table 2 cell) therefore train side by side
in one model built with `runs=K` (every weight [K, ...]), sharing those calls; `python -m
noneuclid.bench hyperbolic` (and `mlr`, Table 2's) measures the runs per hour this gains
(stacked_runs_speedup; figures in docs/benchmarks.md). A stack's epoch is one number of steps: runs
whose epochs differ in length (Table 2's balanced batches) train as one stack per length (UnequalSteps).

Each run stays what it would be alone: its initial weights are drawn as for a single run (seed,
then model) and stacked; Adam and Riemannian SGD act element-wise or row-wise, and gradient clipping
per copy (`nn.parameters.copy_dims`), so no quantity mixes runs; its batches come from its own data
in its own order; its checkpoint is its slice of the stack, the same file a single run writes, so a
run can be resumed alone or in another stack. So a run also stops as it would alone: with
trainer.converge, a run whose loss has plateaued finishes at that epoch and the others go on from
their checkpoints as a smaller stack (loop._train_pending).
"""

from __future__ import annotations

import torch
from omegaconf import OmegaConf

from noneuclid.models import build_on
from noneuclid.runs import NOT_SETTINGS, drop_keys

# Config keys in which the runs of one stack may differ (everything else must be equal).
VARYING = ("seed", "data")


class UnequalSteps(ValueError):
    """Runs of one stack whose epochs take different numbers of steps (`steps`, one per run); `groups`
    lists the runs (indices) of each number of steps, in increasing order: each group stacks."""

    def __init__(self, steps: list[int]):
        super().__init__(f"runs of one stack need epochs of one number of steps, got {steps}")
        self.groups = [[i for i, s in enumerate(steps) if s == n] for n in sorted(set(steps))]


def check_stackable(cfgs) -> None:
    """Raise a clear error unless the runs differ only in VARYING keys (and share a model that can
    be stacked)."""
    if len(cfgs) == 1:
        return
    if "runs" not in _model_arguments(cfgs[0].model.name):
        raise ValueError(
            f"model {cfgs[0].model.name!r} cannot be stacked (its weights have no runs "
            f"dimension): train its runs one by one (stack={{}})"
        )
    first = _comparable(cfgs[0])
    for cfg in cfgs[1:]:
        if _comparable(cfg) != first:
            diff = sorted(k for k in set(first) | set(_comparable(cfg)) if first.get(k) != _comparable(cfg).get(k))
            raise ValueError(f"runs of one stack may differ only in {VARYING}, these differ: {diff}")
        if cfg.data.get("batch_size") != cfgs[0].data.get("batch_size"):
            raise ValueError("runs of one stack need the same data.batch_size")


def _model_arguments(name: str) -> set[str]:
    import inspect

    from noneuclid.models import MODELS

    return set(inspect.signature(MODELS[name]).parameters)


def _comparable(cfg) -> dict:
    """The config as it must be equal across a stack's runs: without VARYING, the keys that do not
    change what a run computes (NOT_SETTINGS) and the run name (which names the seed and data)."""
    c = drop_keys(OmegaConf.to_container(cfg, resolve=False), (*VARYING, *NOT_SETTINGS, "study.run_name"))
    return {k: repr(v) for k, v in c.items()}


def stack_models(model_cfg, models, device, dtype, **data_kwargs):
    """One model with runs=len(models) whose run i has the weights of models[i]."""
    stacked = build_on(model_cfg, device, dtype, runs=len(models), **data_kwargs)
    stacked.load_state_dict(stack_states([m.state_dict() for m in models]))
    return stacked


def stack_states(states: list):
    """Nested dicts/lists of tensors of single runs -> one of stacked tensors: tensors with a runs
    dimension are concatenated along it; scalars (e.g. Adam's step count) must agree."""
    first = states[0]
    if isinstance(first, dict):
        return {k: stack_states([s[k] for s in states]) for k in first}
    if isinstance(first, (list, tuple)):
        return type(first)(stack_states(list(parts)) for parts in zip(*states))
    if torch.is_tensor(first) and first.dim() > 0:
        return torch.cat(states)
    if any(not _equal(first, s) for s in states[1:]):
        raise ValueError(f"runs of one stack disagree on a shared value: {states}")
    return first


def _equal(a, b) -> bool:
    return bool((a == b).all()) if torch.is_tensor(a) else a == b


def run_slice(state, i: int):
    """Run i's part of a stacked state (the inverse of stack_states): [i:i+1] of every tensor with
    a runs dimension, the rest unchanged."""
    if isinstance(state, dict):
        return {k: run_slice(v, i) for k, v in state.items()}
    if isinstance(state, (list, tuple)):
        return type(state)(run_slice(v, i) for v in state)
    if torch.is_tensor(state) and state.dim() > 0:
        return state[i : i + 1].clone()
    return state


def checkpoint_slice(ckpt: dict, i: int) -> dict:
    """Run i's checkpoint from the stack's: the file a single run writes (RNG states are shared)."""
    return {**ckpt, "model": run_slice(ckpt["model"], i), "optimizer": run_slice(ckpt["optimizer"], i)}


def stack_checkpoints(ckpts: list[dict]) -> dict:
    """The checkpoint of a stack from its runs' checkpoints (same epoch; RNG state of the first)."""
    return {
        **ckpts[0],
        "model": stack_states([c["model"] for c in ckpts]),
        "optimizer": stack_states([c["optimizer"] for c in ckpts]),
    }


def finite_runs(model, runs: int) -> torch.Tensor:
    """[runs] bool: whether every gradient element of each run is finite. A finite sum of a run's
    elements implies that all of them are (inf and NaN propagate), and a sum is a fraction of the
    cost of an elementwise test; the runs whose sum is not finite (or overflowed) are tested element
    by element. A sparse gradient counts by its entries."""
    grads = [p.grad._values() if p.grad.is_sparse else p.grad for p in model.parameters() if p.grad is not None]
    if not grads:
        return torch.ones(runs, dtype=torch.bool)
    sums = torch.stack([g.reshape(runs, -1).sum(1) for g in grads]).sum(0)  # [runs]
    if bool(sums.isfinite().all()):
        return torch.ones(runs, dtype=torch.bool)
    return torch.stack([g.reshape(runs, -1).isfinite().all(1) for g in grads]).all(0).cpu()


@torch.no_grad()
def step_skipping(model, optimizer, finite: torch.Tensor) -> None:
    """optimizer.step() for the runs with finite gradients only: the others keep their weights and
    optimizer moments, as a single run skips its update (only the step count they share advances)."""
    if len(finite) == 1:
        return  # the loop calls this only when some run is not finite: a single run skips its update
    bad = ~finite.to(next(model.parameters()).device)
    params = [p for p in model.parameters() if p.grad is not None]
    saved = [
        (
            p[bad].clone(),
            {k: v[bad].clone() for k, v in optimizer_state(optimizer, p).items() if torch.is_tensor(v) and v.dim() > 0},
        )
        for p in params
    ]
    for p in params:
        p.grad[bad] = 0
    optimizer.step()
    for p, (weights, moments) in zip(params, saved):
        s = optimizer_state(optimizer, p)
        p[bad] = weights
        for k, v in moments.items():
            s[k][bad] = v


def optimizer_state(optimizer, p) -> dict:
    """The state (moments) that `optimizer`, or one of a CompositeOptimizer's, keeps for p."""
    for opt in getattr(optimizer, "optimizers", [optimizer]):
        if p in opt.state:
            return opt.state[p]
    return {}
