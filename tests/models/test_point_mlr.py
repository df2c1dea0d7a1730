"""The Euclidean MLR's two forms: <a_k, x - p_k> (the paper's) is W x + b with b_k = -<a_k, p_k>, and
adam_rsgd steps its points p_k at the hyperplane points' step size."""

import pytest
import torch

from noneuclid import optim
from noneuclid.config import compose
from noneuclid.models.mlr import PointMLR
from noneuclid.nn.parameters import PointParameter


def test_the_offset_form_is_an_affine_map_with_bias_minus_a_dot_p():
    torch.manual_seed(0)
    model = PointMLR(3, "euclidean", runs=4, offsets=True).double()
    with torch.no_grad():
        model.mlr.p.normal_()
    x = torch.randn(4, 7, 3, dtype=torch.float64)  # [runs, batch, dim]
    a, p = model.mlr.a, model.mlr.p  # [runs, classes, dim] each
    expected = torch.einsum("rbd,rkd->rbk", x, a) - (a * p).sum(-1)[:, None, :]
    torch.testing.assert_close(model(x), expected)
    assert torch.equal(PointMLR(3, "euclidean", offsets=True).mlr.p, torch.zeros(1, 2, 3))  # drawn at 0


def test_adam_rsgd_steps_euclidean_points_at_the_ball_step_size():
    cfg = compose(["experiment=hnn/table2", "profile=cpu", "model.geometry=euclidean", "model.offsets=true"])
    model = PointMLR(5, "euclidean", offsets=True)
    assert isinstance(model.mlr.p, PointParameter)
    opt = optim.build(cfg.optim, list(model.named_parameters()))
    lr = {id(p): g["lr"] for g in opt.param_groups for p in g["params"]}
    assert lr[id(model.mlr.a)] == cfg.optim.lr and lr[id(model.mlr.p)] == cfg.optim.ball_lr


def test_the_hyperbolic_mlr_has_no_second_form():
    with pytest.raises(ValueError, match="model.offsets"):
        PointMLR(3, "hyperbolic", offsets=True)
