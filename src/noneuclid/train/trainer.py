"""The Trainer: one stack of runs (a single run is a stack of one) from its configs to its summaries.

    trainer = Trainer(cfgs, runs)   # task, model, optimizer, run folders: everything that can fail
                                    # on a bad config or missing data fails here, before training
    summaries = trainer.fit()       # restore, then per epoch: train, evaluate, save; then summarise

An epoch (`train_epoch`) is the loop every experiment shares: batch -> task.loss -> backward ->
optimizer step, with a check that the loss and the gradient are finite (a task with `takes_steps`
steps the optimizer itself, many batches per call, and returns its loss).
"""

from __future__ import annotations

import json
import logging
import math
import time

import torch
from omegaconf import DictConfig
from tqdm import tqdm

from noneuclid import models, optim
from noneuclid.runs import RunDir, atomic_write, resolve_device
from noneuclid.train import loggers, stacking, tasks
from noneuclid.train.summary import constraint_errors, summarise

log = logging.getLogger("noneuclid")


class TrainingDiverged(RuntimeError):
    """The loss became NaN or inf (for `runs`: the indices of the runs of a stack whose loss did)."""

    def __init__(self, message: str, runs: list[int] = (0,)):
        super().__init__(message)
        self.runs = list(runs)


class Trainer:
    """The runs `runs` of configs `cfgs` (stackable: they differ only in seed and data) trained as one
    model; each run keeps its own folder, checkpoint, metrics, summary and logger."""

    def __init__(self, cfgs: list[DictConfig], runs: list[RunDir]):
        self.cfgs, self.runs, self.cfg = cfgs, runs, cfgs[0]
        stacking.check_stackable(cfgs)
        trainer = self.cfg.trainer
        torch.use_deterministic_algorithms(trainer.deterministic)
        if trainer.threads:
            torch.set_num_threads(trainer.threads)
        device, dtype = resolve_device(trainer.device), getattr(torch, trainer.dtype)
        if trainer.meant_for and device.type != trainer.meant_for:
            log.warning("warning: these settings are meant for %s, training on %s", trainer.meant_for, device)
        init_dtype = getattr(torch, trainer.init_dtype) if trainer.init_dtype else None  # None: dtype
        self.task, self.model = self._build(device, dtype, init_dtype)
        self.optimizer = optim.build(self.cfg.optim, list(self.model.named_parameters()))
        for run in runs:
            run.create()
        _attach_file_log(runs)
        if trainer.extend:
            for run in runs:
                shorter = None if run.file("checkpoint.pt").exists() else run.shorter_run()
                if shorter is not None:
                    run.start_from(shorter)
        self.epochs, self.steps = trainer.epochs, self.task.steps_per_epoch()
        self.start_epoch = self.epochs_done = 0
        self.seconds, self.loggers, self.bar = 0.0, [], None
        self.converged = [False] * len(runs)  # per run: stopped by trainer.converge
        self.train_losses = [[] for _ in runs]  # per run: the training losses in its metrics, epoch by epoch

    def _build(self, device, dtype, init_dtype) -> tuple:
        """The (stacked) task and model (`build_task_and_model`), and each run's provenance."""
        task, model, run_tasks = build_task_and_model(self.cfgs, device, dtype, init_dtype)
        self.provenance = [getattr(t, "provenance", {}) for t in run_tasks]  # for each run's summary
        return task, model

    def fit(self) -> list[dict | None] | None:
        """Train the epochs left and return the runs' summaries; None when the runs' checkpoints are at
        different epochs (the caller trains each group of equal progress on its own). With
        trainer.converge, training stops at the first epoch at which some run has converged: those runs
        finish there, and the others' summaries are None (the caller trains them on, from that epoch's
        checkpoints, as a smaller stack). A divergence is recorded (DIVERGED) and raised; any other
        error is recorded (FAILED, traceback in train.log)."""
        exit_code = 1
        try:
            if not self.restore():
                return None
            self.converged = self.converged_runs()  # a run resumed at the epoch it converged ends there
            self.loggers = [loggers.build(c, run) for c, run in zip(self.cfgs, self.runs)]
            name = self.runs[0].name + (f" (+{len(self.runs) - 1} stacked)" if len(self.runs) > 1 else "")
            self.bar = tqdm(
                total=self.epochs * self.steps,
                initial=self.start_epoch * self.steps,
                desc=name,
                unit="step",
                disable=not self.cfg.trainer.progress,
                mininterval=1.0,
                dynamic_ncols=True,
            )
            for epoch in range(self.start_epoch, self.epochs):
                if any(self.converged):
                    break
                self.train_one_epoch(epoch)
            summaries = self.finish()
            exit_code = 0
            return summaries
        except TrainingDiverged:
            raise
        except Exception as e:
            log.exception("failed: %s", e)
            for run in self.runs:
                atomic_write(run.file("FAILED"), json.dumps({"error": type(e).__name__, "message": str(e)}))
            raise
        finally:
            if self.bar is not None:
                self.bar.close()
            for logger in self.loggers:
                logger.finish(exit_code)

    def train_one_epoch(self, epoch: int) -> None:
        """Train epoch `epoch` (0-based), note which runs have converged (trainer.converge), evaluate if
        it is due or a run has converged (that run's row only gets the scores then), then save and log
        its rows."""
        try:
            rows = train_epoch(self.model, self.optimizer, self.task, epoch, self.bar, self.evaluate_mid_epoch)
        except TrainingDiverged as e:  # recorded for the reports (e.g. PostNorm transformers)
            for i in e.runs:
                atomic_write(self.runs[i].file("DIVERGED"), json.dumps({"epoch": epoch + 1, "message": str(e)}))
            raise
        optim.end_epoch(self.optimizer, self.cfg.optim)
        self.seconds += rows[0]["train_seconds"]
        self.converged = self.converged_runs([row["train_loss"] for row in rows])
        due = self.evaluates_at_end(epoch)
        scores = self.evaluate() if due or any(self.converged) else [{}] * len(self.runs)
        scores = [score if due or converged else {} for score, converged in zip(scores, self.converged)]
        extra = constraint_errors(self.model)
        self.save(
            epoch + 1,
            [
                {"epoch": epoch + 1, "step": (epoch + 1) * self.steps, **row, **score, **extra}
                for row, score in zip(rows, scores)
            ],
        )

    def converged_runs(self, losses: list[float] | None = None) -> list[bool]:
        """trainer.converge = {patience, tol, after}: per run, whether its own training loss, logged and
        this epoch's `losses` (one per run; None: the logged ones alone), has stopped improving
        (`plateaued`); all False when the rule is off (null)."""
        rule = self.cfg.trainer.get("converge")
        if not rule:
            return [False] * len(self.runs)
        logged = self.train_losses
        if losses is not None:
            logged = [history + [loss] for history, loss in zip(logged, losses, strict=True)]
        return [plateaued(history, rule.patience, rule.tol, rule.get("after", 0)) for history in logged]

    def evaluates_at_end(self, epoch: int) -> bool:
        """Whether epoch (0-based) ends with an evaluation: every trainer.eval_every epochs, and the last."""
        return (epoch + 1) % self.cfg.trainer.eval_every == 0 or epoch + 1 == self.epochs

    def evaluate_mid_epoch(self, epoch: int, step: int) -> None:
        """Evaluation every trainer.eval_every_steps steps (Ganea et al.: 2000); not at the epoch's last
        step when the epoch-end evaluation follows."""
        every = self.cfg.trainer.eval_every_steps
        if every and step % every == 0 and not (step == (epoch + 1) * self.steps and self.evaluates_at_end(epoch)):
            for run, logger, row in zip(self.runs, self.loggers, self.evaluate()):
                row = {"epoch": epoch + 1, "step": step, **row}
                run.append_metrics(row)
                logger.log(row)

    def evaluate(self) -> list[dict]:
        """The task's metrics on each of its evaluation splits, in eval mode: one row per run."""
        self.model.eval()
        rows = [{} for _ in self.runs]
        for split in self.task.eval_splits:
            for row, scores in zip(rows, per_run(self.task.evaluate(self.model, split)), strict=True):
                row.update(scores)
        self.model.train()
        return rows

    def save(self, epochs_done: int, rows: list[dict]) -> None:
        """Each run's metrics row and checkpoint, then its logger (a resumed run never logs an epoch twice)."""
        checkpoint = {
            "epochs_done": epochs_done,
            "train_seconds": self.seconds,
            "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "rng_cpu": torch.get_rng_state(),  # the random sections draw from it
            "rng_cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None,
        }
        self.epochs_done = epochs_done
        for i, run in enumerate(self.runs):
            run.append_metrics(rows[i])
            self.train_losses[i] += [rows[i]["train_loss"]] if "train_loss" in rows[i] else []
            run.save_checkpoint(stacking.checkpoint_slice(checkpoint, i) if len(self.runs) > 1 else checkpoint)
        for logger, row in zip(self.loggers, rows):
            logger.log(row)

    def restore(self) -> bool:
        """Load the runs' checkpoints, if any, into model, optimizer and RNGs and drop metrics lines
        past them; False when the runs of a stack stopped at different epochs."""
        ckpts = [run.load_checkpoint() for run in self.runs]
        if all(c is None for c in ckpts):
            for run in self.runs:
                run.truncate_metrics(0)
                log.info("run folder %s", run.path)
            return True
        if any(c is None for c in ckpts) or len({c["epochs_done"] for c in ckpts}) > 1:
            return False
        ckpt = ckpts[0] if len(ckpts) == 1 else stacking.stack_checkpoints(ckpts)
        self.model.load_state_dict(ckpt["model"])
        self.optimizer.load_state_dict(ckpt["optimizer"])
        torch.set_rng_state(ckpt["rng_cpu"])
        if ckpt["rng_cuda"] is not None and torch.cuda.is_available():
            torch.cuda.set_rng_state_all(ckpt["rng_cuda"])
        for run in self.runs:
            run.truncate_metrics(ckpt["epochs_done"])
            log.info("resuming %s after epoch %d", run.path, ckpt["epochs_done"])
        self.train_losses = [[r["train_loss"] for r in run.metrics() if "train_loss" in r] for run in self.runs]
        self.start_epoch = self.epochs_done = ckpt["epochs_done"]
        self.seconds = ckpt["train_seconds"]
        return True

    def finish(self) -> list[dict | None]:
        """Write the summary.json and DONE of each run that has ended: all of them at the last epoch or
        without a run converged, else those that have converged (the others' summaries are None: they
        train on). A summary holds what its task read and, with trainer.converge, whether the run
        stopped by it (`converged`) and that its own losses decided when (`own_plateau`, not its
        stack's); returns the summaries."""
        ended = self.epochs_done == self.epochs or not any(self.converged)
        converge = self.cfg.trainer.get("converge")
        summaries = []
        for run, provenance, converged in zip(self.runs, self.provenance, self.converged):
            if not (ended or converged):
                summaries.append(None)
                continue
            stopped = {"converged": converged, "own_plateau": True} if converge else {}
            summary = {**summarise(run.metrics(), self.seconds, self.model, len(self.runs)), **provenance, **stopped}
            run.finish(summary)
            summaries.append(summary)
        log.info(
            "done: %s",
            [
                {k: s[k] for k in ("final_train_loss", "final_test_accuracy") if k in s}
                for s in summaries
                if s is not None
            ],
        )
        return summaries


