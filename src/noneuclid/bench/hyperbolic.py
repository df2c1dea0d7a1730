"""Benchmark of Ganea et al.'s models (issue 3): one training step of the fully hyperbolic GRU
sentence-pair model over the fully Euclidean GRU model, same sizes and batch (PREFIX-like data:
batch 64, sentences of up to 20 tokens, dimension 5, float64 as in the paper). The hyperbolic
model runs as configured (recurrence step compiled) and, for comparison, eager."""

from __future__ import annotations

import torch

from noneuclid.bench.timing import compare
from noneuclid.models.sentence_pair import SentencePairModel
from noneuclid.optim import adam_rsgd


def run(device: torch.device, batch: int = 64, repeats: int = 10, dtype=torch.float64) -> dict:
    torch.manual_seed(0)
    lengths1 = torch.randint(1, 21, (batch,), device=device)
    lengths2 = torch.randint(1, 21, (batch,), device=device)
    tokens1 = torch.randint(1, 101, (batch, 20), device=device)
    tokens2 = torch.randint(1, 101, (batch, 20), device=device)
    labels = torch.randint(0, 2, (batch,), device=device)

    def make_step(geometry: str, compile: bool = False):
        model = SentencePairModel(101, "gru", geometry, compile=compile).to(device, dtype)
        opt = adam_rsgd(list(model.named_parameters()), lr=1e-3, betas=(0.9, 0.999), embedding_lr=0.1,
                        ball_lr=0.01, clip_norm=1.0)

        def step():
            opt.zero_grad()
            logits = model(tokens1, lengths1, tokens2, lengths2)
            torch.nn.functional.cross_entropy(logits, labels).backward()
            opt.step()
        return step

    t = compare({"euclidean_gru": make_step("euclidean"), "hyperbolic_gru": make_step("hyperbolic", compile=True),
                 "hyperbolic_gru_eager": make_step("hyperbolic")}, device, repeats=repeats)
    return {"device": str(device), "batch": batch, "dtype": str(dtype).removeprefix("torch."),
            "train_step_seconds": t, "train_step_ratio": t["hyperbolic_gru"] / t["euclidean_gru"],
            "eager_train_step_ratio": t["hyperbolic_gru_eager"] / t["euclidean_gru"],
            "targets": {"train_step_ratio": "<= 3 on CPU"}}


def describe(r: dict) -> str:
    s = r["train_step_seconds"]
    return "\n".join([
        f"Sentence-pair GRU models, batch {r['batch']}, {r['dtype']}, {r['device']} (medians of interleaved repeats)",
        f"  train step, fully Euclidean GRU  : {s['euclidean_gru'] * 1e3:8.1f} ms",
        f"  train step, fully hyperbolic GRU : {s['hyperbolic_gru'] * 1e3:8.1f} ms  (recurrence step compiled)",
        f"  ... the same, eager              : {s['hyperbolic_gru_eager'] * 1e3:8.1f} ms",
        f"  ratio hyperbolic / Euclidean     : {r['train_step_ratio']:8.2f}   (target <= 3 on CPU)",
        f"  ratio eager hyperbolic / Eucl.   : {r['eager_train_step_ratio']:8.2f}",
    ])
