"""python -m noneuclid.train experiment=<paper>/<name> [profile=smoke|cpu|paper] [overrides]

Add -m for the experiment's sweep (e.g. the four runs of brantner/table2).
"""

import logging
import sys
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf, open_dict

from noneuclid.data import DataError
from noneuclid.train.loop import TrainingDiverged, train

CONFIGS = str(Path(__file__).resolve().parents[3] / "configs")
OmegaConf.register_new_resolver("pick", lambda flag, yes, no: yes if flag else no, replace=True)


@hydra.main(version_base="1.3", config_path=CONFIGS, config_name="train")
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
