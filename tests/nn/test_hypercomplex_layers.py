"""PH layers (PHYDI paper eq. 1): the weight equals sum_s (w_s) A_s (x) F_s built with torch.kron, the
layers apply it like nn.Linear / nn.Conv2d, they hold about 1/n of the parameters, the
initialisation follows the released code's Xavier bounds, and bad sizes are refused."""

from __future__ import annotations

import math

import pytest
import torch
from torch import nn
from torch.nn import functional

from noneuclid.nn import PHConv2d, PHMEmbedding, PHMLinear, ResidualGate

DT = torch.float64


def _kron_reference(layer) -> torch.Tensor:
    """sum_s w_s kron(A_s, F_s), tap by tap for a convolution: the independent reference."""
    A, F = layer.A.detach(), layer.F.detach()
    w = layer.w.detach() if layer.w is not None else torch.ones(layer.n, dtype=A.dtype)
    taps = F.shape[3:]
    W = torch.zeros(layer.out_features, layer.in_features, *taps, dtype=A.dtype)
    for s in range(layer.n):
        if taps:
            for i in range(taps[0]):
                for j in range(taps[1]):
                    W[:, :, i, j] += w[s] * torch.kron(A[s], F[s, :, :, i, j])
        else:
            W += w[s] * torch.kron(A[s], F[s])
    return W


def _randomise_kron_weights(layer):
    if layer.w is not None:
        with torch.no_grad():
            layer.w.copy_(torch.randn_like(layer.w))  # w = 1 at init would hide a wrong weighting
    return layer


@pytest.mark.parametrize("kron_weights", [False, True])
@pytest.mark.parametrize("n, in_features, out_features", [(2, 6, 4), (3, 6, 9), (4, 8, 12)])
def test_phm_linear_is_the_kronecker_sum(n, in_features, out_features, kron_weights):
    layer = _randomise_kron_weights(PHMLinear(in_features, out_features, n, kron_weights=kron_weights).double())
    W = _kron_reference(layer)
    torch.testing.assert_close(layer.weight, W, rtol=0, atol=1e-12)
    x = torch.randn(5, 3, in_features, dtype=DT)
    torch.testing.assert_close(layer(x), functional.linear(x, W, layer.bias), rtol=0, atol=1e-12)


@pytest.mark.parametrize("kron_weights", [False, True])
@pytest.mark.parametrize(
    "n, cin, cout, k, stride, padding", [(2, 4, 6, 3, 1, 1), (3, 3, 6, 3, 2, 1), (4, 8, 4, 1, 2, 0)]
)
def test_ph_conv_is_the_kronecker_sum_at_every_tap(n, cin, cout, k, stride, padding, kron_weights):
    layer = PHConv2d(cin, cout, k, n, stride=stride, padding=padding, bias=True, kron_weights=kron_weights)
    layer = _randomise_kron_weights(layer.double())
    W = _kron_reference(layer)
    torch.testing.assert_close(layer.weight, W, rtol=0, atol=1e-12)
    x = torch.randn(2, cin, 7, 7, dtype=DT)
    expected = functional.conv2d(x, W, layer.bias, stride, padding)
    torch.testing.assert_close(layer(x), expected, rtol=0, atol=1e-12)


def test_embedding_looks_up_rows_of_the_ph_table():
    """E[ids] = rows of sum_s A_s (x) F_s = what a PH layer vocab -> dim gives on one-hot tokens."""
    emb = PHMEmbedding(12, 8, 4).double()
    ids = torch.tensor([[0, 11, 5], [3, 3, 7]])
    table = _kron_reference(emb)  # [12, 8]
    onehot = functional.one_hot(ids, 12).to(DT)
    torch.testing.assert_close(emb(ids), onehot @ table, rtol=0, atol=1e-12)


def test_gradients_reach_A_F_and_w():
    layer = PHConv2d(4, 4, 3, 2, padding=1, kron_weights=True).double()
    layer(torch.randn(2, 4, 5, 5, dtype=DT)).square().sum().backward()
    assert all(p.grad is not None and p.grad.abs().sum() > 0 for p in (layer.A, layer.F, layer.w))


def _xavier_bound_of_F(k: int, cin: int, cout: int, n: int) -> float:
    return math.sqrt(6 / (k * k * (cin / n) * (cout / n + n)))


def test_initialisation_follows_the_released_xavier_bounds():
    """A: sqrt(3)/n; F: sqrt(6 / (k^2 (in/n) (out/n + n))); w = 1; linear bias +-1/sqrt(in)."""
    n = 4
    conv = PHConv2d(64, 128, 3, n, kron_weights=True)
    linear = PHMLinear(256, 128, n)
    for layer, bound in ((conv, _xavier_bound_of_F(3, 64, 128, n)), (linear, _xavier_bound_of_F(1, 256, 128, n))):
        assert layer.A.abs().max() <= math.sqrt(3) / n
        assert 0.95 * bound < layer.F.abs().max() <= bound
    assert bool((conv.w == 1).all()) and conv.bias is None and linear.w is None
    assert linear.bias.abs().max() <= 1 / math.sqrt(256)


def _count(module) -> int:
    return sum(p.numel() for p in module.parameters())


def test_parameter_counts_are_about_one_nth_of_the_real_layer():
    rows = []
    for name, make_real, make_ph, k, cin, cout in [
        ("conv3x3 64->64", lambda: nn.Conv2d(64, 64, 3, bias=False), lambda n: PHConv2d(64, 64, 3, n), 3, 64, 64),
        (
            "conv3x3 516->516",
            lambda: nn.Conv2d(516, 516, 3, bias=False),
            lambda n: PHConv2d(516, 516, 3, n),
            3,
            516,
            516,
        ),
        (
            "linear 128->256",
            lambda: nn.Linear(128, 256, bias=False),
            lambda n: PHMLinear(128, 256, n, bias=False),
            1,
            128,
            256,
        ),
    ]:
        real = _count(make_real())
        for n in (2, 3, 4):
            if cin % n or cout % n:
                continue
            ph = _count(make_ph(n))
            assert ph == n**3 + cout * cin * k * k // n
            assert abs(ph / real - 1 / n) < 0.01
            rows.append(f"{name:18s} n={n}  real {real:8d}  PH {ph:8d}  ratio {ph / real:.4f}  (1/n = {1 / n:.4f})")
    print("\n" + "\n".join(rows))


@pytest.mark.parametrize(
    "make",
    [
        lambda: PHMLinear(6, 4, 4),
        lambda: PHMLinear(8, 6, 4),
        lambda: PHConv2d(4, 6, 3, 3),
        lambda: PHMEmbedding(10, 8, 4),
        lambda: PHMLinear(4, 4, 0),
    ],
)
def test_sizes_not_divisible_by_n_are_refused(make):
    with pytest.raises(ValueError, match="divisible by n|positive integer"):
        make()


def test_error_names_the_size_and_a_multiple():
    with pytest.raises(ValueError, match=r"in_features=6 is not divisible by n=4: use a multiple of 4, e.g. 8"):
        PHMLinear(6, 8, 4)


def test_residual_gate_starts_at_zero_and_learns():
    gate = ResidualGate().double()
    x = torch.randn(3, 4, dtype=DT)
    assert [name for name, _ in gate.named_parameters()] == ["alpha"] and gate.alpha.shape == ()
    assert bool((gate(x) == 0).all())
    gate(x).mul(x).sum().backward()
    assert gate.alpha.grad > 0
