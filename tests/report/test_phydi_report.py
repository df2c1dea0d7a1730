"""PHYDI's claim checks on synthetic curves: Tables 1-2, each cell judged by the claims engine in the
direction of the paper's numbers; the tie rule, M1 at X % on a hand-made curve, PHYDI's lead over
depth, and Fig. 4's claims, all judged by the one claims engine."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from noneuclid.claims import engine
from noneuclid.claims.estimates import Estimate, compare, estimate
from noneuclid.figures import phydi as figures_phydi
from noneuclid.report import (
    phydi,
    phydi_fig4,
    phydi_fig4_claims,
    phydi_resnet,
    phydi_resnet_claims as judged,
    table_engine,
)
from noneuclid.runs import curves, phydi as runs_phydi


def _curves(*seeds: list[float]) -> pd.DataFrame:
    """epoch (from 1) x seed of validation accuracy."""
    return pd.DataFrame({s: pd.Series(c, index=range(1, len(c) + 1)) for s, c in enumerate(seeds)})


def _runs(cells: dict, table: str = "table1", images: float = math.nan) -> pd.DataFrame:
    """The scored runs of Table 1 or 2's cells ((depth, n[, lr]) -> init -> curves), one row per seed, each
    trained on `images` per epoch (NaN: all of CIFAR-10)."""
    keys = [f"cfg.{k}" for k in phydi_resnet.TABLES[table]]
    runs = pd.DataFrame(
        [
            {**dict(zip(keys, key)), "cfg.model.init": init, "cfg.seed": s, "curve": c[s].dropna()}
            for key, inits in cells.items()
            for init, c in inits.items()
            for s in c
        ],
        columns=[*keys, "cfg.model.init", "cfg.seed", "curve"],
    ).assign(**{"cfg.data.train_size": images})
    return phydi_resnet.scores(runs, table)


def _shifted(start: float, *offsets: float, epochs: int = 8, step: float = 0.1) -> pd.DataFrame:
    """One rising curve per seed: start + offset + step * (epoch - 1), capped at 0.95."""
    return _curves(*[[min(0.95, start + o + step * e) for e in range(epochs)] for o in offsets])


def test_threshold_metric_on_a_hand_made_curve():
    curve = pd.Series([0.20, 0.41, 0.55, 0.50, 0.62, 0.81], index=range(1, 7))
    assert curves.epochs_to(curve, 0.55) == 3  # the first epoch at or above, not the last crossing
    assert curves.epochs_to(curve, 0.80) == 6
    assert curves.epochs_to(curve, 0.90) == math.inf
    assert curves.epochs_to(pd.Series([300.0, 190.0, 210.0], index=[1, 2, 3]), 200, above=False) == 2
    assert phydi_resnet.auc(curve) == pytest.approx(sum(curve) / 6)
    # X = 0.9 x the lowest best accuracy of any run of the cell (0.62 here), rounded down to a percent
    x = phydi_resnet.threshold_x(
        _runs({(18, 4): {"standard": _curves([0.3, 0.7]), "phydi": _curves([0.1, 0.62], [0.4, 0.9])}})
    )
    assert x == 0.55


def test_ties_follow_the_standard_errors():
    a, b = Estimate(4.5, 0.5, 3), Estimate(3.75, 0.48, 3)
    assert compare(a, b) == "worse" and compare(b, a) == "better"  # 0.75 > hypot(0.5, 0.48)
    assert compare(Estimate(6.0, 0.58, 3), Estimate(6.0, 0.0, 3)) == "tie"
    assert compare(Estimate(math.inf, 0, 3), Estimate(math.inf, 0, 3)) == "tie"
    assert compare(Estimate(5, 0, 3), Estimate(math.inf, 0, 3)) == "better"
    assert estimate([1.0, 2.0, 3.0]) == Estimate(2.0, pytest.approx(1 / math.sqrt(3)), 3)


def _verdicts(claims) -> dict[tuple[str, str], str]:
    """(metric, the init PHYDI is compared with) -> verdict."""
    return {(c.claim.split("_")[1], "wkp" if "WKP" in c.cell else "standard"): c.verdict for c in claims}


def test_standard_fastest_as_in_the_paper_contradicts_the_sentence():
    """PHResNet18, n = 4: the paper's table has standard fastest (3.75 vs PHYDI 4.50 vs WKP 5.67), and so do
    our curves (M1 2, 3 and 4 epochs on every one of 4 seeds, the fewest from which an order without spread
    decides, the areas in the same order): the sentence, PHYDI faster in every test, is contradicted against
    standard and reproduced against WKP. M2 reads the accuracy at the paper's M2 epoch: PHYDI is behind
    standard at epoch 1 and ahead of WKP at epoch 2."""
    cell = {
        "standard": _shifted(0.50, 0.21, 0.22, 0.23, 0.24),
        "phydi": _shifted(0.50, 0.11, 0.12, 0.13, 0.14),
        "wkp": _shifted(0.50, 0.01, 0.02, 0.03, 0.04),
    }
    claims = judged.resnet_claims(_runs({(18, 4): cell}), "table1")
    assert _verdicts(claims) == {
        ("m1", "standard"): "contradicts",
        ("m1", "wkp"): "reproduces",
        ("auc", "standard"): "contradicts",
        ("auc", "wkp"): "reproduces",
        ("m2", "standard"): "contradicts",
        ("m2", "wkp"): "reproduces",
    }
    m1 = {c.cell: c for c in claims if c.claim == "table1_m1"}
    standard, wkp = m1["PHResNet18, n = 4, vs standard"], m1["PHResNet18, n = 4, vs WKP"]
    assert (standard.arm_a, standard.arm_b, standard.mean_a, standard.mean_b) == ("phydi", "standard", 3, 2)
    assert (wkp.arm_a, wkp.arm_b, wkp.mean_a, wkp.mean_b) == ("phydi", "wkp", 3, 4)
    assert (standard.paper_a, standard.paper_b, standard.label, standard.level) == (4.50, 3.75, "m1 at 80 %", 80.0)


def test_phydi_behind_where_the_paper_has_it_ahead_contradicts():
    """PHResNet152, n = 4: the paper has PHYDI far ahead; curves with PHYDI behind contradict it, and a
    tie within the seeds' spread is not read as agreement either (4 seeds: M1 is the same on each)."""
    behind = {
        "standard": _shifted(0.3, 0.20, 0.21, 0.19, 0.2, epochs=5),
        "wkp": _shifted(0.3, 0.20, 0.22, 0.18, 0.2, epochs=5),
        "phydi": _shifted(0.3, 0.0, 0.01, -0.01, 0.0, epochs=5),
    }
    claims = judged.resnet_claims(_runs({(152, 4): behind}), "table1")
    assert len(claims) == 6 and all(c.verdict == "contradicts" for c in claims)
    assert claims[0].label == "m1 at 62 % (80 % out of reach)"  # the curves stop below 80 %: M1 at X % instead
    tie = {init: _shifted(0.3, 0.0, 0.2, -0.2, epochs=5) for init in phydi_resnet.INITS}
    for c in judged.resnet_claims(_runs({(152, 4): tie}), "table1"):
        assert c.verdict == "inconclusive" and c.difference == 0  # only the test against delta could decide
        assert 4 < c.seeds_to_decide < math.inf


