"""Orthonormality drift of Algorithm 1's Stiefel updates in float32 over the paper's number of steps.

Our ManifoldAdam, ManifoldMomentum and ManifoldGD, built from the paper's configs (variant
brantner/<optimizer>_stiefel, configs/optim/<optimizer>.yaml: the paper's Table 1, Adam's delta inside
the root as eq. (6)), step P = 3 x heads x depth points of St(dim, dim / heads), the model's attention
projections, as one stacked parameter (the trainer's batched call), for the paper profile's
trainer.epochs x ceil(training images / data.batch_size) steps (paper_steps).

Gradients (the model is not run): projection j of seed s gets, at step t,
    G_t,j = g_j (a_j M_j + b_j Z_t,j) / sqrt(N n),   M_j, Z_t,j ~ N(0, I_{N x n}) iid,
with g_j the recorded norm (evaluate.gradient_norms: the root mean square over 4 batches of 2048 of
||G_j||_F at the authors' network of the same optimizer after its 500 epochs) and a_j^2 + b_j^2 = 1,
a_j^2 = (K c_j^2 - 1) / (K - 1) clipped to [0, 1], c_j = mean_norm_j / grad_norm_j over the K batches:
the share of E||G||^2 the batches have in common (unbiased for K batches), kept fixed over the steps
(a linear loss <M_j, Y_j> the optimizer descends), the rest fresh noise every step. So
E||G_t,j||_F^2 = g_j^2: the recorded norms span 1e-10 to 3 (half the projections, those far from
the classifier, get about 1e-8). M_j, Z and the initial points (Algorithm 3) come from a generator
seeded with s; the random section draws from torch's generator, seeded with the first seed.

Recorded every `every` steps (and at 0 and the last): per projection dev_j = max_ab |(Y_j^T Y_j - I)_ab|,
computed in float64 from the float32 Y_j; max_dev = max_j dev_j and median_dev = median_j dev_j per seed.
The seeds are stacked into one parameter [S, P, N, n] (one optimizer call per step for all of them).

Why the authors' networks drift further than ours (drift_one_step.csv, evaluate.paper_step): their
update forms Z = exp(W) E at the identity's scale (eq. 19-21) and then applies lambda(Y) = [Y, Q],
Y Z[:n] + Q Z[n:], with Algorithm 2's Q = qr((I - Y Y^T) R).Q in float32 (GeometricMachineLearning.jl's
global_section). (I - Y Y^T) R is in effect a square (N - n) x (N - n) Gaussian matrix, whose condition
number kappa has a heavy tail, and Q is orthogonal to Y only to about kappa u: the rare badly
conditioned draw throws a point off the manifold by orders of magnitude more than rounding (the
max), and rounding at the identity's scale adds more per step than ours (the median). Ours adds
the lr-sized update to Y once (stiefel.retract), is orthogonal for any complement, and our random
section is orthogonal to Y to the last bit (stiefel.Section). Their Adam also divides by
sqrt(M2) + delta where ours divides by sqrt(M2 + delta) (eq. 6): with gradients of about 1e-8, half
their projections still move, ours barely do.

    python -m noneuclid.evaluate drift [--data DIR] [--profile cpu] [--steps N] [overrides ...]
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import torch

from noneuclid import optim
from noneuclid.data import mnist
from noneuclid.evaluate import gradient_norms, paper_step
from noneuclid.evaluate.gradient_norms import OPTIMIZERS, authors_file, paper_config
from noneuclid.geometry import stiefel
from noneuclid.models.vit import load_gml
from noneuclid.nn import StiefelParameter

COLUMNS = ["optimizer", "retraction", "section", "seed", "step", "max_dev", "median_dev"]
SEEDS = {"geodesic": tuple(range(7)), "cayley": (0,)}  # retraction -> seeds (the paper's retraction: geodesic)
SECTION = ("optim.section=householder",)  # see make


def deviations(Y: torch.Tensor) -> torch.Tensor:
    """max_ab |(Y^T Y - I)_ab| per matrix of Y [..., N, n], in float64: [...]."""
    Y = Y.double()
    return (Y.mT @ Y - torch.eye(Y.shape[-1], dtype=Y.dtype)).abs().amax((-2, -1))


def gradient_shares(grad_norm: torch.Tensor, mean_norm: torch.Tensor, batches: int) -> tuple[torch.Tensor, ...]:
    """(a, b) of the module doc per projection [P]: the fixed and the fresh share of the gradient."""
    c2 = (mean_norm / grad_norm.clamp_min(torch.finfo(grad_norm.dtype).tiny)).square()
    a2 = ((batches * c2 - 1) / (batches - 1)).clamp(0, 1)
    return a2.sqrt(), (1 - a2).sqrt()


def simulate(
    optim_cfg,
    grad_norm: torch.Tensor,
    mean_norm: torch.Tensor,
    batches: int,
    steps: int,
    every: int,
    seeds,
    N: int,
    n: int,
    dtype=torch.float32,
) -> pd.DataFrame:
    """The optimizer of optim_cfg on P = len(grad_norm) points of St(N, n) per seed for `steps` steps with
    the gradients of the module doc (grad_norm, mean_norm [P] from K = `batches` batches); columns step,
    seed, max_dev, median_dev (one row per record and seed)."""
    P = len(grad_norm)
    gens = [torch.Generator().manual_seed(s) for s in seeds]
    Y = torch.stack([stiefel.random_point(P, N=N, n=n, dtype=dtype, generator=g) for g in gens])  # [S, P, N, n]
    a, b = (v.to(dtype)[:, None, None] / math.sqrt(N * n) for v in gradient_shares(grad_norm, mean_norm, batches))
    scale = grad_norm.to(dtype)[:, None, None]  # [P, 1, 1]
    fixed = torch.stack([scale * a * torch.randn(P, N, n, generator=g, dtype=dtype) for g in gens])  # [S, P, N, n]
    param = StiefelParameter(Y)
    torch.manual_seed(seeds[0])
    optimizer = optim.build(optim_cfg, [("projections", param)])
    rows = [_record(0, seeds, param)]
    for step in range(1, steps + 1):
        param.grad = fixed + torch.stack([scale * b * torch.randn(P, N, n, generator=g, dtype=dtype) for g in gens])
        optimizer.step()
        if step % every == 0 or step == steps:
            rows.append(_record(step, seeds, param))
    return pd.concat(rows, ignore_index=True)


def _record(step: int, seeds, param: torch.Tensor) -> pd.DataFrame:
    dev = deviations(param.detach())  # [S, P]
    return pd.DataFrame(
        {
            "step": step,
            "seed": list(seeds),
            "max_dev": dev.amax(-1).numpy(),
            "median_dev": dev.quantile(0.5, dim=-1).numpy(),
        }
    )


def paper_steps(data_dir: Path) -> int:
    """trainer.epochs x ceil(training images / data.batch_size) of the paper profile (15,000)."""
    cfg = paper_config()
    _, y = mnist.load(data_dir, "train", cfg.data.patch, cfg.data.train_size)
    return cfg.trainer.epochs * -(-len(y) // cfg.data.batch_size)


def authors_drift(reference: Path, step: int) -> pd.DataFrame:
    """max and median over the Stiefel projections of the authors' 500-epoch network of each optimizer
    (deviations of the stored float32 weights, in float64), at `step`, the paper's last step."""
    rows = []
    for name in OPTIMIZERS:
        file = authors_file(name)
        model = load_gml(reference / file)
        dev = torch.cat(
            [deviations(p.detach()).flatten() for p in model.parameters() if isinstance(p, StiefelParameter)]
        )  # [P]
        rows.append(
            {
                "optimizer": name,
                "file": file,
                "projections": len(dev),
                "step": step,
                "max_dev": float(dev.max()),
                "median_dev": float(dev.quantile(0.5)),
            }
        )
    return pd.DataFrame(rows)


