"""The toy paper's task: classifying XOR blobs (data=toy_blobs)."""

from noneuclid.train.tasks import Classification
from toy import data


def blobs(cfg) -> Classification:
    splits = data.load(cfg.paths.data_dir)
    return Classification(splits["train"], {"test": splits["test"]}, cfg.data.batch_size, cfg.loss, seed=cfg.seed)


TASKS = {"toy_blobs": blobs}