def test_one_seed_a_missing_init_or_a_short_run_is_not_testable():
    one_seed = {init: _shifted(0.3, 0.0) for init in phydi_resnet.INITS}
    claims = judged.resnet_claims(_runs({(50, 4): one_seed}), "table1")
    assert all(c.verdict == "not testable here" for c in claims)
    assert claims[0].reason == "fewer than 2 seeds of phydi, standard: no interval"
    missing = {"standard": _shifted(0.3, 0, 0.1), "phydi": _shifted(0.3, 0, 0.1)}
    verdicts = {c.cell: c for c in judged.resnet_claims(_runs({(50, 4): missing}), "table1")}
    no_wkp = verdicts["PHResNet50, n = 4, vs WKP"]
    assert no_wkp.reason == "no finished runs of WKP" and (no_wkp.n_a, no_wkp.n_b) == (2, 0)
    assert verdicts["PHResNet50, n = 4, vs standard"].verdict != "not testable here"
    short = {init: _shifted(0.3, 0.0, 0.1, epochs=1) for init in phydi_resnet.INITS}  # the paper's M2 here: epoch 2
    m2 = [c for c in judged.resnet_claims(_runs({(50, 4): short}), "table1") if c.claim == "table1_m2"]
    assert {c.reason for c in m2} == {judged.M2_BEYOND} and {c.level for c in m2} == {2}  # 100,000 images
    assert judged.resnet_claims(_runs({(34, 4): one_seed}), "table1") == []  # no such cell in the paper: no claim


