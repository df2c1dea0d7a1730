"""The shared trainer: every experiment of the suite goes through `train(cfg)`.

config -> task (data + loss) + model + optimizer -> epochs of steps -> run folder (+ W&B).
"""

from __future__ import annotations

import json
import logging
import math
import statistics
import time

import torch
from omegaconf import DictConfig
from tqdm import tqdm

from noneuclid import models, optim
from noneuclid.geometry import stiefel
from noneuclid.nn import StiefelParameter
from noneuclid.train import loggers, tasks
from noneuclid.train.run_dir import RunDir, atomic_write, resolve_device

log = logging.getLogger("noneuclid")


class TrainingDiverged(RuntimeError):
    """The loss became NaN or inf."""


def build_model(cfg, device, dtype, **data_kwargs):
    """The model created directly in `dtype` (so manifold weights start on the manifold in it)."""
    previous = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        return models.build(cfg, **data_kwargs).to(device)
    finally:
        torch.set_default_dtype(previous)


def orthonormality_error(model) -> float:
    """max |Y^T Y - I| over the model's Stiefel parameters (0 when it has none)."""
    errs = [float(stiefel.orthonormality_error(p.detach())) for p in model.parameters()
            if isinstance(p, StiefelParameter)]
    return max(errs, default=0.0)


def train(cfg: DictConfig) -> dict:
    """Train (or resume, or skip if finished) the run of `cfg`; returns its summary."""
    run = RunDir(cfg)
    if run.done:
        log.info("finished already, skipping: %s", run.path)
        return run.summary()
    if run.file("DIVERGED").exists():  # an outcome too: a re-run would diverge again, at full cost
        log.info("diverged before, skipping (delete the folder to train it again): %s", run.path)
        return json.loads(run.file("DIVERGED").read_text())

    # Everything that can fail on a bad config, missing data or an unwritable output folder fails
    # here, before any training.
    run.ensure_writable()
    torch.manual_seed(cfg.seed)
    torch.use_deterministic_algorithms(cfg.trainer.deterministic)
    if cfg.trainer.threads:
        torch.set_num_threads(cfg.trainer.threads)
    device, dtype = resolve_device(cfg.trainer.device), getattr(torch, cfg.trainer.dtype)
    if cfg.profile.name == "paper" and device.type != "cuda":
        log.warning("warning: profile=paper on %s; the paper's settings are meant for a GPU", device)
    task = tasks.build(cfg).to(device, dtype)
    model = build_model(cfg.model, device, dtype, **task.model_kwargs)
    optimizer = optim.build(cfg.optim, list(model.named_parameters()))
    run.create()
    _attach_file_log(run)

    logger, exit_code = None, 1
    try:
        start_epoch, seconds_so_far = restore(run, model, optimizer)
        logger = loggers.build(cfg, run)
        epochs, steps = cfg.trainer.epochs, task.steps_per_epoch()
        bar = tqdm(total=epochs * steps, initial=start_epoch * steps, desc=run.name, unit="step",
                   disable=not cfg.trainer.progress, mininterval=1.0, dynamic_ncols=True)
        def evaluate(epoch: int, step: int) -> None:
            """Mid-epoch evaluation every trainer.eval_every_steps steps (Ganea et al.: 2000)."""
            every = cfg.trainer.eval_every_steps
            if every and step % every == 0:
                row = {"epoch": epoch + 1, "step": step, **evaluation(model, task)}
                run.append_metrics(row)
                logger.log(row)

        for epoch in range(start_epoch, epochs):
            try:
                epoch_row = train_epoch(model, optimizer, task, epoch, bar, evaluate)
            except TrainingDiverged as e:  # recorded for the reports (e.g. PostNorm transformers)
                atomic_write(run.file("DIVERGED"), json.dumps({"epoch": epoch + 1, "message": str(e)}))
                raise
            row = {"epoch": epoch + 1, "step": (epoch + 1) * steps, **epoch_row}
            optim.end_epoch(optimizer, cfg.optim)
            seconds_so_far += row["train_seconds"]
            if (epoch + 1) % cfg.trainer.eval_every == 0 or epoch + 1 == epochs:
                row.update(evaluation(model, task))
            row["orthonormality_error"] = orthonormality_error(model)
            run.append_metrics(row)
            run.save_checkpoint({
                "epochs_done": epoch + 1, "train_seconds": seconds_so_far,
                "model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "rng_cpu": torch.get_rng_state(),  # the random sections draw from it
                "rng_cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None,
            })
            logger.log(row)  # after the checkpoint: a resumed run never logs an epoch twice
        bar.close()
        summary = summarise(run.metrics(), seconds_so_far, model)
        run.finish(summary)
        exit_code = 0
        log.info("done: %s", {k: summary[k] for k in ("final_train_loss", "final_test_accuracy") if k in summary})
        return summary
    except TrainingDiverged:
        raise  # recorded as DIVERGED above
    except Exception as e:  # recorded for the reports, with the traceback in train.log
        log.exception("failed: %s", e)
        atomic_write(run.file("FAILED"), json.dumps({"error": type(e).__name__, "message": str(e)}))
        raise
    finally:
        if logger is not None:
            logger.finish(exit_code)


