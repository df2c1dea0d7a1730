"""PHYDI's claim checker on synthetic curves: each cell's ordering against the paper's ordering of the
same cell, the tie rule, M1 at X % on a hand-made curve, and the Fig. 4 checks."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from noneuclid.report import phydi
from noneuclid.report.estimates import Estimate, compare, estimate


def _curves(*seeds: list[float]) -> pd.DataFrame:
    """epoch (from 1) x seed of validation accuracy."""
    return pd.DataFrame({s: pd.Series(c, index=range(1, len(c) + 1)) for s, c in enumerate(seeds)})


def _shifted(start: float, *offsets: float, epochs: int = 8, step: float = 0.1) -> pd.DataFrame:
    """One rising curve per seed: start + offset + step * (epoch - 1), capped at 0.95."""
    return _curves(*[[min(0.95, start + o + step * e) for e in range(epochs)] for o in offsets])


def test_threshold_metric_on_a_hand_made_curve():
    curve = pd.Series([0.20, 0.41, 0.55, 0.50, 0.62, 0.81], index=range(1, 7))
    assert phydi.epochs_to(curve, 0.55) == 3  # the first epoch at or above, not the last crossing
    assert phydi.epochs_to(curve, 0.80) == 6
    assert phydi.epochs_to(curve, 0.90) == math.inf
    assert phydi.epochs_to(pd.Series([300.0, 190.0, 210.0], index=[1, 2, 3]), 200, above=False) == 2
    assert phydi.auc(curve) == pytest.approx(sum(curve) / 6)
    # X = 0.9 x the lowest best accuracy of any run of the cell (0.62 here), rounded down to a percent
    x = phydi.threshold_x({"standard": _curves([0.3, 0.7]), "phydi": _curves([0.1, 0.62], [0.4, 0.9])})
    assert x == 0.55


def test_ties_follow_the_standard_errors():
    a, b = Estimate(4.5, 0.5, 3), Estimate(3.75, 0.48, 3)
    assert compare(a, b) == "worse" and compare(b, a) == "better"  # 0.75 > hypot(0.5, 0.48)
    assert compare(Estimate(6.0, 0.58, 3), Estimate(6.0, 0.0, 3)) == "tie"
    assert compare(Estimate(math.inf, 0, 3), Estimate(math.inf, 0, 3)) == "tie"
    assert compare(Estimate(5, 0, 3), Estimate(math.inf, 0, 3)) == "better"
    assert estimate([1.0, 2.0, 3.0]) == Estimate(2.0, pytest.approx(1 / math.sqrt(3)), 3)
    assert phydi.ordering({"standard": a, "wkp": Estimate(5.0, 0.67, 3), "phydi": b}) == "PHYDI < standard ≈ WKP"
    # ties that do not chain: the paper's PHResNet50, n = 4 (PHYDI 7.00 ± 1.15 ≈ standard 8.33 ± 0.88 ≈ WKP
    # 9.33 ± 0.88, but 2.33 apart from WKP is more than hypot(1.15, 0.88) = 1.45)
    paper50 = {"standard": Estimate(8.33, 0.88, 3), "wkp": Estimate(9.33, 0.88, 3), "phydi": Estimate(7.00, 1.15, 3)}
    assert phydi.ordering(paper50) == "PHYDI ≈ standard ≈ WKP (PHYDI < WKP)"


def _verdicts(claims: list[dict]) -> dict[str, str]:
    return {c["metric"].split(" ")[0]: c["verdict"] for c in claims}


def test_standard_fastest_as_in_the_paper_agrees():
    """PHResNet18, n = 4: the paper has standard fastest (3.75 vs PHYDI 4.50 vs WKP 5.67); so do we."""
    paper = phydi.PAPER_TABLE1[(18, 4)]
    cell = {"standard": _shifted(0.50, 0.20, 0.21, 0.19), "phydi": _shifted(0.50, 0.10, 0.11, 0.09),
            "wkp": _shifted(0.50, 0.0, 0.01, -0.01)}
    x = phydi.threshold_x(cell)
    claims = phydi.resnet_claims(cell, paper, x)
    verdicts = _verdicts(claims)
    assert verdicts["M1"] == "agrees" and verdicts["AUC"] == "agrees"
    assert claims[0]["paper"] == "standard < PHYDI < WKP" and claims[0]["ours"] == "standard < PHYDI < WKP"


def test_phydi_behind_where_the_paper_has_it_ahead_disagrees():
    """PHResNet152, n = 4: the paper has PHYDI far ahead; curves with PHYDI behind disagree, and a
    tie within the seeds' spread is not read as agreement either."""
    paper = phydi.PAPER_TABLE1[(152, 4)]
    behind = {"standard": _shifted(0.3, 0.10, 0.11, 0.09, epochs=5), "wkp": _shifted(0.3, 0.10, 0.12, 0.08, epochs=5),
              "phydi": _shifted(0.3, 0.0, 0.01, -0.01, epochs=5)}
    claims = phydi.resnet_claims(behind, paper, phydi.threshold_x(behind))
    assert all(v.startswith("disagrees") for v in _verdicts(claims).values())
    assert claims[0]["metric"].endswith("% (80 % out of reach)")  # the curves stop below 80 %: M1 at X % instead
    tie = {init: _shifted(0.3, 0.0, 0.2, -0.2, epochs=5) for init in phydi.INITS}
    assert _verdicts(phydi.resnet_claims(tie, paper, phydi.threshold_x(tie)))["M1"] == \
        "disagrees (ours: tie, paper: better)"