def test_m2_is_read_after_the_paper_s_training_images():
    """On a tenth of CIFAR-10 per epoch, the paper's M2 epoch 1 is our epoch 10 and epoch 2 our 20: the
    first is read there (PHResNet18, n = 3, vs WKP: M2 1), the second is beyond ten epochs."""
    cell = {
        "standard": _shifted(0.2, 0.0, 0.01, epochs=10, step=0.01),
        "wkp": _shifted(0.2, 0.0, 0.01, epochs=10, step=0.01),
        "phydi": _shifted(0.2, 0.1, 0.11, epochs=10, step=0.01),
    }
    claims = judged.resnet_claims(_runs({(18, 3): cell}, images=5000), "table1")
    m2 = {c.cell: c for c in claims if c.claim == "table1_m2"}
    wkp, standard = m2["PHResNet18, n = 3, vs WKP"], m2["PHResNet18, n = 3, vs standard"]
    assert (wkp.verdict, wkp.label, wkp.level, wkp.mean_a) == (
        "reproduces",
        "accuracy at epoch 10",
        10,
        pytest.approx(39.5),
    )  # 30 + 9 and 31 + 9
    assert standard.verdict == "not testable here" and standard.reason == judged.M2_BEYOND and standard.level == 20


def test_resnet_tables_have_seeds_and_paper_columns():
    cells = {
        (18, 4): {
            "standard": _shifted(0.5, 0.2, 0.21),
            "wkp": _shifted(0.5, 0, 0.01),
            "phydi": _shifted(0.5, 0.1, 0.11),
        }
    }
    numbers = phydi_resnet.numbers(_runs(cells), "table1")
    shown = table_engine.displayed("phydi", "resnet", numbers, level=phydi_resnet.M1_LEVEL)
    claims = judged.resnet_claims(_runs(cells), "table1")
    assert list(numbers.seeds) == [2, 2, 2] and list(numbers.model) == ["PHResNet18", "+ WKP", "+ PHYDI"]
    assert numbers.paper_m1_mean.tolist() == [3.75, 5.67, 4.5] and numbers.paper_m1_se.tolist() == [0.48, 0.67, 0.5]
    assert numbers.m2.isna().tolist() == [False, False, True]  # PHYDI has no M2 against itself
    assert shown["M1 (paper)"].tolist() == ["3.75 ± 0.48", "5.67 ± 0.67", "4.50 ± 0.50"]
    assert list(shown.columns[:3]) == ["depth", "n", "model"] and shown["M2 (ours)"].iloc[-1] == "-"
    assert {"M1 (ours)", "M1 at X % (ours)", "X %", "AUC % (ours)", "M2 (ours)", "M2 (paper)", "reached 80 %"} <= set(
        shown
    )
    assert shown["M1 (ours)"].tolist() == ["2.50 ± 0.50", "4.00 ± 0.00", "3.00 ± 0.00"]
    assert shown["M2 (ours)"].tolist() == ["never", "1", "-"]  # PHYDI never ahead of standard, ahead of WKP at once
    assert [c.claim for c in claims] == ["table1_m1"] * 2 + ["table1_auc"] * 2 + ["table1_m2"] * 2
    assert {c.cell for c in claims} == {"PHResNet18, n = 4, vs standard", "PHResNet18, n = 4, vs WKP"}
    assert {(c.n_a, c.n_b) for c in claims} == {(2, 2)}
    runs2 = _runs({(50, 3, 0.01): cells[(18, 4)]}, "table2")
    table2, numbers2 = judged.resnet_claims(runs2, "table2"), phydi_resnet.numbers(runs2, "table2")
    assert list(table_engine.displayed("phydi", "resnet", numbers2, level="80 %").columns[:4]) == [
        "depth",
        "n",
        "lr",
        "model",
    ]  # Table 2's cells have an lr
    assert table2[0].cell == "PHResNet50, n = 3, lr 0.01, vs standard" and table2[0].relation == "better"


def _lm(*best: float, epochs: int = 4, settled: bool = False) -> tuple[pd.DataFrame, dict]:
    """Perplexity curves falling to `best` (one per seed) at their last epoch, or with `settled` one epoch
    before it (the last 1 % above), none diverged."""
    tail = [[b * 1.01] if settled else [] for b in best]
    return (
        _curves(*[[b * (1 + 0.5 * (epochs - 1 - e)) for e in range(epochs)] + t for b, t in zip(best, tail)]),
        dict.fromkeys(range(len(best)), False),
    )


