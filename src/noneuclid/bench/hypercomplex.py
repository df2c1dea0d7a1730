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

Training throughput (`training` in the JSON): images/s of whole PHResNet18/50/152 training steps (n = 4,
PHYDI init, the cpu profile's width, batch 64: batch from the in-memory training tensor, forward,
cross-entropy, backward, SGD step with momentum and weight decay) for the ways of running it tried for
the cpu profile, each measured interleaved with the others in the same process, in CPU seconds of the
process when torch runs on one CPU thread (`clock`: "process" then, about the wall time on an idle core
even when the machine is busy; "wall" otherwise):
    baseline        float32 NCHW images normalised once in memory (the trainer today)
    uint8           images kept as uint8 in memory, normalised per batch (cifar10.normalize)
    channels_last   PHResNet(channels_last=True): every activation in torch.channels_last memory format
    compile         torch.compile(model) (inductor: fuses BatchNorm + ReLU + residual add, and the
                    Kronecker sums); its one-off compile time is reported as compile_seconds
`speedup` is best / baseline per depth. One process per core (hydra/launcher=joblib, trainer.threads=1)
is not a per-step speed-up and is not timed here.
"""

from __future__ import annotations

import time

import torch
from torch import nn

from noneuclid.bench.timing import compare
from noneuclid.data import cifar10
from noneuclid.models.phresnet import PHResNet
from noneuclid.nn import PHConv2d, PHMLinear

CONV_STAGES = {
    (2, 4): ((64, 32), (128, 16), (256, 8), (512, 4)),  # n -> (channels, side) per stage
    (3,): ((60, 32), (120, 16), (240, 8), (516, 4)),
}
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


def _clock(device: torch.device):
    """CPU seconds of this process on the CPU with torch at one thread (robust to a busy machine:
    about the wall time on an idle core), else wall time."""
    return time.process_time if device.type == "cpu" and torch.get_num_threads() == 1 else time.perf_counter


TRAIN_DEPTHS, TRAIN_WIDTH, TRAIN_BATCH = (18, 50, 152), 0.125, 64
TRAIN_VARIANTS = ("baseline", "uint8", "channels_last", "compile")


def _training_step(
    depth: int, variant: str, images: torch.Tensor, labels: torch.Tensor, width: float, device: torch.device
):
    """A closure doing one training step of PHResNet<depth> (n = 4, PHYDI) the `variant` way on a fixed
    batch, and its one-off set-up seconds (compilation: the first steps)."""
    torch.manual_seed(0)
    model = PHResNet(depth, 4, "phydi", width_mult=width, channels_last=variant == "channels_last").to(device)
    x = cifar10.normalize(images, zero_channel=True)  # [batch, 4, 32, 32]
    net = torch.compile(model) if variant == "compile" else model
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=5e-4)

    def step():
        batch = cifar10.normalize(images, zero_channel=True) if variant == "uint8" else x
        loss = nn.functional.cross_entropy(net(batch), labels)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    start = time.perf_counter()
    step()  # compiles for `compile`
    return step, time.perf_counter() - start  # wall time: compilation runs in worker processes too


def training_throughput(
    device: torch.device,
    batch: int = TRAIN_BATCH,
    repeats: int = 10,
    depths=TRAIN_DEPTHS,
    variants=TRAIN_VARIANTS,
    width: float = TRAIN_WIDTH,
) -> dict:
    """{'images_per_s': {R<depth>: {variant: images/s}}, 'speedup': {R<depth>: best / baseline},
    'best': {R<depth>: variant}, 'compile_seconds': {R<depth>: s}} (see the module doc)."""
    g = torch.Generator().manual_seed(0)
    images = torch.randint(0, 256, (batch, 3, 32, 32), dtype=torch.uint8, generator=g).to(device)
    labels = torch.randint(0, 10, (batch,), generator=g).to(device)
    out = {
        "width_mult": width,
        "batch": batch,
        "clock": "process" if _clock(device) is time.process_time else "wall",
        "images_per_s": {},
        "speedup": {},
        "best": {},
        "compile_seconds": {},
    }
    for depth in depths:
        steps, setup = {}, {}
        for v in variants:
            steps[v], setup[v] = _training_step(depth, v, images, labels, width, device)
        t = compare(steps, device, warmup=1, repeats=repeats, clock=_clock(device))
        ips = {v: batch / t[v] for v in variants}
        key = f"R{depth}"
        out["images_per_s"][key] = ips
        out["best"][key] = max(ips, key=ips.get)
        out["speedup"][key] = ips[out["best"][key]] / ips["baseline"]
        if "compile" in setup:
            out["compile_seconds"][key] = setup["compile"]
    return out


def run(device: torch.device, batch: int = 64, repeats: int = 10, quick: bool = False) -> dict:
    """The PH layer ratios and the PHResNet training throughput; quick: PHResNet18 without compile only
    (a smoke run of the code)."""
    training = training_throughput(
        device,
        batch,
        repeats,
        depths=(18,) if quick else TRAIN_DEPTHS,
        variants=TRAIN_VARIANTS[:-1] if quick else TRAIN_VARIANTS,
    )
    torch.manual_seed(0)
    seconds, ratios = {}, {}
    for label, kind, cin, cout, in_shape, out_shape, ns in _cases(batch):
        x = torch.randn(in_shape, device=device, requires_grad=True)
        grad = torch.randn(out_shape, device=device)
        steps = {
            name: _step(_layer(kind, cin, cout, n).to(device), x, grad)
            for name, n in [("real", None), *((f"n={n}", n) for n in ns)]
        }
        t = compare(steps, device, repeats=repeats)
        seconds[label] = t
        ratios.update({f"{label} {name}": t[name] / t["real"] for name in t if name != "real"})
    worst = max(ratios, key=ratios.get)
    return {
        "device": str(device),
        "batch": batch,
        "tokens_per_batch": batch * BPTT,
        "seconds": seconds,
        "ratios": ratios,
        "worst_ratio": ratios[worst],
        "worst_case": worst,
        "targets": {"worst_ratio": "<= 1.3 on CPU"},
        "training": training,
    }


def describe(r: dict) -> str:
    title = (
        f"PH layers over real layers, forward + backward, batch {r['batch']} ({r['tokens_per_batch']} tokens "
        f"for the linear maps), {r['device']} (medians of interleaved repeats)"
    )
    lines = [title, f"  {'shape':26s} {'real ms':>9s}   PH / real"]
    for label, t in r["seconds"].items():
        ph = "   ".join(f"{name} {t[name] / t['real']:5.2f}" for name in t if name != "real")
        lines.append(f"  {label:26s} {t['real'] * 1e3:9.2f}   {ph}")
    lines.append(f"  worst ratio: {r['worst_ratio']:.2f} ({r['worst_case']})   (target <= 1.3 on CPU)")
    t = r["training"]
    lines.append(f"PHResNet training steps (n = 4, PHYDI, width x{t['width_mult']}, batch {t['batch']}), images/s:")
    for depth, ips in t["images_per_s"].items():
        lines.append(
            f"  {depth:6s} "
            + "   ".join(f"{v} {x:7.1f}" for v, x in ips.items())
            + f"   best {t['best'][depth]} x{t['speedup'][depth]:.2f}"
            + (f" (compile {t['compile_seconds'][depth]:.0f} s once)" if depth in t["compile_seconds"] else "")
        )
    return "\n".join(lines)