def test_one_seed_or_a_missing_init_is_not_testable():
    paper = phydi.PAPER_TABLE1[(50, 4)]
    one_seed = {init: _shifted(0.3, 0.0) for init in phydi.INITS}
    claims = phydi.resnet_claims(one_seed, paper, 0.5)
    assert all(c["verdict"].startswith("not testable at this scale (fewer than 2 finished seeds") for c in claims)
    missing = {"standard": _shifted(0.3, 0, 0.1), "phydi": _shifted(0.3, 0, 0.1)}
    assert phydi.resnet_claims(missing, paper, 0.5)[0]["verdict"] == \
        "not testable at this scale (no finished runs of WKP)"


def test_resnet_tables_have_seeds_and_paper_columns():
    cells = {(18, 4): {"standard": _shifted(0.5, 0.2, 0.21), "wkp": _shifted(0.5, 0, 0.01),
                       "phydi": _shifted(0.5, 0.1, 0.11)}}
    numbers, claims = phydi.resnet_tables(cells, ["model.depth", "model.n"], phydi.PAPER_TABLE1)
    assert list(numbers.seeds) == [2, 2, 2] and list(numbers.model) == ["PHResNet18", "+ WKP", "+ PHYDI"]
    assert numbers["M1 (paper)"].tolist() == ["3.75 ± 0.48", "5.67 ± 0.67", "4.50 ± 0.50"]
    assert {"M1 (ours)", "M1 at X % (ours)", "X %", "AUC % (ours)", "M2 (ours)", "M2 (paper)"} <= set(numbers)
    assert set(claims.depth) == {18} and len(claims) == 3 and set(claims.seeds) == {2}


def _lm(*best: float, epochs: int = 4) -> tuple[pd.DataFrame, dict]:
    """Perplexity curves falling to `best` (one per seed), none diverged."""
    return _curves(*[[b * (1 + 0.5 * (epochs - 1 - e)) for e in range(epochs)] for b in best]), {}


def test_fig4_claims_per_depth():
    unigram = {4: 300.0}
    cells = {(4, 2): {"pre": _lm(100, 102, 98), "post": _lm(150, 152, 148), "phydi": _lm(130, 131, 129)},
             (4, 48): {"pre": _lm(160, 162, 158), "post": (_curves([900.0], [800.0], [700.0]), {0: True, 1: True, 2: True}),
                       "phydi": _lm(120, 121, 119)}}
    claims = phydi.fig4_claims(cells, unigram).set_index("claim")
    assert set(claims.seeds) == {3}
    assert claims.at["PreNorm best (small encoders)", "verdict"] == "agrees"
    assert claims.at["PHYDI best (deepest stack)", "verdict"] == "agrees"
    assert claims.at["PostNorm worse with depth", "verdict"] == "agrees"  # diverged at 48
    one_deep = {**cells, (4, 48): {**cells[(4, 48)], "post": _lm(400)}}  # one seed at 48: no spread
    verdict = phydi.fig4_claims(one_deep, unigram).set_index("claim").at["PostNorm worse with depth", "verdict"]
    assert verdict.startswith("not testable at this scale (fewer than 2 finished seeds of PostNorm at the deepest")
    # the same cells at the unigram baseline: not testable
    stuck = {(4, 2): {m: _lm(290, 291, 289) for m in ("pre", "post", "phydi")}}
    verdict = phydi.fig4_claims(stuck, unigram).set_index("claim").at["PreNorm best (small encoders)", "verdict"]
    assert verdict.startswith("not testable at this scale (best ppl 289 is not below 0.8 x the unigram 300")
    rows = phydi.fig4_rows(cells, unigram)
    post48 = rows[(rows.depth == 48) & (rows.norm == "post")].iloc[0]
    assert post48["best val ppl (ours)"] == "diverged" and post48["diverged"] == 3
    assert set(rows.seeds) == {3} and rows["T"].iloc[0] == pytest.approx(200 * 300 / phydi.PAPER_UNIGRAM_PERPLEXITY, abs=0.05)