def _lm_runs(cells: dict) -> pd.DataFrame:
    """The runs of Fig. 4's cells ((n, depth) -> norm -> (perplexity curves, seed -> diverged)), one row per seed."""
    return pd.DataFrame(
        [
            {
                "cfg.model.n": n,
                "cfg.model.depth": depth,
                "cfg.model.norm": norm,
                "cfg.seed": s,
                "diverged": diverged[s],
                "curve": curves[s].dropna(),
            }
            for (n, depth), norms in cells.items()
            for norm, (curves, diverged) in norms.items()
            for s in curves
        ],
        columns=runs_phydi.NO_RUNS.columns,
    )


def _fig4(verdicts) -> dict[tuple[str, str], engine.Verdict]:
    return {(v.claim, v.cell): v for v in verdicts}


def test_fig4_claims_are_judged_by_the_engine():
    """Every Fig. 4 cell of claims/phydi.yaml gets one of the engine's verdicts from per-seed values;
    a PostNorm that never diverges does not 'agree' that PostNorm diverges with depth."""
    unigram = {4: 300.0}
    diverged = (_curves([900.0], [800.0], [700.0]), {0: True, 1: True, 2: True})
    cells = {
        (4, 2): {"pre": _lm(100, 102, 98), "post": _lm(150, 152, 148), "phydi": _lm(130, 131, 129)},
        (4, 48): {"pre": _lm(160, 162, 158), "post": diverged, "phydi": _lm(120, 121, 119)},
    }
    v = _fig4(phydi_fig4_claims.fig4_verdicts(_lm_runs(cells), unigram, ratio=0.6))
    assert {x.claim for x in v.values()} == {c.id for c in runs_phydi.CLAIMS.claims if c.id.startswith("fig4_")}
    assert set(x.verdict for x in v.values()) <= set(engine.VERDICTS)
    # 3 of 3 PostNorm seeds diverged at 48 layers, none at 2: the paper's side, not decided by 3 seeds
    diverges = v[("fig4_postnorm_diverges_with_depth", "n = 4, PostNorm, 2 vs 48 layers")]
    assert (diverges.verdict, diverges.mean_a, diverges.mean_b, diverges.seeds_to_decide) == (
        engine.CONSISTENT,
        0,
        1,
        4,
    )
    assert v[("fig4_prenorm_stabler", "n = 4, 48 layers")].verdict == engine.CONSISTENT
    # epochs to T_r = 0.6 x 300 = 180: PreNorm 3 (its curve 250, 200, 150, 100), PostNorm 4, in every seed
    shallow = v[("fig4_prenorm_best_shallow", "n = 4, 2 layers, vs PostNorm")]
    assert (shallow.mean_a, shallow.mean_b, shallow.metric, shallow.label, shallow.level) == (
        3.0,
        4.0,
        "epochs_to_ppl",
        "epochs_to_ppl at ppl <= T_r = 180",
        180,
    )
    deep = v[("fig4_phydi_best_deep", "n = 4, 48 layers, vs PostNorm")]
    assert deep.verdict == engine.NOT_TESTABLE and deep.reason.startswith(
        "runs of PostNorm at n = 4, 48 layers did not reach"
    )
    robust = v[("fig4_phydi_robust_deep", "n = 4, 48 layers")]  # where PostNorm fails, the failure shares compare
    assert (robust.verdict, robust.mean_a, robust.mean_b) == (engine.CONSISTENT, 0, 1)
    assert "no finished runs of PostNorm at n = 4, 24 layers" in v[("fig4_prenorm_stabler", "n = 4, 24 layers")].reason
    assert v[("fig4_prenorm_stabler", "n = 2, 24 layers")].verdict == engine.NOT_TESTABLE  # no n = 2 runs
    calm = {**cells, (4, 48): {**cells[(4, 48)], "post": _lm(150, 152, 148)}}  # at ppl <= 180 in every seed
    assert (
        _fig4(phydi_fig4_claims.fig4_verdicts(_lm_runs(calm), unigram, 0.6))[
            ("fig4_postnorm_diverges_with_depth", "n = 4, PostNorm, 2 vs 48 layers")
        ].verdict
        == engine.INCONCLUSIVE
    )
    # no NaN, but no progress past the unigram perplexity (best >= 0.95 x 300 = 285): stuck, so failed
    stuck = _fig4(
        phydi_fig4_claims.fig4_verdicts(
            _lm_runs({**cells, (4, 48): {**cells[(4, 48)], "post": _lm(400, 410, 390)}}), unigram, 0.6
        )
    )
    failed = stuck[("fig4_postnorm_diverges_with_depth", "n = 4, PostNorm, 2 vs 48 layers")]
    assert (failed.verdict, failed.mean_b, failed.label) == (
        engine.CONSISTENT,
        1,
        "failed (diverged, or best ppl >= 285)",
    )
    # above T_r = 180 at the last epoch but past the unigram regime: slow, not failed
    slow = _fig4(
        phydi_fig4_claims.fig4_verdicts(
            _lm_runs({**cells, (4, 48): {**cells[(4, 48)], "post": _lm(200, 210, 190)}}), unigram, 0.6
        )
    )
    assert slow[("fig4_postnorm_diverges_with_depth", "n = 4, PostNorm, 2 vs 48 layers")].mean_b == 0
    # best validation perplexity ranks runs whose curves have stopped improving; a diverged arm has none
    descending = v[("fig4_prenorm_best_shallow_ppl", "n = 4, 2 layers, vs PostNorm")]
    assert descending.verdict == engine.NOT_TESTABLE and "still descending at their last epoch" in descending.reason
    settled = {
        (4, 2): {
            norm: _lm(*best, settled=True)
            for norm, best in (("pre", (100, 102, 98)), ("post", (150, 152, 148)), ("phydi", (130, 131, 129)))
        }
    }
    best = _fig4(phydi_fig4_claims.fig4_verdicts(_lm_runs(settled), unigram, 0.6))[
        ("fig4_prenorm_best_shallow_ppl", "n = 4, 2 layers, vs PostNorm")
    ]
    assert (best.verdict, best.mean_a, best.mean_b, best.metric) == (engine.REPRODUCES, 100, 150, "best_ppl")
    assert (
        "runs of PostNorm at n = 4, 48 layers diverged"
        in v[("fig4_phydi_best_deep_ppl", "n = 4, 48 layers, vs PostNorm")].reason
    )
    lead = _fig4(phydi_fig4_claims.fig4_verdicts(_lm_runs(cells), unigram))[
        ("fig4_phydi_lead_grows_with_depth", "n = 4, 48 vs 2 layers")
    ]
    assert lead.label.startswith("phydi_lead at ppl <= T = ")  # no profile threshold: the paper's scaled T
    rows = table_engine.displayed("phydi", "fig4", phydi_fig4.fig4_rows(_lm_runs(cells), unigram))
    post48 = rows[(rows.depth == "48") & (rows.norm == "post")].iloc[0]
    assert post48["best val ppl (ours)"] == "diverged" and post48["diverged"] == "3" and post48["stuck"] == "0"
    assert set(rows.seeds) == {"3"} and float(rows["T"].iloc[0]) == pytest.approx(
        200 * 300 / runs_phydi.NUMBERS["paper_unigram_perplexity"], abs=0.05
    )


