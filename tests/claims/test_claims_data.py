"""The claims files: every one loads, each paper has the claims it must, the paper's numbers agree with
the report modules' copies and with their written-out sources, each PHYDI cell's direction is the
paper's own ordering; and a broken file is an error that names the file, the claim, the cell and the key."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
import yaml

from noneuclid.claims import data

REQUIRED = {
    "brantner": {
        "stiefel_adam_below_euclidean",
        "stiefel_adam_beats_momentum_and_gd",
        "orthonormality_to_machine_precision",
        "stiefel_epoch_time_on_par_cpu",
        "euclidean_adam_stuck_at_plateau",
        "stiefel_trains_without_normalization",
    },
    "hnn": {
        "table1_hyperbolic_on_par_or_better",
        "prefix_gain_grows_with_tree_likeness",
        "table2_hyperbolic_mlr_outperforms",
        "table2_margin_largest_in_low_dimensions",
    },
    "phydi": {
        "table1_m1",
        "table1_auc",
        "table1_m2",
        "table2_m1",
        "table2_auc",
        "table2_m2",
        "fig4_convergence_depends_on_n",
        "fig4_prenorm_stabler",
        "fig4_postnorm_diverges_with_depth",
        "fig4_phydi_lead_grows_with_depth",
        "fig4_phydi_robust_deep",
        "table1_lead_grows_with_depth",
        "fig4_phydi_robust_small",
    },
}


@pytest.mark.parametrize("paper", sorted(REQUIRED))
def test_every_claims_file_loads_with_its_claims(paper):
    claims = data.load(paper)
    assert claims.paper == paper and claims.title
    assert REQUIRED[paper] <= {c.id for c in claims.claims}
    for claim in claims.claims:
        assert claim.better in data.BETTER and claim.cells and claim.kind in data.KINDS and claim.delta_source
        for cell in claim.cells:
            assert all(not math.isnan(v) for v in cell.paper.values())
            assert cell.relation in data.RELATIONS and cell.delta > 0
    assert data.papers() == sorted(REQUIRED)


def test_paper_values_that_are_differences_are_derived_from_the_paper_cells():
    """The paper's M1 leads (PHYDI) and hyperbolic gains (Ganea et al.) are not written again in the claims
    files: the reports derive them from the Table 1 cells, as the paper's printed numbers give them."""
    from noneuclid.report import hnn_claims, phydi_resnet

    leads = data.load("phydi")["table1_lead_grows_with_depth"]
    assert phydi_resnet.paper_leads(leads.cells[0]) == {"depth152": 26.34, "depth18": 0.0}  # n = 2: 32.67 - 6.33
    assert phydi_resnet.paper_leads(leads.cells[2]) == {"depth152": 17.34, "depth18": -0.75}  # n = 4
    assert hnn_claims.paper_gains(["prefix10", "prefix30"], "rnn") == {
        "prefix10": 7.29,
        "prefix30": 6.12,
    }  # 96.91 - 89.62
    assert hnn_claims.paper_gains(["prefix30", "prefix50"], "gru") == {"prefix30": 2.0, "prefix50": 1.83}
    packed = [
        c.paper_source
        for p in data.papers()
        for claim in data.load(p).claims
        for c in claim.cells
        if re.search(r"\d+\.\d+ - \d+\.\d+", c.paper_source or "")
    ]
    assert packed == []


def test_hnn_table1_grid_is_complete_and_the_gains_use_it():
    """The cells of Table 1's claim hold its full grid (every model of each dataset and cell kind, the
    report's Table 1 reads them), each compares the paper's better hyperbolic model of the cell, and the
    gains' paper values are not written again (the report derives them from these cells)."""
    claims = data.load("hnn")
    table1 = claims["table1_hyperbolic_on_par_or_better"]
    names = {f"{d}, {m}" for d in ("SNLI", "PREFIX-10", "PREFIX-30", "PREFIX-50") for m in ("RNN", "GRU")}
    assert {cell.name for cell in table1.cells} == names
    for cell in table1.cells:
        assert set(cell.paper) == {"euclidean", "hyperbolic_eucl_mlr", "hyperbolic"} and cell.paper_source == "Table 1"
        best = max(("hyperbolic", "hyperbolic_eucl_mlr"), key=cell.paper.get)
        assert cell.arms == (best, "euclidean")  # the paper's better hyperbolic model of the cell
    for cell in claims["prefix_gain_grows_with_tree_likeness"].cells:  # derived from those numbers, not copied
        assert not cell.paper and set(cell.arms) <= {"prefix10", "prefix30", "prefix50"}


