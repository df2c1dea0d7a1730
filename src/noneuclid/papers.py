"""The papers of the suite, in the order they run: what each one has, in one place.

For each paper: its title; its experiments (configs/experiment/<paper>/<name>.yaml); its reports (each
a module whose make(runs_dir, profile, out, ...) writes results/<paper>/<profile>/, the Markdown page
of it that results/index.html shows and the docs link, and whether it takes the report command's
--seeds and training overrides); the stages of its reproduction, in order (reproduce.py adds the paper's
report and the HTML page); and the tables and figures a report draws only when it has what they need
(the report command names those it leaves out). report/html.py, report/docs.py, report/__main__.py
and reproduce.py read it. A paper kept outside the package joins them through NONEUCLID_PAPERS (extensions.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from noneuclid import extensions


@dataclass(frozen=True)
class Stage:
    """One step of `make reproduce-<paper>`: `python -m <args>`, where a "train" stage's args follow
    the training command (`noneuclid.train -m profile=... <overrides>`) and {runs}, {profile}, {data}
    and {generated} are filled in."""

    name: str
    args: tuple[str, ...]
    kind: str = "train"  # train | data | report
    needs: tuple[str, ...] = ()  # datasets; wordnet is not needed at the smoke profile (a hand-made tree)
    when: str | None = None  # a condition of reproduce._conditions: unmet, the stage is skipped or left out
    per_core: bool = False  # cpu profile: one process per core (joblib launcher, one torch thread each)
    ablation: bool = False  # beyond the paper's tables: left out at the smoke profile (tests cover it)
    smoke_args: tuple[str, ...] = ()  # added at the smoke profile: a smaller case of a step that has no profile


def _train(name: str, experiment: str, *args: str, **kw) -> Stage:
    return Stage(name, (f"experiment={experiment}", *args), **kw)


@dataclass(frozen=True)
class Extra:
    """A table or figure (file stem in results/<paper>/<profile>/) that the report module `report`
    draws only when it has `needs` ({profile}, {runs} and {data} are filled in). evaluated: written by
    `python -m noneuclid.evaluate`, and shown by the report where it is."""

    stem: str
    report: str
    needs: str
    evaluated: bool = False


def _runs_of(report: str, *experiments: str) -> tuple[Extra, ...]:
    """Each experiment's table or figure (stem: its name), drawn from its finished runs."""
    return tuple(
        Extra(
            e.split("/")[-1],
            f"noneuclid.report.{report}",
            f"finished runs of `python -m noneuclid.train -m experiment={e} profile={{profile}}`",
        )
        for e in experiments
    )


@dataclass(frozen=True)
class Report:
    """A report of a paper: its module (noneuclid.report.<name>), the page it writes (file stem of the
    Markdown page in results/<paper>/<profile>/), whether its make takes the command's options
    (seeds=, overrides=) and whether it reads ablations no stage trains (without their runs, the paper's report
    command says so and leaves its results; named as the part, it is an error)."""

    module: str
    page: str = "summary"
    options: bool = True
    ablation: bool = False


@dataclass(frozen=True)
class Paper:
    title: str
    experiments: tuple[str, ...]
    reports: tuple[Report, ...]
    stages: tuple[Stage, ...] = ()
    extras: tuple[Extra, ...] = ()
    summarized: tuple[str, ...] = ()  # experiments whose per-epoch curves runs.csv summarizes (train_loss_rebound)
    thin_curves: tuple[str, ...] = ("train_loss",)  # and the columns their curves keep, at evaluated epochs only

    @property
    def pages(self) -> tuple[str, ...]:
        """The reports' pages, in the order of the reports."""
        return tuple(r.page for r in self.reports)


BRANTNER = (
    _train("train Fig. 3 / Table 2", "brantner/table2", needs=("mnist",)),
    _train("train the section experiment", "brantner/section", needs=("mnist",)),
    Stage(
        "evaluate the authors' networks",
        ("noneuclid.evaluate", "authors-networks", "--data", "{data}", "--profile", "{profile}"),
        kind="report",
        needs=("mnist",),
        when="authors_networks",
        smoke_args=("--train-images", "4096"),
    ),
    Stage(
        "evaluate the orthonormality drift over the paper's steps",
        ("noneuclid.evaluate", "drift", "--data", "{data}", "--profile", "{profile}"),
        kind="report",
        needs=("mnist",),
        when="authors_networks",
        smoke_args=("--steps", "20"),
    ),
    Stage(
        "time the four runs on the CPU, interleaved",
        ("noneuclid.evaluate", "timing", "--profile", "{profile}", "paths.data_dir={data}"),
        kind="report",
        needs=("mnist",),
        smoke_args=("--repeats", "2", "--steps", "1"),
    ),
    Stage(
        "time the four runs on the GPU, interleaved",
        (
            "noneuclid.evaluate",
            "timing",
            "--device",
            "cuda",
            "--profile",
            "{profile}",
            "--repeats",
            "10",
            "--steps",
            "10",
            "paths.data_dir={data}",
        ),
        kind="report",
        needs=("mnist",),
        when="gpu",
        smoke_args=("--repeats", "2", "--steps", "1"),
    ),
)
HNN = (
    _train("train Table 1", "hnn/table1"),
    _train("train Table 1 on SNLI", "hnn/table1", "stack.data=[snli]", when="snli_train"),
    Stage(
        "prepare WordNet 3.0",
        ("noneuclid.data", "fetch", "wordnet", "--data-dir", "{generated}"),
        kind="data",
        when="wordnet_to_prepare",
    ),
    _train("train Table 2 embeddings", "hnn/poincare", needs=("wordnet",)),
    _train("train Table 2", "hnn/table2", needs=("wordnet",)),
    Stage(
        "write the data of Table 2's boundary figure",
        ("noneuclid.evaluate", "table2-boundaries", "--runs", "{runs}", "--profile", "{profile}"),
        kind="report",
        needs=("wordnet",),
    ),
    _train("train the burn-in ablation", "hnn/burnin", needs=("wordnet",), ablation=True),
)
PHYDI = (
    Stage(
        "write CIFAR-10 batches from the mirror",
        ("noneuclid.data", "fetch", "cifar10", "--data-dir", "{generated}", "--mirror", "{data}"),
        kind="data",
        when="cifar10_to_write",
    ),
    *(
        _train(f"train {name}", f"phydi/{name}", needs=(data,), per_core=True)
        for name, data in [("table1", "cifar10"), ("table2", "cifar10"), ("fig4", "wikitext2")]
    ),
)