def test_epochs_to_a_threshold_every_run_reaches_at_once_cannot_order_the_arms():
    """Every run of both arms at ppl <= T_r at epoch 1 (the metric's floor): not testable, not a tie."""
    cells = {(4, 2): {"pre": _lm(100, 102, 98), "post": _lm(150, 152, 148), "phydi": _lm(100, 101, 99)}}
    v = _fig4(
        phydi_fig4_claims.fig4_verdicts(_lm_runs(cells), {4: 300.0}, ratio=0.9)
    )  # T_r = 270: epoch 1 at 250 (pre, PHYDI), 375 (post)
    floor = v[("fig4_prenorm_best_shallow", "n = 4, 2 layers, vs PHYDI")]
    assert floor.verdict == engine.NOT_TESTABLE and "at its first evaluation" in floor.reason
    assert v[("fig4_prenorm_best_shallow", "n = 4, 2 layers, vs PostNorm")].verdict != engine.NOT_TESTABLE


def test_a_run_that_diverged_before_its_first_evaluation_counts():
    """A run that diverged in epoch 1 has no curve rows: it is still one seed, diverged, of its cell."""
    runs = pd.DataFrame(
        {
            "run": ["a", "b", "c"],
            "status": ["done", "done", "diverged"],
            "cfg.seed": [0, 1, 2],
            "cfg.model.n": 4,
            "cfg.model.depth": 48,
            "cfg.model.norm": "post",
            "cfg.data.vocab_size": 2000,
            "cfg.data.train_tokens": 1000,
            "cfg.data.eval_tokens": 1000,
        }
    )
    curves = pd.DataFrame(
        {"run": ["a", "b"], "epoch": [1, 1], "val_perplexity": [300.0, 310.0], "val_unigram_perplexity": [400.0, 400.0]}
    )
    lm, _ = runs_phydi.lm_runs(runs, curves)
    assert list(lm["cfg.seed"]) == [0, 1, 2] and lm.curve.iloc[2].empty and list(lm.diverged) == [False, False, True]
    scores = phydi_fig4.scores(lm, {4: 400.0}, ratio=350 / 400)  # threshold 350
    post48 = {"model.n": 4, "model.depth": 48, "model.norm": "post"}
    assert phydi_fig4_claims._values("failed", scores, post48) == [0.0, 0.0, 1.0]
    assert phydi_fig4_claims._values("epochs_to_ppl", scores, post48).startswith("runs of PostNorm at")
    assert list(phydi_fig4.per_run(lm, {4: 305.0}, {4: 400.0}).end) == ["reached", "slow", "diverged"]
    assert list(phydi_fig4.per_run(lm, {4: 305.0}, {4: 320.0}).end) == [
        "reached",
        "stuck",
        "diverged",
    ]  # 310 >= 0.95 x 320


