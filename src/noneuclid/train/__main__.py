"""python -m noneuclid.train experiment=<paper>/<name> [profile=smoke|cpu|paper] [overrides]

Add -m for the experiment's sweep (e.g. the four runs of brantner/table2).
"""

import logging
import sys

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, open_dict

from noneuclid.config import CONFIG_DIR
from noneuclid.data import DataError
from noneuclid.train.loop import TrainingDiverged, train


@hydra.main(version_base="1.3", config_path=str(CONFIG_DIR), config_name="train")
def main(cfg: DictConfig) -> None:
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr, force=True)
    with open_dict(cfg):
        cfg.experiment_name = HydraConfig.get().runtime.choices.get("experiment") or "default"
    try:
        train(cfg)
    except (DataError, TrainingDiverged, ValueError) as e:
        logging.getLogger("noneuclid").error("error: %s", e)
        raise SystemExit(1) from None


if __name__ == "__main__":
    main()
