"""The shared trainer: every experiment of the suite goes through `train(cfg)`.

config -> task (data + loss) + model + optimizer -> epochs of steps -> run folder (+ W&B).
Runs that differ only in seed and data can train side by side as one stacked model
(`train_stacked`, see `stacking.py`); a single run is a stack of one.
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
from noneuclid.train import loggers, stacking, tasks
from noneuclid.train.run_dir import RunDir, atomic_write, resolve_device

log = logging.getLogger("noneuclid")


class TrainingDiverged(RuntimeError):
    """The loss became NaN or inf (for `runs`: the indices of the runs of a stack whose loss did)."""

    def __init__(self, message: str, runs: list[int] = (0,)):
        super().__init__(message)
        self.runs = list(runs)


def orthonormality_error(model) -> float:
    """max |Y^T Y - I| over the model's Stiefel parameters (0 when it has none)."""
    errs = [float(stiefel.orthonormality_error(p.detach())) for p in model.parameters()
            if isinstance(p, StiefelParameter)]
    return max(errs, default=0.0)


def train(cfg: DictConfig) -> dict:
    """Train (or resume, or skip if finished) the run of `cfg`; returns its summary, or
    {"trained_by": holder} when another process is training it (see train_stacked)."""
    return train_stacked([cfg])[0]


def train_stacked(cfgs: list[DictConfig]) -> list[dict]:
    """Train the runs of `cfgs` side by side, as one model whose weights carry a leading runs
    dimension (`stacking.py`): runs that differ only in seed and data, e.g. the seeds and PREFIX
    datasets of one Table 1 model. Each run keeps its own folder, checkpoint, metrics, summary and
    logger, exactly as when trained alone; finished runs, and runs another process is training
    (RUNNING), are skipped. Returns the summaries."""
    runs = [RunDir(cfg) for cfg in cfgs]
    summaries = [finished_summary(run) for run in runs]
    claimed = []
    try:
        for i in [i for i, s in enumerate(summaries) if s is None]:
            holder = runs[i].claim()
            if holder:
                log.warning("skipping, being trained by %s: %s", holder, runs[i].path)
                summaries[i] = {"trained_by": holder}
            else:
                claimed.append(i)
                summaries[i] = finished_summary(runs[i])  # finished by another process meanwhile?
        pending = [i for i in claimed if summaries[i] is None]
        if pending:
            for i, summary in zip(pending, _train_pending([cfgs[i] for i in pending], [runs[i] for i in pending])):
                summaries[i] = summary
        return summaries
    finally:
        for i in claimed:
            runs[i].release()


def finished_summary(run: RunDir) -> dict | None:
    """The summary of a finished run (DONE, or DIVERGED: a re-run would diverge again, at full
    cost), None for a run still to train."""
    if run.done:
        log.info("finished already, skipping: %s", run.path)
        return run.summary()
    if run.file("DIVERGED").exists():
        log.info("diverged before, skipping (delete the folder to train it again): %s", run.path)
        return json.loads(run.file("DIVERGED").read_text())
    return None