def test_phydis_lead_over_depth_per_n():
    """table1_lead_grows_with_depth: standard's M1 minus PHYDI's per seed, PHResNet152 against 18."""
    fast, slow = _shifted(0.5, 0.3, 0.31, 0.29, 0.3), _shifted(0.2, 0.0, 0.01, -0.01, 0.0)  # M1 alike on 4 seeds
    cells = {(18, 4): {"standard": fast, "phydi": fast}, (152, 4): {"standard": slow, "phydi": fast}}
    v = {x.cell: x for x in judged.lead_verdicts(_runs(cells))}
    assert v["n = 4, PHResNet152 vs PHResNet18"].verdict == engine.REPRODUCES
    assert v["n = 4, PHResNet152 vs PHResNet18"].mean_b == 0.0
    # both depths at one level: the lower of the two cells' (80 % reached in PHResNet18, not in 152)
    x = phydi_resnet.threshold_x(_runs({(152, 4): cells[(152, 4)]}))
    assert v["n = 4, PHResNet152 vs PHResNet18"].label == f"m1_lead at {round(100 * x)} %"
    assert v["n = 2, PHResNet152 vs PHResNet18"].reason == (
        "no finished runs of standard, PHYDI in PHResNet152, n = 2; "
        "no finished runs of standard, PHYDI in PHResNet18, n = 2"
    )


def test_the_papers_cells_without_runs_are_named_by_n():
    assert phydi_resnet.not_run({(d, 4): {} for d in (18, 50, 152)}, phydi_resnet.PAPER["table1"]) == (
        "n = 2: PHResNet18, PHResNet50, PHResNet152; "
        "n = 3: PHResNet18, PHResNet50, PHResNet152 (6 of the paper's 9 cells)"
    )
    ran = {(18, 4, 0.1): {}, (50, 4, 0.01): {}, (18, 2, 0.1): {}, (50, 2, 0.01): {}, (18, 3, 0.1): {}}
    assert (
        phydi_resnet.not_run(ran, phydi_resnet.PAPER["table2"])
        == "n = 3: PHResNet50 (lr 0.01) (1 of the paper's 6 cells)"
    )


def test_fig4_counts_epochs_to_the_profiles_reachable_threshold(tmp_path):
    """report.fig4_threshold x U: where the paper's scaled T is out of reach, epochs to T_r are counted."""
    unigram = {2: 300.0, 4: 300.0}
    cells = {(n, 2): {"pre": _lm(100, 102, 98), "post": _lm(150, 152, 148)} for n in (2, 4)}
    rows = phydi_fig4.fig4_rows(_lm_runs(cells), unigram, ratio=0.6)
    shown = table_engine.displayed("phydi", "fig4", rows)
    assert set(rows["T_r"]) == {180.0} and set(shown["reached T_r"]) == {"3/3"}
    assert set(shown["epochs to ppl <= T (ours)"]) == {"not reached"}  # T = 200 x 300 / 804 = 75
    assert set(rows.n) == {2, 4}
    assert "T_r" not in table_engine.displayed("phydi", "fig4", phydi_fig4.fig4_rows(_lm_runs(cells), unigram))
    runs = pd.DataFrame({"cfg.report.fig4_threshold": [0.6, 0.6]})
    assert phydi_fig4.threshold_ratio(runs) == 0.6 and phydi_fig4.threshold_ratio(pd.DataFrame({"x": [1]})) is None
    figures_phydi.fig4(rows, tmp_path / "fig4")
    assert (tmp_path / "fig4.png").exists()


