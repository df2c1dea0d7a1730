"""Hyperbolic layers and Riemannian SGD (Ganea et al. 2018): reduction to the Euclidean layers as
c -> 0, points staying in the ball, the hidden state at the true length, and RSGD's update."""

from __future__ import annotations

import copy
import math
import pickle

import pytest
import torch

from noneuclid.geometry import poincare as pb
from noneuclid.geometry.spaces import Euclidean, PoincareBall
from noneuclid.models.sentence_pair import SentencePairModel
from noneuclid.nn import HyperbolicMLR, MobiusLinear, PoincareParameter, Recurrent
from noneuclid.optim import RiemannianSGD, adam_rsgd

DT = torch.float64
TINY_C = 1e-10


def _ball_points(*shape, radius=0.5):
    x = torch.randn(*shape, dtype=DT)
    return x / x.norm(dim=-1, keepdim=True) * radius * torch.rand(*shape[:-1], 1, dtype=DT)


def test_mobius_linear_tends_to_affine_map():
    """c -> 0: (M (x) x) (+) b -> M x + b."""
    layer = MobiusLinear(4, 3, c=TINY_C).double()
    with torch.no_grad():
        layer.bias.copy_(torch.randn(3, dtype=DT) * 1e-3)
    x = torch.randn(5, 4, dtype=DT) * 1e-3
    torch.testing.assert_close(layer(x), x @ layer.weight.T + layer.bias, rtol=1e-6, atol=1e-12)


def test_pointwise_nonlinearity_is_exp0_f_log0_and_tends_to_f():
    """phi^(x)(x) = exp_0(phi(log_0(x))) on the ball, phi(x) in R^n, and the former tends to the latter as c -> 0."""
    x = _ball_points(6, 4)
    torch.testing.assert_close(
        PoincareBall(0.7).pointwise(torch.tanh, x),
        pb.expmap0(torch.tanh(pb.logmap0(x, 0.7)), 0.7),
        rtol=1e-12,
        atol=1e-14,
    )
    torch.testing.assert_close(Euclidean().pointwise(torch.tanh, x), torch.tanh(x), rtol=0, atol=0)
    torch.testing.assert_close(PoincareBall(TINY_C).pointwise(torch.tanh, x), torch.tanh(x), rtol=1e-8, atol=1e-12)


def test_ball_projecting_results_projects_every_mobius_result_as_the_original_code():
    """project_results: x (+) y, r (x) x, M (x) x and exp_0 are the projected results (points already
    inside unchanged), and the distance is capped at that of two points on the margin's radius."""
    torch.manual_seed(5)
    plain, projecting = PoincareBall(1.0), PoincareBall(1.0, project_results=True)
    x, y = _ball_points(64, 5, radius=1.0), _ball_points(64, 5, radius=1.0)
    M, r = 4 * torch.randn(5, 5, dtype=DT), 8 * torch.rand(64, 1, dtype=DT)
    mx = x @ M.T
    for op, args in (("add", (x, y)), ("scalar_mul", (r, x)), ("matvec_result", (mx, x)), ("expmap0", (4 * y,))):
        want = getattr(plain, op)(*args)
        got = getattr(projecting, op)(*args)
        torch.testing.assert_close(got, pb.project(want, 1.0, snap=pb.PROJECT_SNAP), rtol=0, atol=0)
        assert got.norm(dim=-1).max() <= 1 - pb.BALL_EPS + 1e-15
    inside = 0.1 * x
    torch.testing.assert_close(projecting.add(inside, inside), plain.add(inside, inside), rtol=0, atol=0)
    outside = 3 * x  # an operation's result: projected once, by the operation or by in_ball
    assert projecting.in_ball(outside) is outside
    torch.testing.assert_close(plain.in_ball(outside), pb.project(outside, 1.0), rtol=0, atol=0)
    far = pb.project(torch.tensor([[1.0, 0.0], [-1.0, 0.0]], dtype=DT), 1.0)
    assert float(projecting.dist2(far[:1], far[1:])) == pytest.approx((2 * math.atanh(1 - pb.BALL_EPS)) ** 2)
    assert float(plain.dist2(far[:1], far[1:])) > float(projecting.dist2(far[:1], far[1:]))


