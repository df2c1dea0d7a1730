"""Benchmark of Brantner's optimizer (issue 2):

1. one training step of the paper's ViT (batch 2048): ManifoldAdam on the Stiefel model over
   torch.optim.Adam on the Euclidean model (paper: 1.03 on CPU, 3.5 on GPU). Both use lr 1e-3,
   betas (0.9, 0.99), eps 3e-7; torch adds eps after the root, ManifoldAdam inside it (the paper's
   default), which does not change the cost;
2. the optimizer step alone on the 336 St(49, 7) projections: geoopt's RiemannianAdam over ours.
"""

from __future__ import annotations

import torch

from noneuclid.bench.timing import compare
from noneuclid.models.vit import PatchViT
from noneuclid.nn import StiefelParameter
from noneuclid.optim import ManifoldAdam
from noneuclid.train.losses import LOSSES

ADAM = dict(lr=1e-3, betas=(0.9, 0.99), eps=3e-7)


def train_step_times(device, batch: int, repeats: int) -> dict[str, float]:
    torch.manual_seed(0)
    x = torch.rand(batch, 16, 49, device=device)
    y = torch.randint(0, 10, (batch,), device=device)
    loss_fn = LOSSES["relative_frobenius"]

    def make_step(stiefel: bool):
        model = PatchViT(stiefel=stiefel).to(device)
        opt = ManifoldAdam(model.parameters(), **ADAM) if stiefel else torch.optim.Adam(model.parameters(), **ADAM)

        def step():
            opt.zero_grad(set_to_none=True)
            loss_fn(model(x), y).backward()
            opt.step()
        return step

    return compare({"euclidean_adam": make_step(False), "stiefel_adam": make_step(True)}, device,
                   repeats=repeats)


def optimizer_step_times(device, repeats: int) -> dict[str, float]:
    """The 336 projections of the paper's model as it stores them: 16 weights of shape [3, 7, 49, 7]
    (Q/K/V x heads), given to both optimizers in the same layout."""
    import geoopt

    torch.manual_seed(0)
    ours = [StiefelParameter.random(3, 7, N=49, n=7, device=device) for _ in range(16)]
    theirs = [geoopt.ManifoldParameter(p.detach().clone(), manifold=geoopt.CanonicalStiefel()) for p in ours]
    for a, b in zip(ours, theirs):
        a.grad = torch.randn_like(a)
        b.grad = a.grad.clone()
    random_section = ManifoldAdam(ours, **ADAM)  # the paper's section (Algorithm 2)
    householder = ManifoldAdam([StiefelParameter(p.detach().clone()) for p in ours], **ADAM, section="householder")
    for p, q in zip(householder.param_groups[0]["params"], ours):
        p.grad = q.grad.clone()
    geoopt_adam = geoopt.optim.RiemannianAdam(theirs, **ADAM)
    return compare({"noneuclid": random_section.step, "noneuclid_householder": householder.step,
                    "geoopt": geoopt_adam.step}, device, repeats=repeats)


def run(device: torch.device, batch: int = 2048, repeats: int = 10) -> dict:
    step = train_step_times(device, batch, repeats)
    opt = optimizer_step_times(device, repeats * 5)
    return {
        "device": str(device),
        "batch": batch,
        "train_step_seconds": step,
        "train_step_ratio": step["stiefel_adam"] / step["euclidean_adam"],
        "optimizer_step_seconds": opt,
        "optimizer_speedup_vs_geoopt": opt["geoopt"] / opt["noneuclid"],
        "optimizer_speedup_vs_geoopt_householder": opt["geoopt"] / opt["noneuclid_householder"],
        "targets": {"train_step_ratio": "<= 1.10 on CPU, <= 1.25 on GPU",
                    "optimizer_speedup_vs_geoopt": ">= 3"},
    }


def describe(r: dict) -> str:
    s, o = r["train_step_seconds"], r["optimizer_step_seconds"]
    return "\n".join([
        f"Brantner ViT, batch {r['batch']}, {r['device']} (medians of interleaved repeats)",
        f"  train step  Euclidean + torch Adam : {s['euclidean_adam'] * 1e3:9.1f} ms",
        f"  train step  Stiefel + ManifoldAdam : {s['stiefel_adam'] * 1e3:9.1f} ms",
        f"  ratio Stiefel / Euclidean          : {r['train_step_ratio']:9.3f}   (target <= 1.10 CPU; paper 1.03 CPU, 3.5 GPU)",
        f"  optimizer step on 336 St(49,7), ours, random section      : {o['noneuclid'] * 1e3:7.2f} ms",
        f"  optimizer step on 336 St(49,7), ours, householder section : {o['noneuclid_householder'] * 1e3:7.2f} ms",
        f"  optimizer step, geoopt RiemannianAdam                     : {o['geoopt'] * 1e3:7.2f} ms",
        f"  speed-up over geoopt, random section (the paper's)        : {r['optimizer_speedup_vs_geoopt']:7.2f}x  (target >= 3)",
        f"  speed-up over geoopt, householder section                 : {r['optimizer_speedup_vs_geoopt_householder']:7.2f}x",
    ])