def build_task_and_model(cfgs: list[DictConfig], device, dtype, init_dtype=None, build_task=tasks.build) -> tuple:
    """The (stacked) task and model of the runs `cfgs`, each run's initial weights drawn as when it is
    trained alone, and the runs' own tasks; build_task(cfg) makes a run's task (default: tasks.build)."""
    run_tasks = [build_task(c).to(device, dtype) for c in cfgs]
    task = run_tasks[0] if len(cfgs) == 1 else tasks.stack(run_tasks)
    alone = []
    for c, t in zip(cfgs, run_tasks):
        torch.manual_seed(c.seed)
        alone.append(models.build_on(c.model, device, dtype, init_dtype, **t.model_kwargs))
    if len(cfgs) == 1:
        return task, alone[0], run_tasks
    return task, stacking.stack_models(cfgs[0].model, alone, device, dtype, **task.model_kwargs), run_tasks


def plateaued(losses: list[float], patience: int, tol: float, after: int = 0) -> bool:
    """Whether none of the last `patience` losses is below the best loss before them by more than the
    relative `tol`: min(losses[-patience:]) >= (1 - tol) min(losses[:-patience]) for positive losses;
    never before `after` losses (epochs), while decaying steps are still large."""
    if len(losses) <= patience or len(losses) < after:
        return False
    best = min(losses[:-patience])
    return min(losses[-patience:]) >= best - tol * abs(best)


