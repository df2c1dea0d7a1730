"""PHResNets and PHTransformers (PHYDI paper, section 3): shapes for every depth, n, init and norm;
PHYDI networks are the identity on every residual block at init (projection blocks: the shortcut);
one gate parameter alpha per gated branch; a 48-layer PHYDI transformer trains without NaN."""

from __future__ import annotations

import pytest
import torch

from noneuclid import models
from noneuclid.models.phresnet import PHBlock, PHResNet
from noneuclid.models.phtransformer import PHTransformer, PHTransformerLayer

DT = torch.float64
TINY = 1 / 16  # stage widths 4/8/16/32 (n = 2, 4) and 3/6/15/33 (n = 3)
BLOCKS = {18: 8, 50: 16, 152: 50}


def _alphas(model) -> list[str]:
    return [name for name, _ in model.named_parameters() if name.split(".")[-1] == "alpha"]


def _tokens(batch=3, seq=6, vocab=16):
    return torch.randint(0, vocab, (batch, seq))


@pytest.mark.parametrize("init", ["standard", "wkp", "phydi"])
@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("depth", [18, 50])
def test_phresnet_forward_shape(depth, n, init):
    model = PHResNet(depth, n, init, num_classes=7, width_mult=TINY)
    x = torch.randn(2, model.in_channels, 8, 8)
    assert model(x).shape == (2, 7)
    assert model.in_channels == (3 if n == 3 else 4)
    assert len(_alphas(model)) == (BLOCKS[depth] if init == "phydi" else 0)
    kron = [name for name, _ in model.named_parameters() if name.endswith(".w")]
    convs = sum(1 for name, _ in model.named_parameters() if name.endswith(".F"))
    assert len(kron) == (convs if init == "wkp" else 0)


def test_phresnet_parameter_counts_scale_as_one_over_n():
    """Full paper widths; the convolutions dominate, so the count at n = 4 is about half that at n = 2."""
    rows = []
    for depth in (18, 50, 152):
        counts = {n: sum(p.numel() for p in PHResNet(depth, n, "phydi").parameters()) for n in (2, 3, 4)}
        assert abs(counts[4] / counts[2] - 0.5) < 0.01
        rows.append(f"PHResNet{depth:<4d} " + "  ".join(f"n={n}: {c / 1e6:6.2f} M" for n, c in counts.items()))
    print("\n" + "\n".join(rows))
    assert len(_alphas(PHResNet(152, 3, "phydi", width_mult=TINY))) == BLOCKS[152]


@pytest.mark.parametrize("depth, n", [(18, 2), (18, 3), (50, 4), (50, 3)])
def test_phydi_resnet_blocks_are_the_identity_at_init(depth, n):
    """out = shortcut(x) + 0 * relu(branch(x)): x itself on identity-shortcut blocks."""
    model = PHResNet(depth, n, "phydi", width_mult=TINY).to(DT)
    seen = {"identity": 0, "projection": 0}

    def check(block, inputs, output):
        (x,) = inputs
        if isinstance(block.shortcut, torch.nn.Identity):
            seen["identity"] += 1
            torch.testing.assert_close(output, x, rtol=0, atol=1e-12)
        else:
            seen["projection"] += 1
            torch.testing.assert_close(output, block.shortcut(x), rtol=0, atol=1e-12)

    for block in model.modules():
        if isinstance(block, PHBlock):
            block.register_forward_hook(check)
    model(torch.randn(2, model.in_channels, 8, 8, dtype=DT))
    assert seen["identity"] == BLOCKS[depth] - (3 if depth == 18 else 4) and seen["projection"] > 0


def test_wkp_at_init_computes_the_standard_network():
    """w_s = 1 at init: with the same A, F the WKP network is the standard one."""
    standard = PHResNet(18, 4, "standard", width_mult=TINY).to(DT)
    wkp = PHResNet(18, 4, "wkp", width_mult=TINY).to(DT)
    missing = wkp.load_state_dict(standard.state_dict(), strict=False).missing_keys
    assert missing and all(key.endswith(".w") for key in missing)
    x = torch.randn(2, 4, 8, 8, dtype=DT)
    torch.testing.assert_close(wkp(x), standard(x), rtol=0, atol=1e-12)


def test_channels_last_computes_the_same_network():
    """channels_last changes only the memory layout of the activations (a cpu-profile speed-up)."""
    torch.manual_seed(0)
    plain = PHResNet(50, 4, "phydi", width_mult=TINY).to(DT)
    fast = PHResNet(50, 4, "phydi", width_mult=TINY, channels_last=True).to(DT)
    fast.load_state_dict(plain.state_dict())
    for model in (plain, fast):  # a nonzero gate, so that the branches count
        for name, p in model.named_parameters():
            if name.endswith("alpha"):
                p.data.fill_(0.5)
    x = torch.randn(2, 4, 8, 8, dtype=DT)
    torch.testing.assert_close(fast(x), plain(x), rtol=1e-10, atol=1e-10)


