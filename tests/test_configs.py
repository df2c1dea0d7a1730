"""What each experiment runs at each profile: its resolved epochs, data size and seeds (printed: run
pytest -s tests/test_configs.py to read them), and no setting of an experiment overridden where the
experiment or its study's scale file does not say so."""

from __future__ import annotations

import pytest
from omegaconf import OmegaConf

from noneuclid.config import CONFIG_DIR, compose, experiment_value, sweep_values
from noneuclid.papers import PAPERS
from noneuclid.runs.cli import PROFILES
from noneuclid.runs.settings import flatten

EXPERIMENTS = [f"{key}/{name}" for key, paper in PAPERS.items() for name in paper.experiments]


def _own_settings(experiment: str) -> dict:
    """The dotted settings configs/experiment/<experiment>.yaml sets itself (not its defaults list, its
    Hydra sweep, nor interpolations)."""
    own = OmegaConf.to_container(OmegaConf.load(CONFIG_DIR / "experiment" / f"{experiment}.yaml"))
    return {
        k: v
        for k, v in flatten(own).items()
        if not k.startswith(("defaults", "hydra")) and not (isinstance(v, str) and "${" in v)
    }


def _scales(experiment: str) -> set[str]:
    """The scale groups an experiment composes: its study's (configs/train.yaml's study: brantner unless
    it or an experiment it extends overrides /study) and any /scale/<group> in its defaults lists."""
    groups, study = set(), None
    own = OmegaConf.to_container(OmegaConf.load(CONFIG_DIR / "experiment" / f"{experiment}.yaml"))
    for entry in own.get("defaults", []):
        if isinstance(entry, str) and entry.startswith("/experiment/"):
            groups |= _scales(entry.removeprefix("/experiment/"))
        elif not isinstance(entry, str):
            ((key, value),) = entry.items()
            study = value if key == "override /study" else study
            groups |= {key.removeprefix("/scale/")} if key.startswith("/scale/") else set()
    return groups | {study or "brantner"}


def _scale_keys(experiment: str, profile: str) -> set[str]:
    """The dotted settings that the experiment's scale files and the profile file set at `profile`:
    what the profile says it changes."""
    files = [CONFIG_DIR / "scale" / g / f"{profile}.yaml" for g in _scales(experiment)]
    files.append(CONFIG_DIR / "profile" / f"{profile}.yaml")
    return {k for f in files if f.exists() for k in flatten(OmegaConf.to_container(OmegaConf.load(f)) or {})}


@pytest.mark.parametrize("profile", PROFILES)
def test_each_experiment_s_budget_and_who_sets_it(profile):
    """Every registered experiment resolves at every profile. At profile=paper it runs its own settings exactly;
    at the reduced profiles a setting of the experiment changes only where the study's scale file (or the profile)
    names it."""
    for experiment in EXPERIMENTS:
        cfg = compose([f"experiment={experiment}", f"profile={profile}"], experiment_name=experiment)
        resolved = flatten(OmegaConf.to_container(cfg, resolve=True))
        seeds = sweep_values(experiment, "seed") or experiment_value(experiment, "stack.seed") or [resolved["seed"]]
        print(
            f"{experiment:22s} {profile:6s} epochs {resolved['trainer.epochs']!s:>4}  "
            f"train_size {resolved.get('data.train_size')!s:>6}  seeds {','.join(map(str, seeds))}"
        )
        changed = {k for k, v in _own_settings(experiment).items() if k in resolved and resolved[k] != v}
        declared = set() if profile == "paper" else _scale_keys(experiment, profile)
        assert changed <= declared, f"{experiment} at profile={profile}: {sorted(changed - declared)} overridden"


def _named_groups(experiment: str) -> set[str]:
    """The config groups an experiment (or an experiment it extends) chooses in its defaults list."""
    own = OmegaConf.to_container(OmegaConf.load(CONFIG_DIR / "experiment" / f"{experiment}.yaml"))
    groups = set()
    for entry in own.get("defaults", []):
        if isinstance(entry, str) and entry.startswith("/experiment/"):
            groups |= _named_groups(entry.removeprefix("/experiment/"))
        elif isinstance(entry, dict):
            groups |= {key.removeprefix("override ").strip("/") for key in entry}
    return groups


@pytest.mark.parametrize("experiment", EXPERIMENTS)
def test_each_experiment_names_its_study_data_and_model(experiment):
    """A reader learns what an experiment trains from its own file (or the experiment it extends)."""
    assert {"study", "data", "model"} <= _named_groups(experiment)