def _clocks() -> tuple[float, float]:
    """(wall-clock seconds, this process's CPU seconds), to subtract from a later reading."""
    return time.perf_counter(), time.process_time()


def train_epoch(model, optimizer, task, epoch: int, bar, after_step=None) -> list[dict]:
    """One pass over the training data; returns, per run, its wall time and the process's CPU time (wall
    time grows where other processes share the cores, CPU time does not), the training loss over the
    epoch, loss.finish(mean over all its examples of the per-example term), as the model was at each
    step, and the number of steps whose gradient was not finite (their update is skipped and
    logged). after_step(epoch, global step) runs after every step (mid-epoch evaluation); its time
    is not counted as training time. A stack's times are shared by its runs: each is given its
    share."""
    model.train()
    runs = getattr(task, "runs", 1)
    totals, count = torch.zeros(runs, dtype=torch.float64), torch.zeros(runs, dtype=torch.float64)
    paused, skipped = (0.0, 0.0), torch.zeros(runs, dtype=torch.long)
    start = _clocks()
    steps_before = epoch * task.steps_per_epoch()
    for step, batch in enumerate(task.batches(epoch)):
        sums = train_step(model, optimizer, task, batch, epoch, step, skipped)
        examples = task.examples(batch) if hasattr(task, "examples") else batch[-1].shape[-1]  # per run
        totals, count = totals + sums, count + examples
        bar.update(1)
        bar.set_postfix(epoch=epoch + 1, loss=f"{float((sums / examples).mean()):.4f}", refresh=False)
        if after_step is not None:
            pause = _clocks()
            after_step(epoch, steps_before + step + 1)
            paused = tuple(p + now - then for p, now, then in zip(paused, _clocks(), pause))
    if next(model.parameters()).is_cuda:
        torch.cuda.synchronize()
    seconds, cpu_seconds = ((now - then - p) / runs for now, then, p in zip(_clocks(), start, paused))
    return [
        {
            "train_loss": task.finish_loss(float(total / n_examples)),
            "train_seconds": seconds,
            "train_cpu_seconds": cpu_seconds,
            "nonfinite_steps": int(n),
        }
        for total, n_examples, n in zip(totals, count, skipped)
    ]


