"""Benchmark of the PH layers (PHYDI paper): forward + backward of a PH layer over the real layer of
the same shape, at the shapes of the paper's networks, for n = 2, 3, 4 where n divides the sizes.

- PHConv2d over nn.Conv2d: the 3x3 convolutions of the four PHResNet18 stages, batch 64 images:
  64 channels at 32x32, 128 at 16x16, 256 at 8x8, 512 at 4x4 (n = 2, 4), and the paper's n = 3
  widths 60/120/240/516 at the same resolutions (no bias, as in the ResNets).
- PHMLinear over nn.Linear: the PHTransformer's maps on batch x bptt = 64 x 35 tokens: 128 -> 128
  (attention output), 128 -> 256 and 256 -> 128 (FFN), and the head 128 -> 28784 (WikiText-2's
  28,782 words, noneuclid.data.wikitext2, padded to a multiple of 4); n = 2, 4 only (3 does not divide 128).

A step is forward + backward with a fixed output gradient, input gradient included (as inside a
network); the PH step rebuilds its weight sum_s A_s (x) F_s from the parameters, as in training.
"""

from __future__ import annotations

import torch
from torch import nn

from noneuclid.bench.timing import compare
from noneuclid.nn import PHConv2d, PHMLinear

CONV_STAGES = {(2, 4): ((64, 32), (128, 16), (256, 8), (512, 4)),  # n -> (channels, side) per stage
               (3,): ((60, 32), (120, 16), (240, 8), (516, 4))}
BPTT = 35
VOCAB = 28784
LINEAR_SHAPES = ((128, 128), (128, 256), (256, 128), (128, VOCAB))


def _cases(batch: int):
    """(label, layer kind, in size, out size, input shape, output shape, the n to time)."""
    for ns, stages in CONV_STAGES.items():
        for c, side in stages:
            shape = (batch, c, side, side)
            yield f"conv3x3 {c}ch {side}x{side}", "conv", c, c, shape, shape, ns
    for i, o in LINEAR_SHAPES:
        yield f"linear {i}->{o}", "linear", i, o, (batch, BPTT, i), (batch, BPTT, o), (2, 4)


def _layer(kind: str, cin: int, cout: int, n: int | None) -> nn.Module:
    """The real layer for n = None, else the PH layer with that n."""
    if kind == "conv":
        return nn.Conv2d(cin, cout, 3, padding=1, bias=False) if n is None else PHConv2d(cin, cout, 3, n, padding=1)
    return nn.Linear(cin, cout) if n is None else PHMLinear(cin, cout, n)


def _step(layer: nn.Module, x: torch.Tensor, grad: torch.Tensor):
    def step():
        layer.zero_grad(set_to_none=True)
        x.grad = None
        layer(x).backward(grad)
    return step


def run(device: torch.device, batch: int = 64, repeats: int = 10) -> dict:
    torch.manual_seed(0)
    seconds, ratios = {}, {}
    for label, kind, cin, cout, in_shape, out_shape, ns in _cases(batch):
        x = torch.randn(in_shape, device=device, requires_grad=True)
        grad = torch.randn(out_shape, device=device)
        steps = {name: _step(_layer(kind, cin, cout, n).to(device), x, grad)
                 for name, n in [("real", None), *((f"n={n}", n) for n in ns)]}
        t = compare(steps, device, repeats=repeats)
        seconds[label] = t
        ratios.update({f"{label} {name}": t[name] / t["real"] for name in t if name != "real"})
    worst = max(ratios, key=ratios.get)
    return {"device": str(device), "batch": batch, "tokens_per_batch": batch * BPTT, "seconds": seconds,
            "ratios": ratios, "worst_ratio": ratios[worst], "worst_case": worst,
            "targets": {"worst_ratio": "<= 1.3 on CPU"}}


def describe(r: dict) -> str:
    title = (f"PH layers over real layers, forward + backward, batch {r['batch']} ({r['tokens_per_batch']} tokens "
             f"for the linear maps), {r['device']} (medians of interleaved repeats)")
    lines = [title, f"  {'shape':26s} {'real ms':>9s}   PH / real"]
    for label, t in r["seconds"].items():
        ph = "   ".join(f"{name} {t[name] / t['real']:5.2f}" for name in t if name != "real")
        lines.append(f"  {label:26s} {t['real'] * 1e3:9.2f}   {ph}")
    lines.append(f"  worst ratio: {r['worst_ratio']:.2f} ({r['worst_case']})   (target <= 1.3 on CPU)")
    return "\n".join(lines)
