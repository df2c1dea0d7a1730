"""The float32 atlas on a few radii: every operation and implementation, errors that grow with r on the
ball, the hyperboloid's log_0 and distance exact to float32 at r = 40, the float32 projections of geoopt's
and hypll's balls, and the safe radius rule."""

from __future__ import annotations

import math

import pandas as pd

from noneuclid.evaluate import float32_atlas as atlas


def test_atlas_rows_and_the_charts_known_limits():
    table = atlas.atlas(radii=[0.0, 1.0, 8.0, 20.0, 40.0])
    assert list(table.columns) == ["op", "implementation", "chart", "r", "value_error", "grad_error"]
    assert len(table) == len(atlas.OPS) * len(atlas.implementations()) * 5
    assert {"geoopt", "hypll"} <= set(table.implementation)  # the test extra installs both
    at = table.set_index(["op", "implementation", "chart", "r"])
    for op in atlas.OPS:  # near the origin every implementation keeps float32's precision
        assert at.loc[(op, "ours", "lorentz", 1.0), "value_error"] < 1e-5
    for op in ("logmap0", "dist"):  # radial quantities: the hyperboloid holds them to r = 40, the ball not past ~17
        assert at.loc[(op, "ours", "lorentz", 40.0)].max() < 1e-6
        assert at.loc[(op, "ours", "poincare", 20.0)].max() > 1e-3
    for impl in ("geoopt", "hypll"):  # their float32 balls end at 1 - 4e-3 (r = 6.2), ours at float32's own limit
        assert at.loc[("expmap0", impl, "poincare", 8.0), "value_error"] > 1e-3
    assert at.loc[("expmap0", "ours", "poincare", 8.0)].max() < 1e-3


def test_safe_radius_is_the_last_radius_before_the_first_failure():
    rows = pd.DataFrame(
        {
            "op": "dist",
            "implementation": "ours",
            "chart": "lorentz",
            "r": [0.0, 0.5, 1.0, 1.5, 2.0],
            "value_error": [1.0, 1e-7, math.nan, 2e-3, 1e-7],
            "grad_error": 1e-7,
        }
    )
    assert atlas.safe_radius(rows).safe_radius.item() == 1.0  # r = 0 left out, nan skipped, 1.5 fails
    assert math.isnan(atlas.safe_radius(rows.assign(grad_error=1.0)).safe_radius.item())