def train_step(model, optimizer, task, batch, epoch: int, step: int, skipped: torch.Tensor) -> torch.Tensor:
    """One step of the trainer on `batch`: task.loss, backward, optimizer step (or, for a task with
    `takes_steps`, its own compiled loop); returns the per-run sums of the loss terms [runs]."""
    if getattr(task, "takes_steps", False):  # the task's compiled loop steps the optimizer itself
        sums = torch.tensor(per_run(task.take_steps(model, optimizer, batch)), dtype=torch.float64)
        _check_finite(float(sums.sum()), sums, epoch, step, len(skipped))
        return sums
    return _gradient_step(model, optimizer, task, batch, epoch, step, skipped)


def _gradient_step(model, optimizer, task, batch, epoch: int, step: int, skipped: torch.Tensor) -> torch.Tensor:
    """task.loss, backward, optimizer step; returns the per-run sums of the loss terms [runs]. A run whose
    gradient is not finite skips its update, counted in skipped [runs] (in place)."""
    runs = len(skipped)
    loss, per_example_sums = task.loss(model, batch)
    sums = torch.tensor(per_run(per_example_sums), dtype=torch.float64)
    _check_finite(loss.detach().item(), sums, epoch, step, runs)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    finite = stacking.finite_runs(model, runs)
    if bool(finite.all()):
        optimizer.step()
    else:
        skipped += ~finite
        stacking.step_skipping(model, optimizer, finite)
        log.warning(
            "non-finite gradient at epoch %d, step %d: update skipped (counted as "
            "nonfinite_steps in the metrics and summary)",
            epoch + 1,
            step + 1,
        )
    return sums


def _check_finite(value: float, sums: torch.Tensor, epoch: int, step: int, runs: int) -> None:
    """Raise TrainingDiverged when the loss (or a stacked run's loss sum) is NaN or inf."""
    if math.isfinite(value) and bool(sums.isfinite().all()):
        return
    bad = (~sums.isfinite()).nonzero().flatten().tolist() or list(range(runs))  # which runs, where known
    kept = f"its last good checkpoint (end of epoch {epoch}) is kept" if epoch else "no epoch had ended"
    raise TrainingDiverged(
        f"the training loss became {value if not math.isfinite(value) else sums[bad[0]].item()} at "
        f"epoch {epoch + 1}, step {step + 1}. The run folder is marked DIVERGED and {kept}; the same "
        f"command skips it from now on (delete the folder to train it again). Change a setting (e.g. a "
        f"smaller optim.lr, or trainer.dtype=float64) to start a new run.",
        runs=bad,
    )


def per_run(value) -> list:
    """A task's per-run result as a list: tasks of one run return a single value."""
    return value if isinstance(value, list) else [value]


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