def test_brantner_cells_hold_the_numbers_of_its_references():
    claims = data.load("brantner")
    authors, table2 = (claims.references[name].values for name in ("authors_run", "table2"))
    for claim_id in ("stiefel_adam_below_euclidean", "stiefel_adam_beats_momentum_and_gd"):
        for cell in claims[claim_id].cells:
            assert cell.paper == {arm: authors[arm]["authors_loss"] for arm in cell.arms}
    for cell in claims["stiefel_epoch_time_on_par_cpu"].cells:
        assert cell.paper == {arm: table2[arm]["cpu_min"] for arm in cell.arms}
    for cell in claims["stiefel_epoch_time_gap_gpu"].cells:
        assert cell.paper == {arm: table2[arm]["gpu_min"] for arm in cell.arms}
    assert claims["euclidean_adam_stuck_at_plateau"].cells[0].bound == claims.numbers["plateau"]


PAPERS = Path(__file__).resolve().parents[3] / "shared" / "papers"


def _paper_rows(text: str, table_head: str) -> list[list[str]]:
    """The rows of the Markdown table after the line `table_head` in a paper text, split into cells."""
    lines = text.split(table_head, 1)[1].splitlines()[2:]
    rows = lines[: next((i for i, line in enumerate(lines) if not line.startswith("|")), len(lines))]
    return [[c.strip() for c in line.strip(" |").split("|")] for line in rows]


@pytest.mark.skipif(not (PAPERS / "phydi_hypercomplex_identity_init.txt").exists(), reason="needs ../shared/papers")
def test_phydi_tables_are_the_papers_text():
    """Tables 1-2 in claims/phydi.yaml (read through report.phydi_resnet.paper_table) are the paper text's rows:
    model, n[, batch, lr], 'M1 mean M1 s.e.', M2 ('-' for PHYDI)."""
    from noneuclid.report.phydi_resnet import PAPER

    text = (PAPERS / "phydi_hypercomplex_identity_init.txt").read_text()
    inits = {"+ WKP": "wkp", "+ PHYDI": "phydi"}
    for head, table in (
        ("| Model | M1 | M2 | |", PAPER["table1"]),
        ("| Model | btc-sz | lr | M1 | M2 | |", PAPER["table2"]),
    ):
        read, depth = {}, None
        for model, n, *rest, m1, m2 in _paper_rows(text, head):
            depth = int(re.search(r"PHResNet(\d+)", model)[1]) if "PHResNet" in model else depth
            key = (depth, int(n)) + ((float(rest[1]),) if rest else ())
            mean, se = map(float, m1.split())
            read.setdefault(key, {})[inits.get(model, "standard")] = (mean, se, None if m2 == "-" else float(m2))
        assert read == table


def test_phydi_cells_test_the_sentence_as_stated():
    """Tables 1-2 ("PHYDI ensures faster convergence in every test we conduct"): every M1 cell PHYDI first,
    better, also where the paper's own M1 has a tie or the other init ahead (its numbers stand beside ours);
    AUC and M2 cells as the M1 cells."""
    claims = data.load("phydi")
    for table in ("table1", "table2"):
        m1, auc, m2 = (claims[f"{table}_{m}"] for m in ("m1", "auc", "m2"))
        assert len(m1.cells) == len(auc.cells) == len(m2.cells)
        for cell, auc_cell, m2_cell in zip(m1.cells, auc.cells, m2.cells):
            assert cell.arms[0] == "phydi" and cell.relation == "better"
            assert (auc_cell.name, auc_cell.arms, auc_cell.relation) == (cell.name, cell.arms, cell.relation)
            assert m2_cell.name == cell.name and m2_cell.arms == cell.arms


DROP = object()  # a key to leave out
GOOD_CELL = {"cell": "x", "arms": ["a", "b"], "paper": {"a": 1.0}, "paper_source": "Table 1"}
LEARNED = {"metric": "test accuracy %", "better": "higher", "within": 10, "source": "ours"}
GOOD_CLAIM = {
    "id": "c",
    "kind": "paper",
    "claim": "a beats b",
    "source": "Table 1",
    "metric": "m",
    "unit": "%",
    "better": "higher",
    "relation": "better",
    "delta": 1.0,
    "delta_source": "ours",
    "cells": [GOOD_CELL],
}


def _write(tmp_path, claim=None, cells=None, name="toy", **top):
    claim = dict(GOOD_CLAIM if claim is None else claim)
    if cells is not None:
        claim["cells"] = cells
    body = {"paper": name, "title": "Toy", "claims": [claim], **top}
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(body))
    return path