def test_speed_table_gives_images_per_second_per_depth_n_and_threads():
    """The median over runs of each run's median epoch time, a row per torch thread count (a run's time at 2
    threads is not mixed with those at 1); the whole training split where data.train_size is null."""
    runs = pd.DataFrame(
        {
            "status": ["done", "done", "done", "done", "failed"],
            "cfg.model.depth": [18, 18, 18, 50, 50],
            "cfg.model.n": [2, 2, 2, 4, 4],
            "cfg.data.train_size": [5000, 5000, 5000, float("nan"), 5000],
            "env.torch_threads": [1, 1, 2, 2, 1],
            "median_seconds_per_epoch": [10.0, 30.0, 5.0, 100.0, 1.0],
        }
    )
    speed = phydi.speed(runs)
    assert list(speed.model) == ["PHResNet18", "PHResNet18", "PHResNet50"] and list(speed.runs) == [2, 1, 1]
    assert list(speed.images_per_second) == [250.0, 1000.0, 500.0] and list(speed.threads) == [1, 2, 2]


def test_without_runs_every_fig4_claim_is_still_listed_not_testable():
    verdicts = phydi_fig4_claims.fig4_verdicts(runs_phydi.NO_RUNS, {})
    assert len(verdicts) == sum(len(c.cells) for c in runs_phydi.CLAIMS.claims if c.id.startswith("fig4_"))
    assert {v.verdict for v in verdicts} == {engine.NOT_TESTABLE}
    assert all(v.reason.startswith("no finished runs of ") for v in verdicts)


def test_compute_sums_training_time_per_sweep_model_and_n():
    """Hours in all and the median minutes per run, finished runs only, named as the paper names them."""
    runs = pd.DataFrame(
        {
            "status": ["done", "done", "running", "done"],
            "cfg.experiment_name": ["phydi/table1"] * 3 + ["phydi/fig4"],
            "cfg.model.name": ["phresnet"] * 3 + ["phtransformer"],
            "cfg.model.depth": [50, 50, 50, 48],
            "cfg.model.n": [2, 2, 2, 4],
            "train_seconds": [1800.0, 3600.0, 99.0, 600.0],
        }
    )
    table = phydi.compute(runs)
    assert table.to_dict("records") == [
        {
            "experiment": "phydi/fig4",
            "model": "PHTransformer48",
            "n": 4,
            "runs": 1,
            "train_hours": 600 / 3600,
            "minutes_per_run": 10.0,
        },
        {
            "experiment": "phydi/table1",
            "model": "PHResNet50",
            "n": 2,
            "runs": 2,
            "train_hours": 1.5,
            "minutes_per_run": 45.0,
        },
    ]


def test_the_numbers_the_metrics_use_are_claims_phydi_yaml_s_each_with_its_source(tmp_path):
    """claims/phydi.yaml's reference numbers (name -> {value, source}) are read as name -> value; an entry without
    its source is refused."""
    from noneuclid.claims import data

    assert runs_phydi.NUMBERS["m1_accuracy"] == 0.8 and runs_phydi.NUMBERS["fig4_perplexity"] == 200
    path = tmp_path / "toy.yaml"
    claims = (
        "claims: [{id: c, kind: ours, claim: x, source: s, metric: m, unit: u, better: lower, relation: better, "
        "delta: 1, delta_source: ours, cells: [{cell: a, arms: [a, b]}]}]"
    )
    path.write_text(
        f"paper: toy\ntitle: t\nreference: {{numbers: {{level: {{value: 0.5, source: ours}}}}}}\n{claims}\n"
    )
    assert data.load_file(path).numbers == {"level": 0.5}
    path.write_text(f"paper: toy\ntitle: t\nreference: {{numbers: {{level: {{value: 0.5}}}}}}\n{claims}\n")
    with pytest.raises(data.ClaimsError, match="numbers, level: missing key 'source'"):
        data.load_file(path)
