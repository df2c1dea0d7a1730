"""The toy paper (tests/pipelines/test_toy_paper.py's fourth paper, added by docs/running.md's recipe): a
two-layer network against a linear model on XOR blobs, one experiment, one table, one claim."""

from noneuclid.papers import Paper, Report, Stage

PAPER = Paper(
    title="Toy, a hidden layer on XOR blobs",
    experiments=("table1",),
    reports=(Report("toy.report", options=False),),
    stages=(Stage("train Table 1", ("experiment=toy/table1",), needs=("toy_blobs",)),),
)
