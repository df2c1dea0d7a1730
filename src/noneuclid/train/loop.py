"""The shared trainer: every experiment of the suite goes through `train(cfg)`.

config -> task (data + loss) + model + optimizer -> epochs of steps -> run folder (+ W&B).
Runs that differ only in seed and data can train side by side as one stacked model
(`train_stacked`, see `stacking.py`); a single run is a stack of one. This module decides which runs
to train and how to group them; `trainer.Trainer` trains a group.
"""

from __future__ import annotations

import json
import logging

from omegaconf import DictConfig

from noneuclid.runs import RunDir
from noneuclid.train.stacking import UnequalSteps
from noneuclid.train.trainer import Trainer, TrainingDiverged

log = logging.getLogger("noneuclid")


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
    for run, summary in zip(runs, summaries):
        if summary is None:
            run.check_version()
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
    """Train runs not finished yet; a stack whose checkpoints stopped at different epochs trains each
    group of equal progress on its own, one whose runs' epochs take different numbers of steps each
    group of equal steps (stacking.UnequalSteps), and after some runs of a stack diverged, or converged
    (trainer.converge: each run stops on its own plateau), the others go on from their last checkpoint
    as a smaller stack."""
    try:
        summaries = Trainer(cfgs, runs).fit()
    except UnequalSteps as e:
        log.info("%s: trained as %d stacks", e, len(e.groups))
        return _train_groups(cfgs, e.groups)
    except TrainingDiverged as e:
        if len(runs) == 1:
            raise
        log.error("diverged: %s", e)
        keep = [i for i in range(len(runs)) if i not in e.runs]
        return _summaries_after_divergence(cfgs, keep, e)
    if summaries is None:
        return _train_by_epoch(cfgs, runs)
    going_on = [i for i, s in enumerate(summaries) if s is None]  # trainer.converge: others have converged
    return _train_groups(cfgs, [going_on], summaries) if going_on else summaries


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
    diverged = [
        json.loads(RunDir(cfgs[i]).file("DIVERGED").read_text()) if i in error.runs else None for i in range(len(cfgs))
    ]
    return _train_groups(cfgs, [keep], diverged)


def _train_by_epoch(cfgs, runs) -> list[dict]:
    """Runs of one stack that were checkpointed at different epochs (a kill between two of their
    checkpoint writes): each group of equal progress is trained as its own stack."""
    done = [r.load_checkpoint()["epochs_done"] if r.file("checkpoint.pt").exists() else 0 for r in runs]
    return _train_groups(cfgs, [[i for i, d in enumerate(done) if d == e] for e in sorted(set(done))])