def test_hyperbolic_rnn_tends_to_linear_rnn():
    """c -> 0 with the identity non-linearity: h' = W h + U x + b, read at each true length."""
    torch.manual_seed(1)
    rnn = Recurrent("rnn", 3, 4, PoincareBall(TINY_C)).double()
    with torch.no_grad():
        rnn.b.copy_(torch.randn(1, 4, dtype=DT) * 1e-3)
    x = torch.randn(2, 5, 3, dtype=DT) * 1e-3
    lengths = torch.tensor([5, 2])
    W, U, b = rnn.W[0], rnn.U[0], rnn.b[0]
    h, states = torch.zeros(2, 4, dtype=DT), []
    for t in range(5):
        h = h @ W.T + x[:, t] @ U.T + b
        states.append(h)
    expected = torch.stack([states[4][0], states[1][1]])
    torch.testing.assert_close(rnn(x, lengths), expected, rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize("carry_gaps", [False, True])
def test_hyperbolic_gru_tends_to_euclidean_gru_formula(carry_gaps):
    """c -> 0: r, z = sigmoid(W h + U x + b), h~ = W (r * h) + U x + b, h' = h + z * (h~ - h)."""
    torch.manual_seed(2)
    gru = Recurrent("gru", 3, 4, PoincareBall(TINY_C, carry_gaps=carry_gaps)).double()
    with torch.no_grad():
        gru.b.copy_(torch.randn(3, 4, dtype=DT) * 1e-3)
    x = torch.randn(2, 3, 3, dtype=DT) * 1e-3
    W, U, b = gru.W, gru.U, gru.b
    h = torch.zeros(2, 4, dtype=DT)
    for t in range(3):
        r = torch.sigmoid(h @ W[0].T + x[:, t] @ U[0].T + b[0])
        z = torch.sigmoid(h @ W[1].T + x[:, t] @ U[1].T + b[1])
        cand = (r * h) @ W[2].T + x[:, t] @ U[2].T + b[2]
        h = h + z * (cand - h)
    torch.testing.assert_close(gru(x, torch.tensor([3, 3])), h, rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize("cell", ["rnn", "gru"])
def test_padding_after_the_true_length_is_ignored_and_states_stay_in_the_ball(cell):
    torch.manual_seed(3)
    layer = Recurrent(cell, 5, 5, PoincareBall(1.0)).double()
    x = _ball_points(3, 7, 5, radius=0.9)
    lengths = torch.tensor([7, 3, 1])
    out = layer(x, lengths)
    x2 = x.clone()
    x2[1, 3:] = _ball_points(4, 5, radius=0.9)
    x2[2, 1:] = 0
    torch.testing.assert_close(layer(x2, lengths), out, rtol=0, atol=0)
    assert bool((out.norm(dim=-1) < 1).all()) and torch.isfinite(out).all()


def test_empty_sequences_are_rejected():
    layer = Recurrent("gru", 2, 2, PoincareBall())
    with pytest.raises(ValueError, match="at least one token"):
        layer(torch.zeros(2, 3, 2), torch.tensor([3, 0]))


def test_unknown_cell():
    with pytest.raises(ValueError, match="unknown cell"):
        Recurrent("lstm", 2, 2, PoincareBall())


def test_gradients_are_finite_from_the_zero_state():
    torch.manual_seed(4)
    layer = Recurrent("gru", 5, 5, PoincareBall()).double()
    x = _ball_points(4, 6, 5, radius=0.99)
    layer(x, torch.tensor([6, 5, 2, 1])).sum().backward()
    assert all(torch.isfinite(p.grad).all() for p in layer.parameters())


def test_mlr_tends_to_euclidean_mlr():
    """c -> 0: logit_k -> 4 <x - p_k, a_k> (the paper's limit of the hyperbolic MLR)."""
    torch.manual_seed(5)
    mlr = HyperbolicMLR(3, 2, c=TINY_C).double()
    with torch.no_grad():
        mlr.p.copy_(torch.randn(2, 3, dtype=DT) * 1e-3)
    x = torch.randn(6, 3, dtype=DT) * 1e-3
    expected = 4 * ((x[:, None] - mlr.p) * mlr.a0).sum(-1)
    torch.testing.assert_close(mlr(x), expected, rtol=1e-6, atol=1e-12)


def test_mlr_logit_is_signed_distance_to_the_hyperplane_times_norm():
    """With p_k = 0 and c = 1: logit = 2 ||a|| asinh(2 <x, a> / ((1 - ||x||^2) ||a||))."""
    torch.manual_seed(6)
    mlr = HyperbolicMLR(3, 1, c=1.0).double()
    x = _ball_points(4, 3, radius=0.8)
    a = mlr.a0[0]
    expected = 2 * a.norm() * torch.asinh(2 * (x @ a) / ((1 - x.pow(2).sum(-1)) * a.norm()))
    torch.testing.assert_close(mlr(x)[:, 0], expected, rtol=1e-12, atol=1e-12)


def test_mlr_projecting_results_is_the_original_codes_mlr_of_the_projected_difference():
    """project_results: logit_k = 2 ||a'_k|| / sqrt(c) asinh(sqrt(c) <y, a'_k/||a'_k||> lambda_y) with
    y = project(-p_k (+) x), the MLR of the original code (its tf_mob_add projects), for points at the
    boundary (where y is projected) and inside (where it is not and nothing changes)."""
    torch.manual_seed(9)
    c = 0.7
    mlr = HyperbolicMLR(5, 3, c=c, project_results=True).double()
    with torch.no_grad():
        mlr.p.copy_(_ball_points(3, 5, radius=0.6 / c**0.5))
    x = torch.cat([pb.project(torch.randn(16, 5, dtype=DT) * 5, c), _ball_points(16, 5, radius=0.5 / c**0.5)])
    y = pb.project(pb.mobius_add(-mlr.p, x[:, None], c), c, snap=pb.PROJECT_SNAP)  # [32, 3, 5]
    a = mlr.a0
    lam = 2 / (1 - c * y.pow(2).sum(-1))
    expected = 2 * a.norm(dim=-1) / c**0.5 * torch.asinh(c**0.5 * (y * a / a.norm(dim=-1, keepdim=True)).sum(-1) * lam)
    torch.testing.assert_close(mlr(x), expected, rtol=1e-9, atol=1e-9)
    plain = HyperbolicMLR(5, 3, c=c).double()
    plain.load_state_dict(mlr.state_dict())
    torch.testing.assert_close(mlr(x[16:]), plain(x[16:]), rtol=0, atol=0)


def test_poincare_parameter_keeps_c_through_copies():
    p = PoincareParameter(torch.zeros(3), c=0.5)
    assert copy.deepcopy(p).c == 0.5 and pickle.loads(pickle.dumps(p)).c == 0.5
    with pytest.raises(ValueError):
        PoincareParameter(torch.zeros(3), c=0.0)


@pytest.mark.parametrize("c", [1.0, 0.3])
def test_rsgd_step_is_the_exponential_map_of_the_rescaled_gradient(c):
    torch.manual_seed(7)
    x0 = _ball_points(4, 3, radius=0.7 / c**0.5)
    p = PoincareParameter(x0.clone(), c)
    g = torch.randn(4, 3, dtype=DT)
    p.grad = g.clone()
    RiemannianSGD([p], lr=0.1).step()
    expected = pb.expmap(x0, -0.1 * (1 - c * x0.pow(2).sum(-1, keepdim=True)) ** 2 / 4 * g, c)
    torch.testing.assert_close(p.data, expected, rtol=0, atol=1e-14)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("compensated", [False, True])
def test_rsgd_leaves_rows_with_zero_gradient_exactly_in_place(dtype, compensated):
    """Embedding rows not in the batch (zero gradient) keep their bits, as under a sparse update,
    near the boundary included (there exp_x(0) evaluated rounds in about a third of the rows) and on
    the margin (a third of the rows, where projecting a projected point may move it)."""
    torch.manual_seed(3)
    x0 = pb.project(_ball_points(200, 5, radius=1.5).to(dtype), 1.0)
    p = PoincareParameter(x0.clone(), 1.0)
    opt = RiemannianSGD([p], lr=0.1, compensated=compensated)
    for _ in range(3):
        p.grad = torch.zeros_like(x0)
        p.grad[:100] = torch.randn(100, 5, dtype=dtype)
        opt.step()
    assert torch.equal(p.data[100:], x0[100:])
    inside = x0[:100].norm(dim=-1) < 0.99  # rows on the margin may be pushed outward, back onto themselves
    assert (p.data[:100] != x0[:100]).any(-1)[inside].all()


@pytest.mark.parametrize("c", [1.0, 0.3])
def test_compensated_rsgd_step_is_the_plain_step_in_float64(c):
    torch.manual_seed(7)
    x0 = _ball_points(4, 3, radius=0.99 / c**0.5)
    g = torch.randn(4, 3, dtype=DT)
    p, q = PoincareParameter(x0.clone(), c), PoincareParameter(x0.clone(), c)
    p.grad, q.grad = g.clone(), g.clone()
    RiemannianSGD([p], lr=0.1).step()
    RiemannianSGD([q], lr=0.1, compensated=True).step()
    torch.testing.assert_close(q.data, p.data, rtol=0, atol=1e-15)


def _tiny_steps(dtype, compensated: bool, steps: int = 2000) -> torch.Tensor:
    """The displacement of a point at sqrt(c)||x|| = 0.999 after `steps` RSGD steps of a fixed gradient,
    each of about 1e-9 per coordinate: below float32's spacing there (6e-8), far above float64's."""
    x0 = torch.tensor([[0.6, -0.5, 0.62]], dtype=torch.float64)
    x0 = x0 / x0.norm() * 0.999
    p = PoincareParameter(x0.to(dtype, copy=True), 1.0)
    opt = RiemannianSGD([p], lr=1e-3, compensated=compensated)
    for _ in range(steps):
        p.grad = torch.tensor([[1.0, 2.0, -1.0]], dtype=dtype)
        opt.step()
    return p.detach().double() - x0.to(dtype).double()


def test_compensated_rsgd_keeps_float32_steps_below_the_spacing_of_the_weights():
    """Plain float32 RSGD rounds every step away (the point never moves); compensated, the steps add
    up as in float64."""
    exact = _tiny_steps(torch.float64, compensated=False)
    assert exact.norm() > 1e-6
    assert _tiny_steps(torch.float32, compensated=False).norm() == 0
    got = _tiny_steps(torch.float32, compensated=True)
    assert (got - exact).norm() < 0.05 * exact.norm()


def test_compensated_rsgd_residual_is_saved_and_dropped_when_projected():
    p = PoincareParameter(torch.tensor([[0.9, 0.0], [0.0, 0.3]]), 1.0)
    opt = RiemannianSGD([p], lr=1.0, compensated=True)
    p.grad = torch.tensor([[-1e6, 0.0], [0.0, -1e-3]])  # the first point leaves the ball and is projected
    opt.step()
    residual = opt.state_dict()["state"][0]["residual"]
    assert residual[0].eq(0).all() and residual.shape == p.shape


def test_rsgd_on_ordinary_parameters_is_sgd_and_stays_in_the_ball_for_huge_steps():
    w = torch.nn.Parameter(torch.ones(3, dtype=DT))
    w.grad = torch.full((3,), 2.0, dtype=DT)
    p = PoincareParameter(_ball_points(5, 2, radius=0.9), 1.0)
    p.grad = torch.randn(5, 2, dtype=DT) * 1e6
    RiemannianSGD([w, p], lr=0.1).step()
    torch.testing.assert_close(w.data, torch.full((3,), 0.8, dtype=DT))
    assert bool((p.norm(dim=-1) < 1).all())


@pytest.mark.parametrize("geometry", ["euclidean", "hyperbolic"])
def test_adam_rsgd_gives_euclidean_weights_adam_and_ball_weights_rsgd(geometry):
    """As the original code (hyp_rnn.py): Euclidean word embeddings are Adam variables; ball-valued
    embeddings get RSGD at the embedding lr, the other ball-valued weights at the ball lr."""
    model = SentencePairModel(vocab_size=7, cell="rnn", geometry=geometry).double()
    opt = adam_rsgd(list(model.named_parameters()), lr=1e-3, betas=(0.9, 0.999), embedding_lr=0.1, ball_lr=0.01)
    adam, *rsgd = opt.optimizers
    in_adam = {id(p) for g in adam.param_groups for p in g["params"]}
    lr_of = {id(p): g["lr"] for opt_ in rsgd for g in opt_.param_groups for p in g["params"]}
    for name, p in model.named_parameters():
        if not isinstance(p, PoincareParameter):
            assert id(p) in in_adam and id(p) not in lr_of, name
        else:
            assert lr_of[id(p)] == (0.1 if name == "embedding" else 0.01), name
    assert (id(model.embedding) in in_adam) == (geometry == "euclidean")


@pytest.mark.parametrize("cell", ["rnn", "gru"])
@pytest.mark.parametrize("space", [Euclidean(), PoincareBall(1.0)], ids=["euclidean", "hyperbolic"])
def test_copies_run_side_by_side_as_independent_encoders(cell, space):
    torch.manual_seed(7)
    both = Recurrent(cell, 3, 4, space, copies=(2,)).double()
    x, lengths = _ball_points(2, 5, 6, 3, radius=0.9), torch.randint(1, 7, (2, 5))
    out = both(x, lengths)
    for k in range(2):
        alone = Recurrent(cell, 3, 4, space).double()
        alone.load_state_dict({name: w[k] for name, w in both.state_dict().items()})
        torch.testing.assert_close(out[k], alone(x[k], lengths[k]), rtol=0, atol=1e-15)


@pytest.mark.parametrize("cell", ["rnn", "gru"])
@pytest.mark.parametrize("space", [Euclidean(), PoincareBall(1.0)], ids=["euclidean", "hyperbolic"])
def test_products_per_table_row_equal_products_per_token(cell, space):
    """forward_tokens forms U (x) x once per row of a small table and each step looks up its tokens': the same
    states and gradients as looking up the points first (2 runs x 2 encoders, 7 rows < 3 x 5 tokens)."""
    torch.manual_seed(11)
    enc = Recurrent(cell, 3, 4, space, copies=(2, 2)).double()
    table = _ball_points(2, 7, 3, radius=0.9).requires_grad_()
    tokens, lengths = torch.randint(0, 7, (2, 2, 3, 5)), torch.randint(1, 6, (2, 2, 3))
    per_row = enc.forward_tokens(table, tokens, lengths)
    per_token = enc(table[torch.arange(2).view(-1, 1, 1, 1), tokens], lengths)
    torch.testing.assert_close(per_row, per_token, rtol=1e-12, atol=1e-14)
    params = [table, *enc.parameters()]
    for g_row, g_token in zip(torch.autograd.grad(per_row.sum(), params), torch.autograd.grad(per_token.sum(), params)):
        torch.testing.assert_close(g_row, g_token, rtol=1e-10, atol=1e-13)


def test_euclidean_gru_is_the_gated_update_with_tanh():
    """Euclidean space, phi = tanh: h' = (1 - z) h + z tanh(W_h (r * h) + U_h x + b_h)."""
    torch.manual_seed(9)
    gru = Recurrent("gru", 3, 4, Euclidean(), "tanh").double()
    x = torch.randn(2, 3, 3, dtype=DT)
    W, U, b = gru.W, gru.U, gru.b
    h = torch.zeros(2, 4, dtype=DT)
    for t in range(3):
        r = torch.sigmoid(h @ W[0].T + x[:, t] @ U[0].T + b[0])
        z = torch.sigmoid(h @ W[1].T + x[:, t] @ U[1].T + b[1])
        h = (1 - z) * h + z * torch.tanh((r * h) @ W[2].T + x[:, t] @ U[2].T + b[2])
    torch.testing.assert_close(gru(x, torch.tensor([3, 3])), h, rtol=1e-12, atol=1e-14)


@pytest.mark.slow  # half a minute of compiling on an empty cache (`make test` compiles one small function:
# test_artanh_keeps_full_relative_precision_eager_and_compiled)
def test_compiled_encoder_equals_eager():
    """torch.compile of one hyperbolic RNN encoder as the model compiles it (the products of the table's
    rows, the recurrence step looking up its tokens' and keeping ended sequences): states and gradients
    (table and weights) agree with the eager encoder in float64 (two encoders side by side, batch 4, up
    to 5 tokens, inputs up to norm 0.75). The whole model: test_compiled_model_equals_eager (slow)."""
    torch.manual_seed(8)
    encoders = [
        Recurrent("rnn", 3, 3, PoincareBall(1.0), copies=(1, 2), compile=flag).double() for flag in (False, True)
    ]
    encoders[1].load_state_dict(encoders[0].state_dict())
    table = _ball_points(1, 7, 3, radius=0.75)
    tables = [table.clone().requires_grad_() for _ in encoders]
    tokens, lengths = torch.randint(0, 7, (1, 2, 4, 5)), torch.randint(1, 6, (1, 2, 4))
    outs = [enc.forward_tokens(table, tokens, lengths) for enc, table in zip(encoders, tables)]
    for out in outs:
        out.pow(2).sum().backward()
    torch.testing.assert_close(outs[1], outs[0], rtol=1e-12, atol=1e-14)
    for eager, compiled in zip([tables[0], *encoders[0].parameters()], [tables[1], *encoders[1].parameters()]):
        torch.testing.assert_close(compiled.grad, eager.grad, rtol=1e-10, atol=1e-13)


@pytest.mark.slow  # minutes on an empty compile cache
def test_compiled_model_equals_eager():
    """torch.compile fuses the input products, the recurrence step and the FFNN + MLR; values and
    gradients agree with the eager model in float64 (batch 4, 20 tokens)."""
    torch.manual_seed(8)
    # embeddings up to norm ~0.75 (x50 the paper's init): states well inside and near the boundary
    models = [
        SentencePairModel(101, "gru", "hyperbolic", compile=flag, embedding_init_scale=50.0).double()
        for flag in (False, True)
    ]
    models[1].load_state_dict(models[0].state_dict())
    tokens1, tokens2 = torch.randint(1, 101, (2, 1, 4, 20))
    lengths1, lengths2 = torch.randint(1, 21, (2, 1, 4))
    outs = [model(tokens1, lengths1, tokens2, lengths2) for model in models]
    for out in outs:
        out.pow(2).sum().backward()
    torch.testing.assert_close(outs[1], outs[0], rtol=1e-12, atol=1e-14)
    for p_eager, p_compiled in zip(*(model.parameters() for model in models)):
        torch.testing.assert_close(p_compiled.grad, p_eager.grad, rtol=1e-10, atol=1e-13)
