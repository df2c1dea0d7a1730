"""Per-projection gradient norms of Brantner's vision transformer on real MNIST batches: the scale at
which evaluate.drift feeds its optimizers.

For each network, K batches of the paper's size (data.batch_size) drawn from the training split, the
run's loss (relative Frobenius, ||Y_hat - Y||_F / ||Y||_F) and, per attention projection j (the
P = 3 x heads x depth points of St(N, n), in the order the model stores them), the Euclidean gradient
G_j^(k) [N, n] of batch k:
    grad_norm_j = sqrt(mean_k ||G_j^(k)||_F^2)        (root mean square over the K batches)
    mean_norm_j = ||mean_k G_j^(k)||_F                 (what the batches share: the descent direction)
Networks: the authors' three Stiefel networks after their 500 epochs (GeometricMachineLearning.jl;
optimizer adam | momentum | gd: the state at the paper's last step), and our initial network of the
paper's configs (Algorithm 3, seed 0; optimizer "none") for the start of training.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import torch

from noneuclid import models
from noneuclid.claims import data as claims_data
from noneuclid.config import compose
from noneuclid.data import mnist
from noneuclid.models.vit import load_gml
from noneuclid.nn import StiefelParameter
from noneuclid.train.losses import LOSSES

AUTHORS = claims_data.load("brantner").references["authors_run"].values  # setup -> the authors' run (gml: its k)

OPTIMIZERS = ("adam", "momentum", "gd")  # configs/optim/<name>, variant brantner/<name>_stiefel


def paper_config(optimizer: str = "adam", overrides=()):
    """The config of the paper's run of `optimizer` on Stiefel projections (profile paper)."""
    return compose(["profile=paper", f"variant=brantner/{optimizer}_stiefel", *overrides])


def authors_file(optimizer: str) -> str:
    """The file of the authors' 500-epoch network of `optimizer` on Stiefel projections, mnist_nn<k>.h5."""
    return f"mnist_nn{AUTHORS[f'{optimizer}_stiefel']['gml']}.h5"


def projection_gradients(model, x: torch.Tensor, y: torch.Tensor, loss) -> torch.Tensor:
    """The Euclidean gradient of loss(model(x), y) at every Stiefel projection: [P, N, n]."""
    model.zero_grad(set_to_none=True)
    loss(model(x), y).backward()
    return torch.cat([p.grad.reshape(-1, *p.shape[-2:]) for p in model.parameters() if isinstance(p, StiefelParameter)])


def networks(reference: Path, seed: int = 0) -> dict[str, torch.nn.Module]:
    """optimizer -> network: "none" our initial one (seed), adam | momentum | gd the authors' 500-epoch ones."""
    cfg = paper_config()
    torch.manual_seed(seed)
    nets = {"none": models.build_on(cfg.model, torch.device("cpu"), torch.float32)}
    for name in OPTIMIZERS:
        nets[name] = load_gml(reference / authors_file(name))
    return nets


def record(reference: Path, data_dir: Path, batches: int = 4, seed: int = 0) -> pd.DataFrame:
    """One row per network and projection: optimizer, projection, batches (K), grad_norm, mean_norm (module doc)."""
    cfg = paper_config()
    x, y = mnist.load(data_dir, "train", cfg.data.patch)
    order = torch.randperm(len(y), generator=torch.Generator().manual_seed(seed))
    index = order[: batches * cfg.data.batch_size].view(batches, cfg.data.batch_size)  # [K, B]
    loss = LOSSES[cfg.loss]
    frames = []
    for optimizer, model in networks(reference, seed).items():
        G = torch.stack([projection_gradients(model, x[i], y[i], loss) for i in index]).double()  # [K, P, N, n]
        frames.append(
            pd.DataFrame(
                {
                    "optimizer": optimizer,
                    "projection": range(G.shape[1]),
                    "batches": batches,
                    "grad_norm": G.square().sum((-2, -1)).mean(0).sqrt().numpy(),
                    "mean_norm": torch.linalg.matrix_norm(G.mean(0)).numpy(),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)
