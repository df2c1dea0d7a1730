"""The authors' four trained Brantner networks (GeometricMachineLearning.jl, 500 epochs) scored by our
MNIST pipeline: authors_networks.csv, .md and .tex in results/brantner/<profile>/, which the Brantner report
includes."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from noneuclid import tables
from noneuclid.claims import data as claims_data
from noneuclid.data import mnist
from noneuclid.data.brantner_gml import authors_metadata
from noneuclid.geometry import stiefel
from noneuclid.models.vit import load_gml
from noneuclid.nn import StiefelParameter
from noneuclid.train.tasks import Classification

CLAIMS = claims_data.load("brantner")
SETUPS, AUTHORS = CLAIMS.labels["setups"], CLAIMS.references["authors_run"].values  # setup -> name; its run
ONE_CLASS = CLAIMS.numbers["one_class_share"]  # a network that predicts one class above this share


DRIFT = "max abs(YᵀY - I)"


def authors_networks(reference: Path, data_dir: Path, train_images: int | None = None) -> pd.DataFrame:
    """Their four trained networks, loaded with models.vit.load_gml and scored by our MNIST task:
    test accuracy, training loss over the whole training set (||Ŷ - Y||_F / ||Y||_F), against the test
    accuracy of the authors' run and the last value of their training curve; max |YᵀY - I| of their Stiefel
    projections (computed in float64 from the stored float32 values). train_images: the first that many
    training images for the training loss (None: all 60,000)."""
    meta = authors_metadata(reference, AUTHORS)
    task = Classification(
        mnist.load(data_dir, "train", 7, train_images),
        {"test": mnist.load(data_dir, "test", 7)},
        batch_size=2048,
        loss="relative_frobenius",
        seed=0,
    )
    rows, count = [], len(task.splits["train"][1])
    for setup, ref in AUTHORS.items():
        model = load_gml(reference / f"mnist_nn{ref['gml']}.h5")
        test, train = task.evaluate(model, "test"), task.evaluate(model, "train")
        projections = [p for p in model.parameters() if isinstance(p, StiefelParameter)]
        drift = max((float(stiefel.orthonormality_error(p.detach().double())) for p in projections), default=None)
        rows.append(
            {
                "network (500 epochs)": SETUPS[setup],
                "file": f"mnist_nn{ref['gml']}.h5",
                "test accuracy % (noneuclid)": round(100 * test["test_accuracy"], 2),
                "authors' run test accuracy %": round(100 * meta[setup]["accuracy"], 2),
                f"training loss (noneuclid, {count} images)": round(train["train_loss"], 4),
                "their curve, epoch 500": round(float(meta[setup]["curve"][-1]), 4),
                "predicts one class": (
                    f"yes, class {test['test_top_class']}" if test["test_top_class_share"] > ONE_CLASS else "no"
                ),
                DRIFT: drift,
            }
        )
    return pd.DataFrame(rows)


def make(reference: Path, data_dir: Path, out: Path, train_images: int | None = None) -> list[Path]:
    """Write authors_networks.csv, .md and .tex ("the authors' networks evaluated by noneuclid")."""
    if not (reference / "mnist_metadata.h5").is_file():
        raise FileNotFoundError(
            f"no authors' networks in {reference}: it needs mnist_nn1..4.h5 and "
            f"mnist_metadata.h5 (see ../shared/data/reference/brantner_gml/README.md)"
        )
    table = authors_networks(reference, data_dir, train_images)
    caption = (
        f"Made by `python -m noneuclid.evaluate authors-networks` from `{reference.name}/` "
        "(GeometricMachineLearning.jl's four 500-epoch networks, loaded with `noneuclid.models.vit.load_gml`) "
        "and our MNIST pipeline (`noneuclid.data.mnist`, `noneuclid.train.tasks`)."
    )
    return tables.write(
        out,
        "authors_networks",
        table,
        tables.shown(table, {DRIFT: "{:.1e}"}),
        "The authors' networks evaluated by noneuclid",
        caption,
    )
