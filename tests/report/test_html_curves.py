"""results/index.html: its small run plots (a curve longer than the plot is wide draws no more points), each
paper's verdict summary, the claims tables' verdict cells coloured by class, and the committed page built so."""

import re
from pathlib import Path

import pandas as pd

from noneuclid.claims import data as claims_data
from noneuclid.claims.engine import VERDICTS
from noneuclid.papers import PAPERS
from noneuclid.report import html_summary, html_tables
from noneuclid.report.html import STYLE, curve_svg

PAGE = Path(__file__).resolve().parents[2] / "results" / "index.html"


def test_a_long_curve_keeps_one_point_per_two_pixels_and_its_ends():
    points = [(step, float(step % 7)) for step in range(301)]
    svg = curve_svg({"loss": points})
    coords = svg.split('points="')[1].split('"')[0].split()
    assert len(coords) <= 126 and coords[0].startswith("2.0,") and coords[-1].startswith("248.0,")
    assert curve_svg({"loss": points[:50]}).count(",") == 50  # a short curve keeps every point


def test_each_verdict_has_its_class_and_the_style_sheet_colours_it():
    classes = [html_summary.verdict_class(v) for v in VERDICTS]
    assert classes == [
        "verdict-reproduces",
        "verdict-consistent",
        "verdict-inconclusive",
        "verdict-contradicts",
        "verdict-not-testable",
    ]
    assert all(re.search(rf"\.{c} {{ background: #", STYLE.read_text()) for c in classes)


def test_the_summary_counts_the_papers_cells_and_ours_and_links_each_claim(tmp_path):
    rows = [
        ("stiefel_adam_below_euclidean", "paper", "reproduces"),
        ("stiefel_adam_below_euclidean", "paper", "contradicts"),
        ("stiefel_epoch_time_on_par_cpu", "paper", "reproduces"),
        ("random_section_trains_lower", "ours", "not testable here"),
    ]
    pd.DataFrame(rows, columns=["claim", "kind", "verdict"]).assign(
        hardware="CPU (2 cores)", reason=["", "", "", "a precondition <fails>"]
    ).to_csv(tmp_path / "claims.csv", index=False)
    runs = pd.DataFrame({"run": ["a", "b"], "train_seconds": [3600.0, 1800.0]})
    (tmp_path / "bench").mkdir()
    pd.DataFrame(
        {
            "paper": ["brantner", "brantner", "hnn"],
            "device": "cpu",
            "sweep_hours": [10.0, 10.0, 5.0],
            "runs": 3,
            "same_runs_as": ["", "brantner/fig3a", ""],
        }
    ).to_csv(tmp_path / "bench" / "paper_scale_cpu.csv", index=False)
    summary = html_summary.summary("brantner", tmp_path, runs, tmp_path / "bench")
    assert summary.startswith('<div class="summary">')
    assert "our 2 runs trained for 1.5 hours in all (CPU (2 cores);" in summary
    assert "about 10 hours of 3 runs" in summary  # the runs another experiment shares counted once
    assert "(claims: 2, cells: 3)" in summary and "(claims: 1, cells: 1)" in summary
    assert '<span class="verdict verdict-reproduces">2 reproduces</span>' in summary
    assert 'style="flex: 2" title="2 reproduces"' in summary
    assert '<a href="#claim-brantner-stiefel_adam_below_euclidean">' in summary
    sentence = claims_data.load("brantner")["stiefel_epoch_time_on_par_cpu"].text.replace('"', "&quot;")
    assert sentence in summary
    assert summary.index("stiefel_adam_below") < summary.index("stiefel_epoch_time") < summary.index("random_section")
    assert summary.count('<details class="why">') == 1 and "<li>a precondition &lt;fails&gt;</li>" in summary
    assert html_summary.summary("brantner", tmp_path / "none", runs, tmp_path) == ""  # no claims CSV: no summary


def test_claims_tables_move_the_papers_column_beside_ours():
    page = html_tables.to_html(
        "| claim | ours | p | verdict | paper |\n|:--|:--|:--|:--|:--|\n| a | 1 | 0.5 | reproduces | 2 |\n",
        "hnn",
        set(),
    )
    assert re.findall(r"<t[hd][^>]*>([^<]*)</t[hd]>", page) == [
        "claim",
        "ours",
        "paper",
        "p",
        "verdict",
        "a",
        "1",
        "2",
        "0.5",
        "reproduces",
    ]


def test_claims_tables_colour_verdicts_fold_long_reasons_and_anchor_each_claims_first_row():
    long = "not testable here: the precondition fails because every seed of the model diverged"
    text = (
        "| claim | verdict |\n|:--|:--|\n| a | reproduces [rule after runs] |\n| a | inconclusive |\n"
        f"| b | {long} |\n\n| model | verdict |\n|:--|:--|\n| x | reproduces |\n"
    )
    anchored = {"b"}  # b's first row is on an earlier page
    page = html_tables.to_html(text, "hnn", anchored)
    assert '<tr id="claim-hnn-a">' in page and page.count("id=") == 1 and anchored == {"a", "b"}
    assert 'class="verdict-reproduces" style="text-align: left;">reproduces [rule after runs]</td>' in page
    assert 'class="verdict-inconclusive" style="text-align: left;">inconclusive</td>' in page
    assert (
        'class="verdict-not-testable" style="text-align: left;"><details><summary>not testable here</summary>'
        "the precondition fails" in page
    )
    assert '<td style="text-align: left;">reproduces</td>' in page  # a table without a claim column: as it was


def test_the_committed_page_opens_each_paper_with_its_summary_and_styles_every_verdict_class_it_uses():
    page = PAGE.read_text()
    for paper in PAPERS:
        assert re.search(rf'<h2 id="{paper}">[^<]*</h2>\s*<div class="summary">', page), paper
    used = set(re.findall(r"\b(verdict-[a-z-]+)", page))
    assert used == {html_summary.verdict_class(v) for v in VERDICTS}
    assert all(f".{c} {{" in page for c in used)
    assert set(re.findall(r'href="#(claim-[^"]+)"', page)) <= set(re.findall(r'id="(claim-[^"]+)"', page))
    assert page.count("<svg") == page.count('class="curve"') and '<details class="runs">' in page
    assert not re.search(r'(src|href)="(https?:)?//|<link|@import', page)  # it reads nothing from a network
