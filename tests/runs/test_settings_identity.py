"""A setting added with the value that earlier runs computed leaves their settings identity (and
folder names) as it was: model.chart at its default, poincare, is left out of the hash."""

from __future__ import annotations

import pytest
from omegaconf import OmegaConf

from noneuclid.config import compose
from noneuclid.runs.settings import settings_hash, settings_id


def _without_chart(cfg) -> dict:
    c = OmegaConf.to_container(cfg, resolve=True)
    c["model"].pop("chart")
    return c


@pytest.mark.parametrize("experiment", ["hnn/table1", "hnn/table2"])
def test_the_default_chart_leaves_the_settings_identity_of_earlier_runs(experiment):
    cfg = compose([f"experiment={experiment}", "profile=smoke"])
    assert cfg.model.chart == "poincare"
    earlier = OmegaConf.create(_without_chart(cfg))  # the config the committed runs were made from
    assert settings_hash(cfg) == settings_hash(earlier)
    assert settings_id(OmegaConf.to_container(cfg, resolve=True), False) == settings_id(_without_chart(cfg), False)
    lorentz = compose([f"experiment={experiment}", "profile=smoke", "model.chart=lorentz"])
    assert settings_hash(lorentz) != settings_hash(cfg)