BRANTNER_EXTRAS = (
    Extra(
        "authors_curves",
        "noneuclid.report.brantner",
        "the authors' training curves, {data}/reference/brantner_gml/mnist_metadata.h5 (data root: NONEUCLID_DATA_DIR)",
    ),
    Extra(
        "authors_networks",
        "noneuclid.report.brantner",
        "`python -m noneuclid.evaluate authors-networks --data "
        "{data} --profile {profile}` first (the authors' networks in {data}/reference/brantner_gml)",
        evaluated=True,
    ),
    *_runs_of("brantner", "brantner/section"),
    *(
        Extra(
            stem,
            "noneuclid.report.brantner",
            "`python -m noneuclid.evaluate drift --data {data} --profile "
            "{profile}` first (the authors' networks in {data}/reference/brantner_gml)",
        )
        for stem in ("drift", "drift_summary")
    ),
    Extra(
        "timing_summary",
        "noneuclid.report.brantner",
        "`python -m noneuclid.evaluate timing --profile {profile} paths.data_dir={data}` first",
    ),
    Extra(
        "timing_gpu_summary",
        "noneuclid.report.brantner",
        "`python -m noneuclid.evaluate timing --device cuda "
        "--profile {profile} paths.data_dir={data}` first, on a GPU machine",
    ),
)
HNN_EXTRAS = (
    Extra(
        "table2_burnin",
        "noneuclid.report.hnn_table2",
        "finished runs of `python -m noneuclid.train -m experiment=hnn/burnin profile={profile}`",
    ),
    Extra(
        "fig_table2_boundaries",
        "noneuclid.report.hnn_table2",
        "its data: `python -m noneuclid.evaluate table2-boundaries --runs {runs} --profile {profile}` first (from the "
        "run folders of the 2-D embedding, experiment=hnn/poincare, and its seed-0 classifiers, experiment=hnn/table2)",
    ),
)
PHYDI_EXTRAS = (
    *_runs_of("phydi", "phydi/table1", "phydi/table2", "phydi/fig4"),
    Extra("speed", "noneuclid.report.phydi", "finished runs of experiment=phydi/table1 or phydi/table2"),
)


PAPERS = {
    "brantner": Paper(
        title="Brantner, Adam on manifolds",
        experiments=("fig3a", "fig3b", "table2", "section"),
        reports=(Report("noneuclid.report.brantner"),),
        stages=BRANTNER,
        extras=BRANTNER_EXTRAS,
    ),
    "hnn": Paper(
        title="Ganea et al., Hyperbolic Neural Networks",
        experiments=(
            "table1",
            "init",
            "budget",
            "long",
            "gru_long",
            "order",
            "carry_gaps",
            "seeds",
            "same_init",
            "compensated",
            "charts",
            "poincare",
            "burnin",
            "table2",
        ),
        reports=(
            Report("noneuclid.report.hnn"),
            Report("noneuclid.report.hnn_table2", page="table2", options=False),
            Report("noneuclid.report.hnn_charts", page="charts", options=False, ablation=True),
            Report("noneuclid.report.hnn_table2_charts", page="table2_charts", options=False, ablation=True),
        ),
        stages=HNN,
        extras=HNN_EXTRAS,
        summarized=("table2",),
        thin_curves=("train_loss", "test_f1"),
    ),
    "phydi": Paper(
        title="PHYDI, hypercomplex networks initialised as identity",
        experiments=("table1", "table2", "fig4"),
        reports=(Report("noneuclid.report.phydi"),),
        stages=PHYDI,
        extras=PHYDI_EXTRAS,
    ),
}


def _kept_outside() -> dict[str, Paper]:
    """The papers kept outside the package (NONEUCLID_PAPERS: extensions.py), none named as one of the suite's."""
    added = extensions.declared("PAPER")
    if set(added) & set(PAPERS):
        raise ValueError(
            f"{extensions.VARIABLE} names a paper folder {sorted(set(added) & set(PAPERS))} as one of the suite's "
            "papers: rename the folder (and its paper)"
        )
    return added


PAPERS.update(_kept_outside())  # after the suite's