def _train_pending(cfgs: list[DictConfig], runs: list[RunDir]) -> list[dict]:
    cfg = cfgs[0]
    stacking.check_stackable(cfgs)
    # Everything that can fail on a bad config or missing data fails here, before any training (an
    # unwritable output folder failed already, in RunDir.claim).
    torch.use_deterministic_algorithms(cfg.trainer.deterministic)
    if cfg.trainer.threads:
        torch.set_num_threads(cfg.trainer.threads)
    device, dtype = resolve_device(cfg.trainer.device), getattr(torch, cfg.trainer.dtype)
    init_dtype = getattr(torch, cfg.trainer.init_dtype) if cfg.trainer.init_dtype else None  # None: dtype
    if cfg.profile.name == "paper" and device.type != "cuda":
        log.warning("warning: profile=paper on %s; the paper's settings are meant for a GPU", device)
    run_tasks = [tasks.build(c).to(device, dtype) for c in cfgs]
    task = run_tasks[0] if len(cfgs) == 1 else tasks.stack(run_tasks)
    models_alone = []
    for c, t in zip(cfgs, run_tasks):  # each run's initial weights, drawn as when trained alone
        torch.manual_seed(c.seed)
        models_alone.append(models.build_on(c.model, device, dtype, init_dtype, **t.model_kwargs))
    model = models_alone[0] if len(cfgs) == 1 else stacking.stack_models(cfg.model, models_alone, device, dtype,
                                                                        **task.model_kwargs)
    optimizer = optim.build(cfg.optim, list(model.named_parameters()))
    for run in runs:
        run.create()
    _attach_file_log(runs)
    if cfg.trainer.extend:
        for run in runs:
            shorter = None if run.file("checkpoint.pt").exists() else run.shorter_run()
            if shorter is not None:
                run.start_from(shorter)

    loggers_, exit_code = [], 1
    try:
        start_epoch, seconds_so_far = restore(runs, model, optimizer)
        if start_epoch is None:  # the runs stopped at different epochs: train each group on its own
            return _train_by_epoch(cfgs, runs)
        loggers_ = [loggers.build(c, run) for c, run in zip(cfgs, runs)]
        epochs, steps = cfg.trainer.epochs, task.steps_per_epoch()
        name = runs[0].name + (f" (+{len(runs) - 1} stacked)" if len(runs) > 1 else "")
        bar = tqdm(total=epochs * steps, initial=start_epoch * steps, desc=name, unit="step",
                   disable=not cfg.trainer.progress, mininterval=1.0, dynamic_ncols=True)

        def log_rows(rows: list[dict]) -> None:
            for run, logger, row in zip(runs, loggers_, rows):
                run.append_metrics(row)
                logger.log(row)

        def evaluates_at_end(epoch: int) -> bool:
            """Whether epoch (0-based) ends with an evaluation: every trainer.eval_every epochs, and the last."""
            return (epoch + 1) % cfg.trainer.eval_every == 0 or epoch + 1 == epochs

        def evaluate(epoch: int, step: int) -> None:
            """Mid-epoch evaluation every trainer.eval_every_steps steps (Ganea et al.: 2000); not at
            the epoch's last step when the epoch-end evaluation follows."""
            every = cfg.trainer.eval_every_steps
            if every and step % every == 0 and not (step == (epoch + 1) * steps and evaluates_at_end(epoch)):
                log_rows([{"epoch": epoch + 1, "step": step, **row} for row in evaluation(model, task)])

        for epoch in range(start_epoch, epochs):
            try:
                epoch_rows = train_epoch(model, optimizer, task, epoch, bar, evaluate)
            except TrainingDiverged as e:  # recorded for the reports (e.g. PostNorm transformers)
                for i in e.runs:
                    atomic_write(runs[i].file("DIVERGED"), json.dumps({"epoch": epoch + 1, "message": str(e)}))
                if len(runs) == 1:
                    raise
                log.error("diverged: %s", e)  # the others go on from their last checkpoint
                keep = [i for i in range(len(runs)) if i not in e.runs]
                return _summaries_after_divergence(cfgs, keep, e)
            optim.end_epoch(optimizer, cfg.optim)
            seconds_so_far += epoch_rows[0]["train_seconds"]
            scores = evaluation(model, task) if evaluates_at_end(epoch) else [{}] * len(runs)
            ortho = orthonormality_error(model)
            rows = [{"epoch": epoch + 1, "step": (epoch + 1) * steps, **row, **score, "orthonormality_error": ortho}
                    for row, score in zip(epoch_rows, scores)]
            checkpoint = {"epochs_done": epoch + 1, "train_seconds": seconds_so_far,
                          "model": model.state_dict(), "optimizer": optimizer.state_dict(),
                          "rng_cpu": torch.get_rng_state(),  # the random sections draw from it
                          "rng_cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None}
            for i, run in enumerate(runs):
                run.append_metrics(rows[i])
                run.save_checkpoint(stacking.checkpoint_slice(checkpoint, i) if len(runs) > 1 else checkpoint)
            for logger, row in zip(loggers_, rows):
                logger.log(row)  # after the checkpoint: a resumed run never logs an epoch twice
        bar.close()
        summaries = []
        for run in runs:
            summary = summarise(run.metrics(), seconds_so_far, model, len(runs))
            run.finish(summary)
            summaries.append(summary)
        exit_code = 0
        log.info("done: %s", [{k: s[k] for k in ("final_train_loss", "final_test_accuracy") if k in s}
                              for s in summaries])
        return summaries
    except TrainingDiverged:
        raise  # recorded as DIVERGED above
    except Exception as e:  # recorded for the reports, with the traceback in train.log
        log.exception("failed: %s", e)
        for run in runs:
            atomic_write(run.file("FAILED"), json.dumps({"error": type(e).__name__, "message": str(e)}))
        raise
    finally:
        for logger in loggers_:
            logger.finish(exit_code)


def _train_groups(cfgs, groups: list[list[int]], summaries: list | None = None) -> list[dict]:
    """Train each group of runs (indices into cfgs) as its own stack, in order; returns the
    summaries of all runs, those given in `summaries` kept."""
    summaries = list(summaries or [None] * len(cfgs))
    for group in groups:
        for i, summary in zip(group, train_stacked([cfgs[i] for i in group])):
            summaries[i] = summary
    return summaries


def _summaries_after_divergence(cfgs, keep: list[int], error: TrainingDiverged) -> list[dict]:
    """The group's summaries after the runs `error.runs` diverged: theirs from DIVERGED, the others
    trained on (from their last checkpoint) as a smaller stack."""
    diverged = [json.loads(RunDir(cfgs[i]).file("DIVERGED").read_text()) if i in error.runs else None
                for i in range(len(cfgs))]
    return _train_groups(cfgs, [keep], diverged)


def _train_by_epoch(cfgs, runs) -> list[dict]:
    """Runs of one stack that were checkpointed at different epochs (a kill between two of their
    checkpoint writes): each group of equal progress is trained as its own stack."""
    done = [r.load_checkpoint()["epochs_done"] if r.file("checkpoint.pt").exists() else 0 for r in runs]
    return _train_groups(cfgs, [[i for i, d in enumerate(done) if d == e] for e in sorted(set(done))])


def evaluation(model, task) -> list[dict]:
    """The task's metrics on each of its evaluation splits, in eval mode: one row per run."""
    model.eval()
    rows = [{} for _ in range(getattr(task, "runs", 1))]
    for split in task.eval_splits:
        for row, scores in zip(rows, per_run(task.evaluate(model, split)), strict=True):
            row.update(scores)
    model.train()
    return rows


def per_run(value) -> list:
    """A task's per-run result as a list: tasks of one run return a single value."""
    return value if isinstance(value, list) else [value]


def restore(runs: list[RunDir], model, optimizer) -> tuple[int | None, float]:
    """Load the runs' checkpoints, if any, into model, optimizer and RNGs; drop metrics lines past
    them. Returns (epochs already done, training seconds spent on them), or (None, 0) when the runs
    of a stack stopped at different epochs."""
    ckpts = [run.load_checkpoint() for run in runs]
    if all(c is None for c in ckpts):
        for run in runs:
            run.truncate_metrics(0)
            log.info("run folder %s", run.path)
        return 0, 0.0
    if any(c is None for c in ckpts) or len({c["epochs_done"] for c in ckpts}) > 1:
        return None, 0.0
    ckpt = ckpts[0] if len(ckpts) == 1 else stacking.stack_checkpoints(ckpts)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    torch.set_rng_state(ckpt["rng_cpu"])
    if ckpt["rng_cuda"] is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(ckpt["rng_cuda"])
    for run in runs:
        run.truncate_metrics(ckpt["epochs_done"])
        log.info("resuming %s after epoch %d", run.path, ckpt["epochs_done"])
    return ckpt["epochs_done"], ckpt["train_seconds"]


def train_epoch(model, optimizer, task, epoch: int, bar, after_step=None) -> list[dict]:
    """One pass over the training data; returns, per run, its wall time, the training loss over the
    epoch, loss.finish(mean over all its examples of the per-example term), as the model was at each
    step, and the number of steps whose gradient was not finite (their update is skipped and
    logged). after_step(epoch, global step) runs after every step (mid-epoch evaluation); its time
    is not counted as training time. A stack's wall time is shared by its runs: each is given its
    share."""
    model.train()
    runs = getattr(task, "runs", 1)
    totals, count, paused, skipped = torch.zeros(runs, dtype=torch.float64), 0, 0.0, torch.zeros(runs, dtype=torch.long)
    start = time.perf_counter()
    steps_before = epoch * task.steps_per_epoch()
    for step, batch in enumerate(task.batches(epoch)):
        loss, per_example_sums = task.loss(model, batch)
        sums = torch.tensor(per_run(per_example_sums), dtype=torch.float64)
        value = loss.detach().item()
        if not (math.isfinite(value) and bool(sums.isfinite().all())):
            bad = (~sums.isfinite()).nonzero().flatten().tolist() or list(range(runs))  # which runs, where known
            raise TrainingDiverged(
                f"the training loss became {value if not math.isfinite(value) else sums[bad[0]].item()} at "
                f"epoch {epoch + 1}, step {step + 1}. The last "
                f"good checkpoint (end of epoch {epoch}) is kept in the run folder; running the same command "
                f"again resumes from it and will most likely diverge again. Change a setting (e.g. a "
                f"smaller optim.lr, or trainer.dtype=float64) to start a new run.", runs=bad)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        finite = stacking.finite_runs(model, runs)
        if bool(finite.all()):
            optimizer.step()
        else:
            skipped += ~finite
            stacking.step_skipping(model, optimizer, finite)
            log.warning("non-finite gradient at epoch %d, step %d: update skipped (counted as "
                        "nonfinite_steps in the metrics and summary)", epoch + 1, step + 1)
        totals, count = totals + sums, count + batch[-1].shape[-1]
        bar.update(1)
        bar.set_postfix(epoch=epoch + 1, loss=f"{float(sums.mean()) / batch[-1].shape[-1]:.4f}", refresh=False)
        if after_step is not None:
            pause = time.perf_counter()
            after_step(epoch, steps_before + step + 1)
            paused += time.perf_counter() - pause
    if next(model.parameters()).is_cuda:
        torch.cuda.synchronize()
    seconds = (time.perf_counter() - start - paused) / runs
    return [{"train_loss": task.finish_loss(float(total) / count), "train_seconds": seconds,
             "nonfinite_steps": int(n)} for total, n in zip(totals, skipped)]


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


def _attach_file_log(runs: list[RunDir]) -> None:
    """The noneuclid log goes to each run's train.log (and nowhere else of earlier runs)."""
    for h in list(log.handlers):
        if isinstance(h, logging.FileHandler):
            log.removeHandler(h)
            h.close()
    for run in runs:
        handler = logging.FileHandler(run.file("train.log"))
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        log.addHandler(handler)
