"""The hyperbolic models of Table 1 and Table 2 in the Lorentz chart (model.chart=lorentz) are the same
functions of the same parameters as on the Poincare ball: logits and gradients agree in float64."""

from __future__ import annotations

import pytest
import torch

from noneuclid.models.mlr import PointMLR
from noneuclid.models.sentence_pair import SentencePairModel

DT = torch.float64


def _grads(model) -> list[torch.Tensor]:
    return [p.grad for p in model.parameters()]


def _assert_same(a: torch.Tensor, b: torch.Tensor, tol: float) -> None:
    """|a - b| <= tol max|b| (the scale of the whole tensor: logits, a parameter's gradient)."""
    assert float((a - b).detach().abs().max()) <= tol * float(b.detach().abs().max())


@pytest.mark.parametrize("cell", ["rnn", "gru"])
@pytest.mark.parametrize("geometry", ["hyperbolic", "hyperbolic_eucl_mlr"])
@pytest.mark.parametrize("project_results", [True, False])
def test_sentence_pair_model_is_the_same_function_in_both_charts(cell, geometry, project_results):
    """Embeddings drawn at 100x the paper's scale (many on the ball's margin, where the charts differ most);
    the share of sentence states on the boundary is the same in both."""
    torch.manual_seed(0)
    kw = dict(cell=cell, geometry=geometry, runs=2, embedding_init_scale=100.0, project_results=project_results)
    ball = SentencePairModel(20, **kw).to(DT)
    lorentz = SentencePairModel(20, chart="lorentz", **kw).to(DT)
    with torch.no_grad():
        ball.b.copy_(torch.randn_like(ball.b) * 0.3)
    lorentz.load_state_dict(ball.state_dict())
    g = torch.Generator().manual_seed(1)
    batch = (
        torch.randint(1, 20, (2, 8, 6), generator=g),
        torch.randint(1, 7, (2, 8), generator=g),
        torch.randint(1, 20, (2, 8, 7), generator=g),
        torch.randint(1, 8, (2, 8), generator=g),
    )
    out_ball, out_lorentz = ball(*batch), lorentz(*batch)
    _assert_same(out_lorentz, out_ball, 1e-9)
    with torch.no_grad():  # the saturation metric the evaluation logs: states within 1e-3 of the boundary
        shares = [m.space.boundary_share(torch.stack(m.encode(*batch[:4]), 1)) for m in (ball, lorentz)]
    assert torch.equal(*shares) and 0 < float(shares[0].mean())
    out_ball.sum().backward()
    out_lorentz.sum().backward()
    for g_lorentz, g_ball in zip(_grads(lorentz), _grads(ball)):
        _assert_same(g_lorentz, g_ball, 1e-7)


@pytest.mark.parametrize("c", [1.0, 0.5])
def test_point_mlr_is_the_same_function_in_both_charts(c):
    torch.manual_seed(0)
    ball, lorentz = (
        PointMLR(5, "hyperbolic", runs=3, c=c).to(DT),
        PointMLR(5, "hyperbolic", runs=3, c=c, chart="lorentz").to(DT),
    )
    with torch.no_grad():
        ball.mlr.p.copy_(torch.randn_like(ball.mlr.p) * 0.1 / c**0.5)
    lorentz.load_state_dict(ball.state_dict())
    u = torch.nn.functional.normalize(torch.randn(3, 50, 5, dtype=DT), dim=-1)
    x = torch.tanh(torch.rand(3, 50, 1, dtype=DT) * 5) * u / c**0.5  # up to distance 10/sqrt(c) from 0
    out_ball, out_lorentz = ball(x), lorentz(x)
    _assert_same(out_lorentz, out_ball, 1e-10)
    out_ball.sum().backward()
    out_lorentz.sum().backward()
    for g_lorentz, g_ball in zip(_grads(lorentz), _grads(ball)):
        _assert_same(g_lorentz, g_ball, 1e-9)


def test_a_euclidean_model_in_the_lorentz_chart_is_an_error():
    with pytest.raises(ValueError, match="model.chart"):
        SentencePairModel(20, geometry="euclidean", chart="lorentz")
    with pytest.raises(ValueError, match="model.chart"):
        PointMLR(5, "euclidean_log0", chart="lorentz")
    with pytest.raises(ValueError, match="model.chart must be one of"):
        SentencePairModel(20, chart="klein")