def test_digest_groups_the_checks_by_outcome_in_the_papers_terms():
    table = pd.DataFrame([
        {"depth": 152, "n": 4, "seeds": 3, "metric": "AUC", "paper": "PHYDI < WKP ≈ standard",
         "ours": "PHYDI < standard ≈ WKP", "verdict": "agrees"},
        {"depth": 18, "n": 4, "lr": 0.1, "seeds": 3, "metric": "M2", "paper": "standard 1, WKP 2", "ours": "standard never, WKP 3",
         "verdict": "disagrees (ours: never, paper: epoch 1)"}])
    fig = pd.DataFrame([{"n": 4, "claim": "PHYDI best (deepest stack)", "depth": 48, "seeds": 1, "metric": "",
                         "ours": "", "verdict": "not testable at this scale (fewer than 2 finished seeds of PHYDI)"}])
    text = "\n".join(phydi.digest([("Table 1", table), ("Fig. 4", fig)]))
    agrees, disagrees, untestable = text.split("**")[1::2]
    assert agrees.endswith(": 1 check.") and disagrees.endswith(": 1 check.") and untestable.endswith(": 1 check.")
    assert "- Table 1, PHResNet152, n = 4, AUC: ours PHYDI < standard ≈ WKP; paper PHYDI < WKP ≈ standard" in text
    assert "- Fig. 4, n = 4, depth 48, PHYDI best (deepest stack) (fewer than 2 finished seeds of PHYDI)" in text
    assert "- Table 1, PHResNet18 (lr 0.1), n = 4, M2: ours standard never, WKP 3; paper standard 1, WKP 2" in text
    assert phydi.not_run({(d, 4): {} for d in (18, 50, 152)}, phydi.PAPER_TABLE1) == (
        "n = 2: PHResNet18, PHResNet50, PHResNet152; n = 3: PHResNet18, PHResNet50, PHResNet152 (6 of the paper's 9 cells)")
    ran = {(18, 4, 0.1): {}, (50, 4, 0.01): {}, (18, 2, 0.1): {}, (50, 2, 0.01): {}, (18, 3, 0.1): {}}
    assert phydi.not_run(ran, phydi.PAPER_TABLE2) == "n = 3: PHResNet50 (lr 0.01) (1 of the paper's 6 cells)"


def test_fig4_counts_epochs_to_the_profiles_reachable_threshold(tmp_path):
    """report.fig4_threshold x U: where the paper's scaled T is out of reach, epochs to T_r are counted."""
    unigram = {2: 300.0, 4: 300.0}
    cells = {(n, 2): {"pre": _lm(100, 102, 98), "post": _lm(150, 152, 148)} for n in (2, 4)}
    rows = phydi.fig4_rows(cells, unigram, ratio=0.6)
    assert set(rows["T_r"]) == {180.0} and set(rows["reached T_r"]) == {"3/3"}
    assert set(rows["epochs to ppl <= T (ours)"]) == {"not reached"}  # T = 200 x 300 / 804 = 75
    assert set(rows.n) == {2, 4}
    assert "T_r" not in phydi.fig4_rows(cells, unigram)
    runs = pd.DataFrame({"cfg.report.fig4_threshold": [0.6, 0.6]})
    assert phydi.threshold_ratio(runs) == 0.6 and phydi.threshold_ratio(pd.DataFrame({"x": [1]})) is None
    phydi.fig4(rows, tmp_path / "fig4")
    assert (tmp_path / "fig4.png").exists()