def test_a_good_file_loads(tmp_path):
    claims = data.load_file(_write(tmp_path))
    cell = claims["c"].cell("x")
    assert (cell.arms, cell.relation, cell.delta, cell.paper) == (("a", "b"), "better", 1.0, {"a": 1.0})
    on_par = data.load_file(
        _write(
            tmp_path,
            {**GOOD_CLAIM, "relation": "on_par", "delta": 0.5},
            cells=[GOOD_CELL, {**GOOD_CELL, "cell": "y", "relation": "at_least", "delta": 2}],
        )
    )
    assert [(c.relation, c.delta) for c in on_par["c"].cells] == [("on_par", 0.5), ("at_least", 2.0)]
    assert (claims["c"].kind, claims["c"].delta_source) == ("paper", "ours")
    assert (
        not cell.paired and data.load_file(_write(tmp_path, cells=[{**GOOD_CELL, "paired": True}]))["c"].cells[0].paired
    )
    with pytest.raises(KeyError, match="no claim 'd'"):
        claims["d"]
    assert claims["c"].learned is None
    gains = data.load_file(_write(tmp_path, {**GOOD_CLAIM, "learned": LEARNED}))["c"]
    assert gains.learned == data.Learned("test accuracy %", "higher", 10.0, "ours")
    assert (cell.where, cell.select) == ({}, {})  # a claim without a run selector selects nothing
    selected = data.load_file(
        _write(
            tmp_path,
            {
                **GOOD_CLAIM,
                "where": {"model.name": "m"},
                "arm_key": "model.init",
                "arm_where": {"b": {"model.depth": 2}},
            },
            cells=[{**GOOD_CELL, "where": {"model.n": 3}}],
        )
    )["c"].cells[0]
    assert selected.where == {"model.name": "m", "model.n": 3}
    assert selected.select == {
        "a": {"model.name": "m", "model.n": 3, "model.init": "a"},
        "b": {"model.name": "m", "model.n": 3, "model.depth": 2},
    }


@pytest.mark.parametrize(
    "claim, cells, message",
    [
        ({"unit": DROP}, None, "claim 'c': missing key 'unit'"),
        ({"unit": " "}, None, "claim 'c': key 'unit' must be a non-empty string"),
        ({"better": "more"}, None, "claim 'c': key 'better' must be one of"),
        ({"delta": DROP}, None, "claim 'c': missing key 'delta'"),
        ({"delta": 0}, None, "claim 'c': key 'delta' must be > 0"),
        ({"delta_source": DROP}, None, "claim 'c': missing key 'delta_source'"),
        ({"kind": "theirs"}, None, "claim 'c': key 'kind' must be one of"),
        ({"relation": "equal"}, None, "claim 'c': key 'relation' must be one of"),
        ({}, [{**GOOD_CELL, "delta": -1}], "claim 'c', cell 'x': key 'delta' must be > 0"),
        ({"tolerance": 1}, None, "claim 'c': unknown key 'tolerance'"),
        ({"extra": 1}, None, "claim 'c': unknown key 'extra'"),
        ({}, [{"arms": ["a", "b"]}], "claim 'c', cell '?': missing key 'cell'"),
        ({}, [{"cell": "x", "arms": ["a", "b"], "paper": {"a": 1}}], "cell 'x': missing key 'paper_source'"),
        (
            {},
            [{"cell": "x", "arms": ["a", "b"], "paper": {"a": "1.0"}, "paper_source": "T"}],
            "key 'a' must be a finite",
        ),
        ({}, [{"cell": "x", "arms": ["a"]}], "one arm and key 'bound'"),
        ({}, [{"cell": "x", "arms": ["a"], "bound": 1.0}], "cell 'x': missing key 'bound_source'"),
        ({}, [{"cell": "x", "arms": ["a", "a"]}], "one or two distinct names"),
        ({}, [GOOD_CELL, GOOD_CELL], "cell 'x' appears more than once"),
        ({}, [], "key 'cells' must be a non-empty list"),
        ({}, [{**GOOD_CELL, "paired": "yes"}], "cell 'x': key 'paired' is true or false"),
        ({"learned": {**LEARNED, "within": -1}}, None, "claim 'c', learned: key 'within' must be >= 0"),
        ({"learned": {**LEARNED, "better": "up"}}, None, "claim 'c', learned: key 'better' must be one of"),
        ({"learned": {k: v for k, v in LEARNED.items() if k != "source"}}, None, "learned: missing key 'source'"),
        ({"learned": {**LEARNED, "points": 3}}, None, "claim 'c', learned: unknown key 'points'"),
        (
            {"arm_key": "model.init"},
            [{**GOOD_CELL, "where": {"model.n": [2]}}],
            "claim 'c', cell 'x': key 'where' must map config keys to values",
        ),
        (
            {"where": {"model.n": 2}},
            [{**GOOD_CELL, "where": {"model.n": 3}}],
            "cell 'x': key 'where' repeats the claim's",
        ),
        ({"arm_where": {"a": {"model.depth": 2}}}, None, "claim 'c', cell 'x': arm 'b' selects no runs"),
        (
            {"arm_key": "model.init", "arm_where": {"z": {}}},
            None,
            "claim 'c': key 'arm_where' names ['z'], an arm of no cell",
        ),
    ],
)
def test_a_broken_claim_names_the_file_the_claim_the_cell_and_the_key(tmp_path, claim, cells, message):
    claim = {k: v for k, v in {**GOOD_CLAIM, **claim}.items() if v is not DROP}
    path = _write(tmp_path, claim, cells)
    with pytest.raises(data.ClaimsError, match=re.escape(message)) as error:
        data.load_file(path)
    assert str(error.value).startswith(str(path))


