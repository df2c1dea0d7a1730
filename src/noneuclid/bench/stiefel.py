"""Benchmark of Brantner's optimizer:

1. one training step of the paper's ViT (batch 2048): ManifoldAdam on the Stiefel model over
   torch.optim.Adam on the Euclidean model (paper: 1.03 on CPU, 3.5 on GPU), and over the other
   approach users pick, geotorch: the same ViT with its attention weights made orthogonal by
   geotorch.orthogonal (a parametrisation X = exp(skew) [I; 0]) and trained by torch.optim.Adam.
   All use lr 1e-3, betas (0.9, 0.99), eps 3e-7; torch adds eps after the root, ManifoldAdam inside
   it (the paper's default), which does not change the cost;
2. the optimizer step alone on the 336 St(49, 7) projections: geoopt's RiemannianAdam over ours, for
   the default (householder section, geodesic retraction) and for the other section and retraction.
Ratios are measured within one run (interleaved repeats), so a busy machine slows all alike; absolute
times on a busy machine are not comparable between runs.
"""

from __future__ import annotations

import torch

from noneuclid.bench.timing import compare
from noneuclid.models.vit import PatchViT
from noneuclid.nn import StiefelParameter
from noneuclid.optim import ManifoldAdam
from noneuclid.train.losses import LOSSES

ADAM = dict(lr=1e-3, betas=(0.9, 0.99), eps=3e-7)
# ManifoldAdam settings timed in the optimizer step: name -> (section, retraction); the first is the default
VARIANTS = {
    "noneuclid": ("householder", "geodesic"),
    "noneuclid_random": ("random", "geodesic"),
    "noneuclid_cayley": ("householder", "cayley"),
    "noneuclid_random_cayley": ("random", "cayley"),
}


def _geotorch_vit(device) -> PatchViT:
    """The Euclidean ViT with every attention weight [3, heads, 49, 7] constrained by geotorch (its
    parametrisation applies to the last two dimensions: 336 points of St(49, 7))."""
    import geotorch

    model = PatchViT(stiefel=False).to(device)
    for attention, _ in model.blocks:
        geotorch.orthogonal(attention, "weight")
    return model


def train_step_times(device, batch: int, repeats: int) -> dict[str, float]:
    torch.manual_seed(0)
    x = torch.rand(batch, 16, 49, device=device)
    y = torch.randint(0, 10, (batch,), device=device)
    loss_fn = LOSSES["relative_frobenius"]

    def make_step(kind: str):
        model = _geotorch_vit(device) if kind == "geotorch" else PatchViT(stiefel=kind == "stiefel").to(device)
        optimizer = ManifoldAdam if kind == "stiefel" else torch.optim.Adam
        opt = optimizer(model.parameters(), **ADAM)

        def step():
            opt.zero_grad(set_to_none=True)
            loss_fn(model(x), y).backward()
            opt.step()

        return step

    return compare(
        {
            "euclidean_adam": make_step("euclidean"),
            "stiefel_adam": make_step("stiefel"),
            "geotorch_adam": make_step("geotorch"),
        },
        device,
        repeats=repeats,
    )


def optimizer_step_times(device, repeats: int) -> dict[str, float]:
    """The 336 projections of the paper's model as it stores them: 16 weights of shape [3, 7, 49, 7]
    (Q/K/V x heads), given to every optimizer in the same layout with the same gradients."""
    import geoopt

    torch.manual_seed(0)
    start = [StiefelParameter.random(3, 7, N=49, n=7, device=device) for _ in range(16)]
    grads = [torch.randn_like(p) for p in start]

    def params(cls, **kw):
        ps = [cls(p.detach().clone(), **kw) for p in start]
        for p, g in zip(ps, grads):
            p.grad = g.clone()
        return ps

    steps = {
        name: ManifoldAdam(params(StiefelParameter), **ADAM, section=section, retraction=retraction).step
        for name, (section, retraction) in VARIANTS.items()
    }
    theirs = params(geoopt.ManifoldParameter, manifold=geoopt.CanonicalStiefel())
    steps["geoopt"] = geoopt.optim.RiemannianAdam(theirs, **ADAM).step
    return compare(steps, device, repeats=repeats)


def run(device: torch.device, batch: int = 2048, repeats: int = 10) -> dict:
    step = train_step_times(device, batch, repeats)
    opt = optimizer_step_times(device, repeats * 5)
    return {
        "device": str(device),
        "batch": batch,
        "train_step_seconds": step,
        "train_step_ratio": step["stiefel_adam"] / step["euclidean_adam"],
        "geotorch_train_step_ratio": step["geotorch_adam"] / step["stiefel_adam"],
        "optimizer_step_seconds": opt,
        "optimizer_variants": {name: dict(zip(("section", "retraction"), v)) for name, v in VARIANTS.items()},
        "optimizer_speedup_vs_geoopt": opt["geoopt"] / opt["noneuclid"],
        **{
            f"optimizer_speedup_vs_geoopt_{name.removeprefix('noneuclid_')}": opt["geoopt"] / opt[name]
            for name in VARIANTS
            if name != "noneuclid"
        },
        "targets": {"train_step_ratio": "<= 1.10 on CPU, <= 1.25 on GPU", "optimizer_speedup_vs_geoopt": ">= 3"},
    }


def describe(r: dict) -> str:
    s, o = r["train_step_seconds"], r["optimizer_step_seconds"]
    lines = [
        f"Brantner ViT, batch {r['batch']}, {r['device']} (medians of interleaved repeats)",
        f"  train step  Euclidean + torch Adam : {s['euclidean_adam'] * 1e3:9.1f} ms",
        f"  train step  Stiefel + ManifoldAdam : {s['stiefel_adam'] * 1e3:9.1f} ms",
        f"  train step  geotorch + torch Adam  : {s['geotorch_adam'] * 1e3:9.1f} ms",
        f"  ratio Stiefel / Euclidean          : {r['train_step_ratio']:9.3f}   "
        "(target <= 1.10 CPU; paper 1.03 CPU, 3.5 GPU)",
        f"  ratio geotorch / ours              : {r['geotorch_train_step_ratio']:9.3f}",
        "  optimizer step on 336 St(49,7):",
    ]
    for name, (section, retraction) in VARIANTS.items():
        key = "optimizer_speedup_vs_geoopt" + ("" if name == "noneuclid" else "_" + name.removeprefix("noneuclid_"))
        default = "  (default; target >= 3)" if name == "noneuclid" else ""
        lines.append(
            f"    ours, {section:11} section, {retraction:8}: {o[name] * 1e3:7.2f} ms, "
            f"speed-up over geoopt {r[key]:5.2f}x{default}"
        )
    lines.append(f"    geoopt RiemannianAdam                : {o['geoopt'] * 1e3:7.2f} ms")
    return "\n".join(lines)