def grid(norms: pd.DataFrame, steps: int, every: int, seeds: dict, overrides=()) -> pd.DataFrame:
    """simulate for every optimizer and retraction (seeds: retraction -> seeds), each optimizer at the
    norms recorded at the authors' network it trained; rows of COLUMNS."""
    frames = []
    for name in OPTIMIZERS:
        recorded = norms[norms.optimizer == name]
        g, m = (torch.tensor(recorded[c].to_numpy()) for c in ("grad_norm", "mean_norm"))
        for retraction, retraction_seeds in seeds.items():
            cfg = paper_config(name, [*overrides, f"optim.retraction={retraction}"])
            run = simulate(
                cfg.optim,
                g,
                m,
                int(recorded.batches.iloc[0]),
                steps,
                every,
                retraction_seeds,
                cfg.model.dim,
                cfg.model.dim // cfg.model.heads,
            )
            frames.append(run.assign(optimizer=name, retraction=retraction, section=cfg.optim.section))
    return pd.concat(frames, ignore_index=True)[COLUMNS]


def make(
    reference: Path,
    data_dir: Path,
    out: Path,
    steps: int | None = None,
    every: int = 250,
    seeds: dict = SEEDS,
    overrides=SECTION,
) -> list[Path]:
    """drift_gradients.csv (gradient_norms.record), drift.csv (grid), drift_authors.csv (authors_drift) and
    drift_one_step.csv (one_step) in `out`. steps: default paper_steps. overrides: the paper's runs draw
    Algorithm 2's random section at every step; by default the simulation uses the householder
    section, 3.5 times cheaper on this CPU (the QR of a random (N - n) x (N - n) matrix per projection
    and step is most of the random section's cost). Neither retraction relies on the section being
    orthogonal to Y (stiefel.retract), and with the same gradients the random section gives the same
    max drift after 1500 steps (Adam: 2.7e-6 against 2.4e-6)."""
    torch.set_num_threads(1)  # milliseconds per step: a second thread only adds overhead
    out.mkdir(parents=True, exist_ok=True)
    norms = gradient_norms.record(reference, data_dir)
    norms.to_csv(out / "drift_gradients.csv", index=False)
    steps = steps or paper_steps(data_dir)
    grid(norms, steps, every, seeds, overrides).to_csv(out / "drift.csv", index=False)
    authors_drift(reference, paper_steps(data_dir)).to_csv(out / "drift_authors.csv", index=False)
    one_step(len(norms[norms.optimizer == OPTIMIZERS[0]])).to_csv(out / "drift_one_step.csv", index=False)
    return [out / f"{stem}.csv" for stem in ("drift_gradients", "drift", "drift_authors", "drift_one_step")]


def one_step(projections: int, draws: int = 10) -> pd.DataFrame:
    """paper_step.one_step for both retractions at the paper's lr and St(N, n): where the authors' drift
    comes from (drift_one_step.csv)."""
    cfg = paper_config()
    N, n = cfg.model.dim, cfg.model.dim // cfg.model.heads
    return pd.concat(
        [paper_step.one_step(projections, draws, cfg.optim.lr, N, n, kind) for kind in SEEDS], ignore_index=True
    )