def test_labels_and_references_load_and_a_broken_one_is_named(tmp_path):
    """A file's reference block: labels (group -> name -> label) and references (published numbers with
    their source), nothing else beside them and numbers."""
    claims = data.load_file(
        _write(
            tmp_path,
            reference={
                "labels": {"models": {"m": "Model M"}},
                "references": {"r": {"source": "their Table 1", "values": {5: {"map": 0.8}}}},
            },
        )
    )
    assert claims.labels == {"models": {"m": "Model M"}}
    assert claims.references["r"] == data.Reference("their Table 1", {5: {"map": 0.8}})
    with pytest.raises(data.ClaimsError, match=r"toy.yaml: reference: labels 'models': key 'm' must be a non-empty"):
        data.load_file(_write(tmp_path, reference={"labels": {"models": {"m": ""}}}))
    with pytest.raises(data.ClaimsError, match=r"toy.yaml: reference, 'r': missing key 'source'"):
        data.load_file(_write(tmp_path, reference={"references": {"r": {"values": {5: 1}}}}))
    with pytest.raises(data.ClaimsError, match=r"toy.yaml: reference: unknown key 'epochs'"):
        data.load_file(_write(tmp_path, reference={"epochs": 500}))
    with pytest.raises(data.ClaimsError, match=r"toy.yaml: reference: key 'references' must map names"):
        data.load_file(_write(tmp_path, reference={"references": [1]}))


def test_a_broken_file_names_itself(tmp_path):
    with pytest.raises(data.ClaimsError, match=r"toy.yaml: key 'paper' is 'other', not the file's name 'toy'"):
        data.load_file(_write(tmp_path, paper="other"))
    with pytest.raises(data.ClaimsError, match=r"toy.yaml: unknown key 'extra'"):
        data.load_file(_write(tmp_path, extra=1))
    (tmp_path / "bad.yaml").write_text("paper: bad\nclaims: [\n")
    with pytest.raises(data.ClaimsError, match=r"bad.yaml: not valid YAML"):
        data.load_file(tmp_path / "bad.yaml")
    (tmp_path / "empty.yaml").write_text("")
    with pytest.raises(data.ClaimsError, match=r"empty.yaml: expected a mapping"):
        data.load_file(tmp_path / "empty.yaml")
    with pytest.raises(FileNotFoundError, match="no claims file"):
        data.load("nonexistent")


@pytest.mark.skipif(
    not (PAPERS / "ganea_hyperbolic_neural_networks_blog.txt").exists(), reason="needs ../shared/papers"
)
def test_hnn_claims_quote_the_papers_text():
    """The words each Ganea et al. claim quotes are the stored paper text's (Table 1's numbers are not in
    that text, a blog post of the paper: test_hnn_table1_grid_is_complete_and_the_gains_use_it checks them
    for completeness and consistency)."""
    text = " ".join((PAPERS / "ganea_hyperbolic_neural_networks_blog.txt").read_text().split())
    quotes = [q for claim in data.load("hnn").claims for q in re.findall(r'"([^"]+)"', claim.text)]
    assert len(quotes) == 4 and all(" ".join(q.split()).strip(" .") in text for q in quotes)