def evaluation(model, task) -> dict:
    """The task's metrics on each of its evaluation splits, in eval mode."""
    model.eval()
    row = {k: v for split in task.eval_splits for k, v in task.evaluate(model, split).items()}
    model.train()
    return row


def restore(run: RunDir, model, optimizer) -> tuple[int, float]:
    """Load the run's checkpoint, if any, into model, optimizer and RNGs; drop metrics lines past it.
    Returns (epochs already done, training seconds spent on them)."""
    ckpt = run.load_checkpoint()
    if ckpt is None:
        run.truncate_metrics(0)
        log.info("run folder %s", run.path)
        return 0, 0.0
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    torch.set_rng_state(ckpt["rng_cpu"])
    if ckpt["rng_cuda"] is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(ckpt["rng_cuda"])
    run.truncate_metrics(ckpt["epochs_done"])
    log.info("resuming %s after epoch %d", run.path, ckpt["epochs_done"])
    return ckpt["epochs_done"], ckpt["train_seconds"]


def train_epoch(model, optimizer, task, epoch: int, bar, after_step=None) -> dict:
    """One pass over the training data; returns its wall time, the training loss over the epoch,
    loss.finish(mean over all its examples of the per-example term), as the model was at each step,
    and the number of steps whose gradient was not finite (their update is skipped and logged).
    after_step(epoch, global step) runs after every step (mid-epoch evaluation); its time is not
    counted as training time."""
    model.train()
    total, count, paused, skipped = 0.0, 0, 0.0, 0
    start = time.perf_counter()
    steps_before = epoch * task.steps_per_epoch()
    for step, batch in enumerate(task.batches(epoch)):
        loss, per_example_sum = task.loss(model, batch)
        value = loss.detach().item()
        if not math.isfinite(value):
            raise TrainingDiverged(
                f"the training loss became {value} at epoch {epoch + 1}, step {step + 1}. The last good "
                f"checkpoint (end of epoch {epoch}) is kept in the run folder; running the same command "
                f"again resumes from it and will most likely diverge again. Change a setting (e.g. a "
                f"smaller optim.lr, or trainer.dtype=float64) to start a new run.")
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if gradients_finite(model):
            optimizer.step()
        else:
            skipped += 1
            log.warning("non-finite gradient at epoch %d, step %d: update skipped (counted as "
                        "nonfinite_steps in the metrics and summary)", epoch + 1, step + 1)
        total, count = total + per_example_sum, count + len(batch[-1])
        bar.update(1)
        bar.set_postfix(epoch=epoch + 1, loss=f"{value:.4f}", refresh=False)
        if after_step is not None:
            pause = time.perf_counter()
            after_step(epoch, steps_before + step + 1)
            paused += time.perf_counter() - pause
    if next(model.parameters()).is_cuda:
        torch.cuda.synchronize()
    return {"train_loss": task.finish_loss(total / count), "train_seconds": time.perf_counter() - start - paused,
            "nonfinite_steps": skipped}


def gradients_finite(model) -> bool:
    """Whether every gradient of the model is finite (one reduction and one sync per step)."""
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    return not grads or bool(torch.stack(torch._foreach_norm(grads)).isfinite().all())


def summarise(rows: list[dict], train_seconds: float, model) -> dict:
    """Final numbers of a run for summary.json (rows without train_loss are mid-epoch evaluations)."""
    evaluated = [r for r in rows if any(k.startswith("test_") for k in r)]
    evaluated_all = [r for r in rows if any(k.endswith("_nonfinite") for k in r)]
    rows = [r for r in rows if "train_loss" in r]
    last = rows[-1]
    summary = {
        "epochs": last["epoch"],
        "final_train_loss": last["train_loss"],
        "min_train_loss": min(r["train_loss"] for r in rows),
        "train_seconds": train_seconds,
        "seconds_per_epoch": train_seconds / len(rows),
        "median_seconds_per_epoch": statistics.median(r["train_seconds"] for r in rows),
        "orthonormality_error": last["orthonormality_error"],
        "max_orthonormality_error": max(r["orthonormality_error"] for r in rows),
        "parameters": sum(p.numel() for p in model.parameters()),
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


def _attach_file_log(run: RunDir) -> None:
    for h in list(log.handlers):
        if isinstance(h, logging.FileHandler):
            log.removeHandler(h)
            h.close()
    handler = logging.FileHandler(run.file("train.log"))
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    log.addHandler(handler)