def test_width_mult_keeps_channels_divisible_by_n():
    model = PHResNet(50, 3, "standard", width_mult=0.1)
    for module in model.modules():
        if hasattr(module, "A"):
            assert module.in_features % 3 == 0 and module.out_features % 3 == 0
    assert model.head.in_features == 4 * 3 * round(516 * 0.1 / 3)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"depth": 34, "n": 2, "init": "phydi"}, r"unknown depth 34.*\[18, 50, 152\]"),
        ({"depth": 18, "n": 5, "init": "phydi"}, r"unknown n 5.*\[2, 3, 4\]"),
        ({"depth": 18, "n": 2, "init": "rezero"}, r"unknown init 'rezero'.*phydi"),
    ],
)
def test_phresnet_refuses_unknown_settings(kwargs, message):
    with pytest.raises(ValueError, match=message):
        PHResNet(**kwargs)


def test_phresnet_names_the_input_channels_it_needs():
    with pytest.raises(ValueError, match="takes 4 input channels"):
        PHResNet(18, 4, "phydi", width_mult=TINY)(torch.randn(1, 3, 8, 8))


@pytest.mark.parametrize("norm", ["post", "pre", "phydi"])
@pytest.mark.parametrize("n", [2, 4])
def test_phtransformer_forward_shape_and_gates(norm, n):
    model = PHTransformer(16, 3, n, norm, d_model=16, d_ff=32, heads=4)
    assert model(_tokens()).shape == (3, 6, 16)
    alphas = _alphas(model)
    assert len(alphas) == (2 * 3 if norm == "phydi" else 0) and len(set(alphas)) == len(alphas)
    norms = sum(isinstance(m, torch.nn.LayerNorm) for m in model.modules())
    assert norms == {"post": 6, "pre": 7, "phydi": 0}[norm]


@pytest.mark.parametrize("norm", ["post", "pre", "phydi"])
def test_phtransformer_is_causal(norm):
    model = PHTransformer(16, 2, 2, norm, d_model=16, d_ff=32, heads=4).to(DT).eval()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("alpha"):
                p.fill_(0.5)  # open the PHYDI gates, or every position would trivially ignore the others
    ids = _tokens()
    changed = ids.clone()
    changed[:, 4:] = (changed[:, 4:] + 1) % 16
    before, after = model(ids), model(changed)
    torch.testing.assert_close(after[:, :4], before[:, :4], rtol=0, atol=1e-12)
    assert (after[:, 4:] - before[:, 4:]).abs().max() > 1e-6


def test_phydi_transformer_is_embedding_to_head_at_init():
    model = PHTransformer(16, 4, 4, "phydi", d_model=16, d_ff=32, heads=4).to(DT)
    layers = []

    def identity(layer, inputs, output):
        layers.append(layer)
        torch.testing.assert_close(output, inputs[0], rtol=0, atol=1e-12)

    for layer in model.modules():
        if isinstance(layer, PHTransformerLayer):
            layer.register_forward_hook(identity)
    ids = _tokens()
    model.train()(ids)  # dropout on: the zero gates still remove every branch
    assert len(layers) == 4
    model.eval()
    torch.testing.assert_close(model(ids), model.head(model.embed(ids)), rtol=0, atol=1e-12)


def test_phtransformer_refuses_a_vocabulary_not_divisible_by_n():
    with pytest.raises(
        ValueError,
        match=r"vocab_size=33278 is not divisible by n=4: pad the vocabulary to a "
        r"multiple of n \(33280 tokens\)",
    ):
        PHTransformer(33278, 2, 4, "phydi")
    with pytest.raises(ValueError, match="unknown norm 'gpt2'"):
        PHTransformer(32, 2, 4, "gpt2")
    with pytest.raises(ValueError, match="d_model=128 is not divisible by n=3"):
        PHTransformer(33, 2, 3, "pre")


def test_48_layer_phydi_transformer_trains_without_nan():
    """The paper's deepest stack, narrow: Adagrad lr 0.01 with gradient-norm clip 0.5 (the paper's recipe)."""
    torch.manual_seed(0)
    vocab, depth = 16, 48
    model = PHTransformer(vocab, depth, 4, "phydi", d_model=32, d_ff=64, heads=4)
    opt = torch.optim.Adagrad(model.parameters(), lr=0.01)
    ids = _tokens(4, 9, vocab)
    losses = []
    for _ in range(4):
        opt.zero_grad()
        logits = model(ids[:, :-1])
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, vocab), ids[:, 1:].reshape(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        opt.step()
        losses.append(loss.item())
    assert all(torch.isfinite(torch.tensor(losses))) and losses[-1] < losses[0]
    assert all(torch.isfinite(p).all() for p in model.parameters())
    alphas = [p for name, p in model.named_parameters() if name.endswith("alpha")]
    assert len(alphas) == 2 * depth and all(p.item() != 0 for p in alphas)


def test_models_are_registered_for_configs():
    resnet = models.build({"name": "phresnet", "depth": 18, "n": 2, "init": "phydi", "width_mult": TINY})
    lm = models.build(
        {"name": "phtransformer", "depth": 2, "n": 2, "norm": "pre", "d_model": 16, "d_ff": 32, "heads": 4},
        vocab_size=16,
    )
    assert isinstance(resnet, PHResNet) and isinstance(lm, PHTransformer)
