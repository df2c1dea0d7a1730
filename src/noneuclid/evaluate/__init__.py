"""Evaluations that run trained models and write their table (CSV + Markdown) into results/: the
authors' Brantner networks scored by our pipeline (`authors_networks`); the orthonormality drift of
our Stiefel optimizers over the paper's number of steps (`drift`, at the gradient norms of
`gradient_norms`); the four Brantner runs' seconds per step on the CPU, timed interleaved (`timing`);
scikit-learn's logistic regression on the points and splits of Table 2's Euclidean classifiers
(`table2_reference`); the data of Table 2's boundary figure, its classifiers' logits on a grid over the 2-D ball
(`table2_boundaries`); the claims engine judged on simulated cells of known truth (`engine_validation`);
the float32 error of every hyperbolic operation, ours and geoopt's on the ball and the hyperboloid,
against the distance from the origin (`float32_atlas`, into results/geometry/).
The reports only read these files, as they read run data; this package may
import models, tasks and optimizers, the reports may not.

    python -m noneuclid.evaluate authors-networks [--data DIR] [--profile cpu] [--train-images N]
    python -m noneuclid.evaluate drift [--data DIR] [--profile cpu] [--steps N] [--drift-seeds geodesic=0-2 cayley=0]
    python -m noneuclid.evaluate timing [--profile cpu] [--repeats 5] [--steps N] [--threads 1] [overrides ...]
    python -m noneuclid.evaluate table2-reference [--runs runs] [--profile cpu] [--out DIR]
    python -m noneuclid.evaluate table2-boundaries [--runs runs] [--profile cpu] [--out DIR]
    python -m noneuclid.evaluate engine-validation [--out results/engine]
    python -m noneuclid.evaluate float32-atlas [--out results/geometry]
"""
