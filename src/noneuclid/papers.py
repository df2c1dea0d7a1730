"""The papers of the suite, in the order they run: what each one has, in one place.

For each paper: its title; its experiments (configs/experiment/<paper>/<name>.yaml); its report
modules (each with make(runs_dir, profile, out) writing results/<paper>/<profile>/; the first also
writes summary.md and takes the paper's CLI options); the tables and figures they write (file
stems under results/<paper>/<profile>/); and the Markdown pages that results/index.html shows (stems:
the first module's summary, then the pages of the others, which summary.md leaves out).
report/html.py, report/__main__.py and reproduce.py read it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Paper:
    title: str
    experiments: tuple[str, ...]
    reports: tuple[str, ...]
    tables: tuple[str, ...]
    figures: tuple[str, ...]
    pages: tuple[str, ...] = ("summary",)


PAPERS = {
    "brantner": Paper("Brantner, Adam on manifolds", ("fig3a", "fig3b", "table2", "section"),
                      ("noneuclid.report.brantner",), ("table2", "accuracy", "authors_networks", "curves", "section"),
                      ("fig3a", "fig3b")),
    "hnn": Paper("Ganea et al., Hyperbolic Neural Networks", ("table1", "init", "budget", "long", "gru_long", "order",
                                                                 "carry_gaps", "seeds", "same_init", "compensated", "poincare",
                                                                 "table2"),
                 ("noneuclid.report.hnn", "noneuclid.report.hnn_table2"),
                 ("table1", "init", "budget", "long", "gru_long", "carry_gaps", "order", "table2", "table2_embeddings"),
                 ("fig_prefix10_dev", "fig_table2_boundaries"), ("summary", "table2")),
    "phydi": Paper("PHYDI, hypercomplex networks initialised as identity", ("table1", "table2", "fig4"),
                   ("noneuclid.report.phydi",), ("table1", "table2", "fig4"), ("fig4",)),
}
