"""What the trainer trains: a task owns the data tensors, cuts batches and scores a model.

Every task has: to(device, dtype), steps_per_epoch(), batches(epoch), loss(model, batch) ->
(loss, sum of per-example terms), finish_loss(mean term), evaluate(model, split), eval_splits and
model_kwargs (sizes the model takes from the data, e.g. the vocabulary); a task whose batches hold
padding has examples(batch), the examples of each run in a batch. One module per kind of task;
TASKS maps data.name to the function that builds its task from the run's config, STACKS a kind of
task whose runs stack to the function that joins them (`stack`).
"""

from __future__ import annotations

from noneuclid import extensions
from noneuclid.train.tasks import classification, hypernymy, language_model, sentence_pairs, subtrees
from noneuclid.train.tasks.classification import Classification
from noneuclid.train.tasks.language_model import LanguageModel
from noneuclid.train.tasks.sentence_pairs import SentencePairs
from noneuclid.train.tasks.subtrees import SubtreeClassification

__all__ = ["TASKS", "Classification", "LanguageModel", "SentencePairs", "build", "stack"]

TASKS = {
    "mnist_patches": classification.mnist_patches,
    "cifar10": classification.cifar10_images,
    "prefix": sentence_pairs.build,
    "snli": sentence_pairs.build,
    "wikitext2": language_model.build,
    "wordnet_nouns": hypernymy.build,
    "wordnet_subtree": subtrees.build,
}
STACKS = {SentencePairs: sentence_pairs.stack, SubtreeClassification: subtrees.stack}  # tasks whose runs stack


def build(cfg):
    """The task of cfg.data (with cfg.loss and cfg.seed): TASKS[cfg.data.name](cfg) (TASKS, then those of papers
    kept outside: extensions.py)."""
    tasks = {**extensions.declared("TASKS"), **TASKS}
    if cfg.data.name not in tasks:
        raise ValueError(
            f"unknown data {cfg.data.name!r}: choose data= one of {sorted(tasks)} (prefix: data=prefix10|30|50)"
        )
    return tasks[cfg.data.name](cfg)


def stack(run_tasks: list):
    """One task that trains the runs of `run_tasks` (tasks of one run each, of one kind) side by side:
    STACKS[kind](run_tasks)."""
    kinds = {type(task) for task in run_tasks}
    if len(kinds) > 1:
        raise ValueError(f"runs of one stack need tasks of one kind, got {sorted(k.__name__ for k in kinds)}")
    kind = kinds.pop()
    if kind not in STACKS:
        raise ValueError(
            f"{kind.__name__} runs cannot be stacked (stackable: data=prefix*, snli, wordnet_subtree): "
            f"train them one by one (stack={{}})"
        )
    return STACKS[kind](run_tasks)
