"""python -m noneuclid.train experiment=<paper>/<name> [profile=smoke|cpu|paper] [overrides]

Add -m for the experiment's sweep (e.g. brantner/table2's four setups x 3 seeds, 12 runs); with stack={key: [values]}
one job trains several runs side by side (e.g. hnn/table1: the seeds and PREFIX datasets of a model).
"""

import logging
import re
import sys

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf, open_dict

from noneuclid.config import CONFIG_DIR, experiment_file, experiments, stacked_runs
from noneuclid.train.loop import train_stacked
from noneuclid.train.trainer import TrainingDiverged


@hydra.main(version_base="1.3", config_path=str(CONFIG_DIR), config_name="train")
def main(cfg: DictConfig) -> None:
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr, force=True)
    with open_dict(cfg):
        cfg.experiment_name = HydraConfig.get().runtime.choices.get("experiment") or "default"
    cfgs = [cfg]
    if cfg.stack:  # several runs, trained side by side in this process
        overrides = list(HydraConfig.get().overrides.task)
        cfgs = stacked_runs(overrides, OmegaConf.to_container(cfg.stack), cfg.experiment_name)
    try:
        train_stacked(cfgs)
    except TrainingDiverged as e:
        # An outcome, not a failure of the command: the run folder records it (DIVERGED, metrics so far)
        # and the reports show it; the other jobs of a sweep run, and the command exits 0.
        logging.getLogger("noneuclid").error("diverged: %s", e)
    except (ValueError, RuntimeError) as e:  # bad settings, DataError, ...
        # Logged here in plain words; re-raised so Hydra records the job as failed. In a sweep the
        # other jobs still run, and the command exits non-zero at the end.
        logging.getLogger("noneuclid").error("error: %s", e)
        raise


def unknown_experiments(argv: list[str]) -> list[str]:
    """The experiments that `experiment=a` (or, in a sweep, `experiment=a,b`) names without a
    configs/experiment/<name>.yaml, the suite's or an added paper's; Hydra's own error would not list them."""
    names = [v for arg in argv if arg.startswith("experiment=") for v in arg.split("=", 1)[1].split(",")]
    names = [n for n in names if re.fullmatch(r"[\w./-]+", n) and n != "null"]  # choice(...), glob(...): left to Hydra
    return [n for n in names if not experiment_file(n).is_file()]


if __name__ == "__main__":
    if unknown := unknown_experiments(sys.argv[1:]):
        sys.exit(f"error: no experiment {', '.join(unknown)}; choose experiment= one of: {', '.join(experiments())}")
    main()
