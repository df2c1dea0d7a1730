"""WordNet noun closure, Poincare embeddings (reconstruction) and Ganea et al.'s Table 2 (smoke)."""

from __future__ import annotations

import itertools
import math
import os
from pathlib import Path

import pandas as pd
import pytest
import torch
from omegaconf import OmegaConf

from noneuclid import optim
from noneuclid.config import compose
from noneuclid.data import files, wordnet
from noneuclid.data.files import DataError
from noneuclid.geometry import poincare as pb
from noneuclid.models.poincare_embedding import PoincareEmbedding
from noneuclid.runs import RunDir
from noneuclid.runs.settings import digest_settings
from noneuclid.train import tasks
from noneuclid.train.loop import train
from noneuclid.train.tasks.hypernymy import Hypernymy
from noneuclid.train.tasks.subtrees import embedding_overrides, f1_score
from noneuclid.train.trainer import plateaued

# A dict folder in WordNet's format: 1 entity <- 2 organism <- 3 animal <- 4 dog; 5 rover is an
# instance (@i) of 4 and has the hypernym 2 too; 6 fido is an instance of 5 (@i @i), 7 pet has the
# hypernym 6 (a path @ then @i, which the closure does not follow). "Dog" has two senses.
DATA_NOUN = """  1 This is a licence header line
00000001 03 n 01 entity 0 000 | the top
00000002 03 n 01 organism 0 001 @ 00000001 n 0000 | living
00000003 05 n 01 animal 0 001 @ 00000002 n 0000 | beast
00000004 05 n 02 Dog 0 domestic_dog 0 001 @ 00000003 n 0000 | barks
00000005 18 n 01 Rover 0 002 @i 00000004 n 0000 @ 00000002 n 0000 | a dog
00000006 18 n 01 Fido 0 001 @i 00000005 n 0000 | another
00000007 05 n 01 dog 0 001 @ 00000006 n 0000 | second sense of dog
"""
INDEX_NOUN = """  1 licence
animal n 1 1 @ 1 0 00000003
dog n 2 1 @ 2 0 00000004 00000007
domestic_dog n 1 1 @ 1 0 00000004
entity n 1 0 1 0 00000001
fido n 1 1 @i 1 0 00000006
organism n 1 1 @ 1 0 00000002
rover n 1 2 @i @ 1 0 00000005
"""


@pytest.fixture
def dict_dir(tmp_path) -> Path:
    (tmp_path / "data.noun").write_text(DATA_NOUN)
    (tmp_path / "index.noun").write_text(INDEX_NOUN)
    return tmp_path


def test_parse_names_and_pointers(dict_dir):
    names, hyper, inst = wordnet.parse_nouns(dict_dir)
    assert names == ["entity.n.01", "organism.n.01", "animal.n.01", "dog.n.01", "rover.n.01", "fido.n.01", "dog.n.02"]
    assert hyper[4] == [1] and inst[4] == [3] and inst[5] == [4] and hyper[6] == [5]


def test_closure_follows_instance_then_hypernym_paths_only(dict_dir):
    names, hyper, inst = wordnet.parse_nouns(dict_dir)
    edges = {(names[u], names[a]) for u, a in wordnet.closure(hyper, inst).tolist()}
    assert {a for u, a in edges if u == "fido.n.01"} == {
        "rover.n.01",
        "dog.n.01",
        "animal.n.01",
        "organism.n.01",
        "entity.n.01",
    }
    assert {a for u, a in edges if u == "dog.n.02"} == {"fido.n.01"}  # @ then @i: not followed
    assert not any(u == a for u, a in edges)


def test_toy_hierarchy_descendants_and_split():
    h = wordnet.toy(depth=3, branching=4)
    assert h.size == 1 + 4 + 16 + 64 and h.names[1:5] == list(wordnet.SUBTREES)
    assert int(h.descendants("animal.n.01").sum()) == 4 + 16
    assert not bool(h.descendants("animal.n.01")[h.names.index("animal.n.01")])
    mammal = h.restricted("mammal.n.01")
    assert mammal.size == 21 and len(mammal.edges) == 4 + 16 * 2
    test = wordnet.split(h.size, seed=3)
    assert int(test.sum()) == round(0.2 * h.size) and torch.equal(test, wordnet.split(h.size, seed=3))


def test_fetch_explains_what_to_install(tmp_path):
    with pytest.raises(DataError, match="apt-get install wordnet-base wordnet-sense-index"):
        wordnet.fetch(tmp_path / "gen", mirror=tmp_path / "nothing")
    with pytest.raises(DataError, match="python -m noneuclid.data fetch wordnet"):
        wordnet.require(tmp_path / "gen")


def test_lexnames_has_45_lines():
    lines = wordnet.lexnames_text().splitlines()
    assert len(lines) == 45 and lines[3] == "03\tnoun.Tops\t1" and lines[44] == "44\tadj.ppl\t3"


@pytest.mark.parametrize("seed", [0, 1])
def test_ranking_key_orders_like_the_distance(seed):
    torch.manual_seed(seed)
    model = PoincareEmbedding(50, 3, init=0.3).double()
    rows = torch.tensor([0, 7, 49])
    d = pb.dist(model.weight[rows][:, None], model.weight[None], 1.0)
    assert torch.equal(model.ranking_key(rows).argsort(1), d.argsort(1))


def _brute_force(points: torch.Tensor, edges: torch.Tensor) -> tuple[float, float]:
    """Mean rank and MAP by the definitions, one node and one ancestor at a time."""
    ranks, aps = [], []
    for u in sorted(set(edges[:, 0].tolist())):
        anc = set(edges[edges[:, 0] == u, 1].tolist())
        d = pb.dist(points[u], points, 1.0).tolist()
        others = [w for w in range(len(points)) if w != u]
        precisions = []
        for v in anc:
            ranks.append(1 + sum(d[w] < d[v] for w in others if w not in anc))
            precisions.append(sum(d[a] <= d[v] for a in anc) / sum(d[w] <= d[v] for w in others))
        aps.append(sum(precisions) / len(precisions))
    return sum(ranks) / len(ranks), sum(aps) / len(aps)


def test_reconstruction_matches_the_definition_in_chunks():
    h = wordnet.toy(depth=3, branching=3)
    model = PoincareEmbedding(h.size, 2, init=0.5).double()
    task = Hypernymy(h.edges, h.size, negatives=5, batch_size=16, seed=0, eval_chunk=7)
    got = task.evaluate(model)
    rank, map_ = _brute_force(model.weight.detach(), h.edges)
    assert got["reconstruction_mean_rank"] == pytest.approx(rank) and got["reconstruction_map"] == pytest.approx(map_)


def test_negatives_are_unrelated_and_batches_repeat():
    h = wordnet.toy(depth=2, branching=3)
    task = Hypernymy(h.edges, h.size, negatives=20, batch_size=8, seed=0)
    related = {(u, a) for u, a in h.edges.tolist()} | {(a, u) for u, a in h.edges.tolist()}
    for (idx, keep, u), (idx2, _, _) in zip(task.batches(1), task.batches(1)):
        assert torch.equal(idx, idx2) and torch.equal(idx[:, 0], u) and bool(keep[:, 0].all())
        for i in range(len(u)):
            for w, k in zip(idx[i, 2:].tolist(), keep[i, 1:].tolist()):
                assert k == ((u[i].item(), w) not in related and w != u[i].item())
                assert w != u[i].item()  # masked draws are replaced by the positive: d(u, u) never computed
    model = PoincareEmbedding(h.size, 2).double()
    loss, total = task.loss(model, next(iter(task.batches(0))))
    loss.backward()
    assert math.isfinite(loss.item()) and torch.isfinite(model.weight.grad.coalesce().values()).all()


def test_batches_drawn_ahead_in_a_second_thread_are_the_same():
    """With two torch threads the next batch is drawn while the current one trains: same batches."""
    h = wordnet.toy(depth=2, branching=3)
    task = Hypernymy(h.edges, h.size, negatives=20, batch_size=8, seed=0, burnin_epochs=1, burnin_negatives=5)
    threads = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        alone = [list(task.batches(epoch)) for epoch in (0, 1)]
        torch.set_num_threads(2)
        ahead = [list(task.batches(epoch)) for epoch in (0, 1)]
        first = next(iter(task.batches(1)))  # a caller that stops early
    finally:
        torch.set_num_threads(threads)
    assert [len(a) for a in alone] == [len(a) for a in ahead] and len(alone[1]) > 1
    for a, b in zip(sum(alone, []), sum(ahead, [])):
        assert all(torch.equal(x, y) for x, y in zip(a, b))
    assert torch.equal(first[0], alone[1][0][0])


def test_rsgd_burn_in_switches_to_the_full_rate():
    p = torch.nn.Parameter(torch.zeros(2))
    cfg = {"name": "rsgd", "lr": 2.0, "burnin_epochs": 2, "burnin_factor": 0.1}
    opt = optim.build(cfg, [("w", p)])
    rates = []
    for _ in range(3):
        rates.append(opt.param_groups[0]["lr"])
        optim.end_epoch(opt, cfg)
    assert rates == [pytest.approx(0.2), pytest.approx(0.2), 2.0]


def test_f1():
    assert f1_score(torch.tensor([1, 1, 0, 0]), torch.tensor([1, 0, 1, 0])) == pytest.approx(0.5)
    assert f1_score(torch.tensor([0, 0]), torch.tensor([0, 0])) == 0.0


def test_smoke_embedding_three_classifiers_and_report(tmp_path, capsys):
    """The smoke profile end to end on the toy tree: embedding, the three classifiers, F1, the boundary figure's
    data (evaluate.table2_boundaries), report."""
    from noneuclid.evaluate import table2_boundaries
    from noneuclid.figures.hnn import GRID, POINTS, WEIGHTS
    from noneuclid.report import hnn_table2

    common = ["profile=smoke", f"paths.runs_dir={tmp_path / 'runs'}", "trainer.progress=false"]
    emb = train(compose(["experiment=hnn/poincare", "model.dim=2", *common]))
    assert emb["epochs"] == 3 and emb["nonfinite_events"] == 0
    f1 = {}
    for geometry in ("hyperbolic", "euclidean", "euclidean_log0"):
        s = train(
            compose(
                [
                    "experiment=hnn/table2",
                    f"model.geometry={geometry}",
                    "data.dim=2",
                    "data.subtree=group.n.01",
                    *common,
                ]
            )
        )
        f1[geometry] = s["final_test_f1"]
    assert all(0.0 <= v <= 1.0 for v in f1.values())
    with pytest.raises(FileNotFoundError, match="experiment=hnn/poincare"):  # no 3-D embedding was trained
        train(compose(["experiment=hnn/table2", "data.dim=3", *common]))
    out = tmp_path / "out"
    hnn_table2.make(tmp_path / "runs", "smoke", out)  # before its data: the figure is not drawn, and it says how
    assert not (out / "fig_table2_boundaries.png").exists()
    assert "python -m noneuclid.evaluate table2-boundaries --profile smoke" in capsys.readouterr().out
    assert table2_boundaries.make(tmp_path / "runs", "smoke", out) == [out / POINTS, out / WEIGHTS, out / GRID]
    written = {p.name for p in hnn_table2.make(tmp_path / "runs", "smoke", out)}
    assert {
        f"{stem}.{ext}" for stem in ("table2_f1", "table2_embeddings", "table2_claims") for ext in ("csv", "md", "tex")
    } | {"table2.md"} <= written
    assert (out / "fig_table2_boundaries.png").is_file() and "not available here" in (out / "table2.md").read_text()
    assert "{" not in (out / "table2.md").read_text().split("## Poincare")[0]  # the settings, formatted
    assert r"\begin{tabular}" in (out / "table2_f1.tex").read_text()
    # from runs.csv, curves.csv.gz and the figure's data alone (no run folders): the same tables and figure
    assert (out / POINTS).is_file() and (out / WEIGHTS).is_file()
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    (out / "fig_table2_boundaries.png").unlink()
    hnn_table2.make(tmp_path / "no-runs", "smoke", out)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_natural_batches_prior_decision_convergence_and_provenance(tmp_path):
    """Natural batches are the training split itself; a balanced model's decision moved to the split's
    prior is scored as test_f1_prior; the chance level of the training loss is the entropy of the batches'
    mix; trainer.converge stops a run whose loss has stopped improving
    (recorded in the summary, with the embedding run the classifier read)."""
    common = ["profile=smoke", f"paths.runs_dir={tmp_path / 'runs'}", "trainer.progress=false"]
    emb = RunDir(compose(["experiment=hnn/poincare", "model.dim=2", *common]))
    train(emb.cfg)
    natural = ["experiment=hnn/table2", "data.dim=2", "data.subtree=group.n.01", "data.natural_mix=true", *common]
    task = tasks.build(compose(natural))
    x, y = task.splits["train"]
    seen = torch.cat([b[1] for b in task.batches(0)])
    assert len(seen) == len(y) and int(seen.sum()) == int(y.sum()) and task.prior_shift == 0.0
    balanced = tasks.build(compose([*natural[:-1], "data.natural_mix=null"]))
    prior = float(y.double().mean())
    assert balanced.prior_shift == pytest.approx(math.log(prior / (1 - prior)))
    assert balanced.provenance["chance_train_loss"] == pytest.approx(math.log(2))  # the loss of a constant 1/2
    assert task.provenance["chance_train_loss"] == pytest.approx(
        -prior * math.log(prior) - (1 - prior) * math.log(1 - prior)
    )
    s = train(compose([*natural, "trainer.epochs=200", "trainer.converge={patience: 2, tol: 0.5, after: 0}"]))
    assert s["converged"] and s["epochs"] == 3 and s["embedding_run"] == emb.name  # 2 epochs within 50 %
    assert {"final_test_f1", "final_test_f1_prior", "chance_train_loss"} <= set(s)


def test_plateaued():
    assert not plateaued([3.0, 2.0], patience=2, tol=0.0)  # nothing before the window yet
    assert plateaued([3.0, 2.0, 2.0, 2.1], patience=2, tol=0.0)
    assert not plateaued([3.0, 2.0, 2.0, 1.9], patience=2, tol=0.0)
    assert plateaued([3.0, 2.0, 2.0, 1.99], patience=2, tol=0.01)  # 0.5 % better: within the tolerance
    assert not plateaued([3.0, 2.0, 2.0, 2.1], patience=2, tol=0.0, after=5)  # not before epoch 5
    assert plateaued([3.0, 2.0, 2.0, 2.1, 2.2], patience=2, tol=0.0, after=5)


def test_an_off_switch_leaves_run_names_as_they_were():
    """trainer.converge and data.natural_mix at null are left out of the settings hash (runs from before
    them keep their names); set, they name other runs."""
    c = OmegaConf.to_container(
        compose(["experiment=hnn/table2", "profile=smoke", "data.natural_mix=null", "trainer.converge=null"]),
        resolve=True,
    )
    without = {
        **c,
        "trainer": {k: v for k, v in c["trainer"].items() if k != "converge"},
        "data": {k: v for k, v in c["data"].items() if k != "natural_mix"},
    }
    assert digest_settings(c, "cpu") == digest_settings(without, "cpu")
    for on in (
        {**c, "trainer": {**c["trainer"], "converge": {"patience": 5, "tol": 1e-4}}},
        {**c, "data": {**c["data"], "natural_mix": True}},
    ):
        assert digest_settings(on, "cpu") != digest_settings(c, "cpu")


def test_paper_profiles_compose():
    cfg = compose(["experiment=hnn/poincare", "profile=paper"])
    assert (cfg.trainer.epochs, cfg.data.batch_size, cfg.optim.lr, cfg.data.negatives) == (1500, 50, 1.0, 50)
    cfg = compose(["experiment=hnn/table2", "profile=paper"])
    assert cfg.data.hierarchy == "wordnet" and cfg.model.dim == cfg.data.dim
    # fixed on the pilot cells, at every profile but smoke
    protocol = {
        "hyperbolic": ((0.1, 0.03, 1.0, None), (3000, 0.99, {"patience": 100, "tol": 1e-4, "after": 1000})),
        "euclidean": ((10.0, 0.01, None, True), (3000, 0.995, {"patience": 100, "tol": 1e-4, "after": 1000})),
        "euclidean_log0": ((0.3, 0.01, None, True), (3000, 0.995, {"patience": 100, "tol": 1e-4, "after": 1000})),
    }
    for profile, (geometry, (steps, budget)) in itertools.product(("cpu", "paper"), protocol.items()):
        cfg = compose(["experiment=hnn/table2", f"profile={profile}", f"model.geometry={geometry}"])
        converge = cfg.trainer.converge and OmegaConf.to_container(cfg.trainer.converge)
        assert cfg.data.natural_mix and (cfg.trainer.epochs, cfg.optim.epoch_lr_factor, converge) == budget
        assert (cfg.optim.lr, cfg.optim.ball_lr, cfg.optim.clip_norm, cfg.model.offsets) == steps
    cfg = compose(["experiment=hnn/poincare", "profile=cpu"])  # the reference's recipe, its MAP rate, fused
    assert (cfg.trainer.epochs, cfg.data.batch_size, cfg.optim.lr, cfg.data.fused_batches) == (1500, 50, 2.0, 200)
    assert (cfg.optim.burnin_epochs, cfg.optim.burnin_factor, cfg.data.burnin_negatives) == (20, 0.1, 5)


def test_a_table2_job_stacks_the_seeds_of_its_cell_in_the_folders_they_have_alone():
    from noneuclid.config import stacked_runs

    for profile, seeds in (("cpu", list(range(10))), ("paper", list(range(10))), ("smoke", [0])):
        overrides = ["experiment=hnn/table2", f"profile={profile}", "data.dim=5", "data.natural_mix=true"]
        cfg = compose(overrides)
        stacked = stacked_runs(overrides, OmegaConf.to_container(cfg.stack), "hnn/table2")
        assert [c.seed for c in stacked] == seeds
        assert [RunDir(c).name for c in stacked] == [RunDir(compose([*overrides, f"seed={s}"])).name for s in seeds]


def _generated_dir() -> Path:
    return Path(os.environ.get("NONEUCLID_GENERATED_DIR", "data/generated"))


@pytest.mark.skipif(
    not (wordnet.DEBIAN_DICT / "data.noun").is_file()
    and not (_generated_dir() / wordnet.FOLDER / "data.noun").is_file(),
    reason="WordNet 3.0 is not installed (apt-get install wordnet-base wordnet-sense-index)",
)
def test_real_noun_closure_sizes():
    gen = _generated_dir()
    try:
        wordnet.require(gen)
    except DataError:
        wordnet.fetch(gen)
    assert files.sha256sum(gen / wordnet.FOLDER / "lexnames") == files.DATASETS["wordnet"].sha256["lexnames"]
    h = wordnet.nouns(gen)
    assert (h.size, len(h.edges)) == (82_115, 743_086)
    sizes = [int(h.descendants(root).sum()) for root in wordnet.SUBTREES]
    assert sizes == [4_016, 8_376, 1_115, 1_181]


def test_reproduce_runs_table2_after_table1(tmp_path):
    from noneuclid import reproduce

    steps = [s.name for s in reproduce.plan(["hnn"], "smoke", tmp_path, tmp_path, tmp_path) if s.paper == "hnn"]
    assert steps.index("train Table 1") < steps.index("train Table 2 embeddings") < steps.index("train Table 2")
    assert steps.index("train Table 2") < steps.index("report")  # `report hnn`: Table 1 and Table 2


def test_paper_registry_names_every_experiment_config():
    from noneuclid.config import CONFIG_DIR
    from noneuclid.papers import PAPERS

    for key, paper in PAPERS.items():
        assert {p.stem for p in (CONFIG_DIR / "experiment" / key).glob("*.yaml")} == set(paper.experiments)


def _with_settings(values: pd.DataFrame) -> pd.DataFrame:
    """Classifier values as table2_runs.f1_values gives them: with the cfg.* columns the claims select by."""
    keys = {"data.subtree": "subtree", "data.dim": "dim", "model.geometry": "geometry", "seed": "seed"}
    return values.assign(**{f"cfg.{key}": values[column] for key, column in keys.items()})


def test_table2_cells_need_a_finished_embedding():
    """Without a finished embedding a dimension's cells are not run in the table and not testable in the
    claims; the others are judged by the claims engine, whatever their embedding's MAP (no level of ours)."""
    from noneuclid.claims import engine
    from noneuclid.report import hnn_table2, hnn_table2_claims, table_engine

    rows = [
        {
            "subtree": s,
            "dim": d,
            "geometry": g,
            "seed": k,
            "f1": f1 + 0.01 * k,
            "train_loss": 0.3,
            "chance_loss": math.log(2),
            "run": f"r{d}{k}{g}",
        }
        for s in wordnet.SUBTREES
        for d in (2, 5)
        for k in (0, 1, 2)
        for g, f1 in (("hyperbolic", 0.9), ("euclidean", 0.8), ("euclidean_log0", 0.7))
    ]
    values = _with_settings(pd.DataFrame(rows))
    emb_map = {2: 0.2, 5: 0.8}
    table = hnn_table2.f1_table(values).set_index(["subtree", "dim", "classifier"])
    first = wordnet.SUBTREES[0]
    assert table.at[(first, 10, "hyperbolic MLR"), "n"] == 0
    cell = table.loc[(first, 5, "hyperbolic MLR")]
    assert (cell.n, cell["mean"], cell.sd) == (3, pytest.approx(91.0), pytest.approx(1.0))

    def shown(values):
        data = hnn_table2.f1_table(values)
        return table_engine.shown("hnn", hnn_table2.F1, data), table_engine.bold("hnn", hnn_table2.F1, data)

    (table, bold), column = shown(values), "hyperbolic MLR (ours)"
    row = table[(table.subtree == first) & (table.dim == 5)].index[0]
    assert table.at[row, column] == "91.00 ± 0.58 (n=3)" and (row, column) in bold
    assert table.at[table[(table.subtree == first) & (table.dim == 10)].index[0], column] == "not run"
    values.loc[(values.subtree == first) & (values.dim == 5) & (values.geometry == "euclidean"), "train_loss"] = [
        0.3,
        0.7,
        0.9,
    ]
    assert shown(values)[0].at[row, "Euclidean MLR (ours)"] == "81.00 ± 0.58 (n=3), 2 not learned"  # >= ln 2
    verdicts = {(v.claim, v.cell): v for v in hnn_table2_claims.verdicts(values, emb_map)}
    assert verdicts[(hnn_table2_claims.OUTPERFORMS, f"{first}, 5-D, vs euclidean")].verdict == engine.REPRODUCES
    assert verdicts[(hnn_table2_claims.OUTPERFORMS, f"{first}, 2-D, vs euclidean")].verdict == engine.REPRODUCES
    low = verdicts[(hnn_table2_claims.LOW_DIMENSIONS, f"{first}, 2-D vs 10-D")]
    assert low.verdict == engine.NOT_TESTABLE and "10-D: no finished embedding" in low.reason


def test_a_lead_across_dimensions_is_judged_only_where_every_classifier_learned():
    """3-D against 10-D: judged when every classifier's final training loss is below its chance level
    (ln 2 on balanced batches, the entropy of the mix on natural ones), not testable, naming the run, when
    one of them is not."""
    from noneuclid.claims import engine
    from noneuclid.report import hnn_table2_claims

    rows = [
        {
            "subtree": s,
            "dim": d,
            "geometry": g,
            "seed": k,
            "f1": f1 + 0.01 * k - 0.001 * d * (g == "hyperbolic"),
            "train_loss": 0.3,
            "chance_loss": math.log(2),
            "run": f"r{d}{k}{g}",
        }
        for s in wordnet.SUBTREES
        for d in (3, 10)
        for k in (0, 1, 2)
        for g, f1 in (("hyperbolic", 0.9), ("euclidean", 0.8), ("euclidean_log0", 0.7))
    ]
    values = _with_settings(pd.DataFrame(rows))
    cell = (hnn_table2_claims.LOW_DIMENSIONS, f"{wordnet.SUBTREES[0]}, 3-D vs 10-D")
    learned = {(v.claim, v.cell): v for v in hnn_table2_claims.verdicts(values, {3: 0.8, 10: 0.8})}[cell]
    assert learned.verdict != engine.NOT_TESTABLE
    one = (
        (values.subtree == wordnet.SUBTREES[0])
        & (values.dim == 10)
        & (values.geometry == "hyperbolic")
        & (values.seed == 1)
    )
    values.loc[one, "train_loss"] = 0.9
    failed = {(v.claim, v.cell): v for v in hnn_table2_claims.verdicts(values, {3: 0.8, 10: 0.8})}[cell]
    assert failed.verdict == engine.NOT_TESTABLE and failed.reason.endswith("): 10-D hyperbolic MLR seed 1")
    values.loc[one, ["train_loss", "chance_loss"]] = 0.1, 0.07  # a natural mix of 1.4 % positives
    natural = {(v.claim, v.cell): v for v in hnn_table2_claims.verdicts(values, {3: 0.8, 10: 0.8})}[cell]
    assert natural.verdict == engine.NOT_TESTABLE and natural.reason.endswith("): 10-D hyperbolic MLR seed 1")
    values[["train_loss", "chance_loss"]] = 0.05, 0.07  # every run below its natural mix's chance level
    learned = {(v.claim, v.cell): v for v in hnn_table2_claims.verdicts(values, {3: 0.8, 10: 0.8})}[cell]
    assert learned.verdict != engine.NOT_TESTABLE


def test_two_runs_of_one_table2_cell_and_seed_are_an_error():
    """Two classifier runs of one cell, seed and embedding would be averaged as more seeds; each row
    names the embedding it classified (its summary's embedding_run; for a run from before that was
    logged, as the subtree task finds it); only runs of today's protocol are Table 2's."""
    from noneuclid.runs import hnn_table2 as table2_runs

    row = {
        "cfg.model.name": "point_mlr",
        "cfg.data.subtree": "group.n.01",
        "cfg.data.dim": 5,
        "cfg.model.geometry": "hyperbolic",
        "cfg.seed": 0,
        "final_test_f1": 0.5,
        "final_train_loss": 0.3,
        "cfg.profile.name": "cpu",
        "cfg.data.hierarchy": "wordnet",
        "cfg.data.embedding_seed": 0,
        "cfg.trainer.device": "auto",
        "cfg.data.embedding_overrides": "[]",
    }
    runs = pd.DataFrame([{**row, "run": "old"}, {**row, "run": "new"}, {**row, "cfg.seed": 1, "run": "seed1"}])
    with pytest.raises(ValueError, match="old, new; drop the stale rows"):
        table2_runs.f1_values(runs)
    values = table2_runs.f1_values(runs.iloc[1:])
    assert list(values.run) == ["new", "seed1"]
    assert set(values.embedding) == {RunDir(compose(["experiment=hnn/poincare", "profile=cpu", "model.dim=5"])).name}
    other = table2_runs.f1_values(runs.assign(**{"cfg.data.embedding_overrides": "['data.batch_size=1024']"}).iloc[:1])
    assert (
        other.embedding[0]
        == RunDir(compose(["experiment=hnn/poincare", "profile=cpu", "model.dim=5", "data.batch_size=1024"])).name
    )
    logged = table2_runs.f1_values(runs.assign(embedding_run="poincare-logged").iloc[:1])
    assert logged.embedding[0] == "poincare-logged"  # the summary's name wins over today's configs
    today = runs.assign(
        **{
            "cfg.trainer.epochs": [1, 300, 300],
            "cfg.data.natural_mix": [None, True, True],
            "chance_train_loss": [None, 0.07, 0.07],
        }
    )
    protocol = {"hyperbolic": {"trainer.epochs": 300, "data.natural_mix": True}}
    assert list(table2_runs.f1_values(today, protocol).run) == ["new", "seed1"]  # today's protocol only
    assert list(table2_runs.f1_values(today.iloc[[0, 2]], protocol).run) == [
        "seed1"
    ]  # an earlier one's alone: left out
    assert table2_runs.f1_values(today, {"euclidean": protocol["hyperbolic"]}).empty  # each classifier its own protocol
    converge = {"hyperbolic": {**protocol["hyperbolic"], "trainer.converge.patience": 100}}
    stopped = today.assign(**{"cfg.trainer.converge.patience": 100, "own_plateau": [True, None, True]})
    assert list(table2_runs.f1_values(stopped, converge).run) == ["seed1"]  # "new" stopped with its stack


def test_table2_classifies_the_profiles_own_embedding_where_it_has_finished():
    """A rule fixed before the runs: in each dimension, the classifiers of the embedding the profile
    trains; where it has not finished, those of the (one) earlier recipe's embedding."""
    from noneuclid.runs import hnn_table2 as table2_runs

    values = pd.DataFrame({"dim": [5, 5, 10], "embedding": ["own5", "old5", "old10"], "f1": [0.1, 0.2, 0.3]})
    emb = pd.DataFrame({"dim": [5, 5, 10], "run": ["own5", "old5", "old10"]})
    chosen, shown = table2_runs.classified(values, emb, {5: "own5", 10: "own10"})
    assert list(chosen.embedding) == ["own5", "old10"] and list(shown.run) == ["own5", "old10"]
    two = pd.concat([values, pd.DataFrame({"dim": [10], "embedding": ["older10"], "f1": [0.4]})])
    with pytest.raises(ValueError, match="several 10-D embeddings"):
        table2_runs.classified(
            two, pd.concat([emb, pd.DataFrame({"dim": [10], "run": ["older10"]})]), {5: "own5", 10: "own10"}
        )


def test_the_embedding_trains_on_the_cpu_and_a_gpu_machine_reads_it():
    """model.sparse's compiled loop is CPU code: the embedding's experiment names the CPU, and a classifier
    on a GPU machine reads the embedding a CPU machine trains (the same run name)."""
    from noneuclid.runs import lookup

    cfg = compose(["experiment=hnn/poincare", "profile=cpu"])
    assert cfg.trainer.device == "cpu" and cfg.model.sparse
    assert lookup.embedding_name("cpu", 5, "wordnet", 0, (), False) == lookup.embedding_name(
        "cpu", 5, "wordnet", 0, (), True
    )
    classifier = compose(["experiment=hnn/table2", "profile=cpu", "trainer.device=cuda"])
    assert not any(o.startswith("trainer.device") for o in embedding_overrides(classifier))


def test_fused_batches_train_as_the_autograd_steps(tmp_path):
    """data.fused_batches: the smoke embedding (burn-in included) trained by the compiled loop of SGD
    steps, 4 batches per trainer step, ends where the autograd steps end (float64)."""
    common = ["experiment=hnn/poincare", "profile=smoke", "model.dim=2", "trainer.progress=false"]
    points = []
    for fused in ("null", "4"):
        runs = tmp_path / fused
        s = train(compose([*common, f"paths.runs_dir={runs}", f"data.fused_batches={fused}"]))
        assert s["epochs"] == 3
        (folder,) = (runs / "hnn" / "smoke").glob("poincare-*")
        points.append(torch.load(folder / "checkpoint.pt")["model"]["weight"])
    assert torch.allclose(points[0], points[1], rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="optim.retraction=true"):
        train(
            compose(
                [*common, f"paths.runs_dir={tmp_path / 'expmap'}", "data.fused_batches=4", "optim.retraction=false"]
            )
        )


def test_burnin_table_puts_the_references_burnin_first_and_compares_with_it():
    """experiment=hnn/burnin's table: one row per burn-in, the last evaluation's mean rank and MAP over
    seeds, the MAP difference to the reference's burn-in (x0.1, 5 by frequency) as a 95 % interval."""
    from noneuclid.report import hnn_table2, table_engine

    runs, curves = [], []
    for factor, negatives, level in ((0.01, float("nan"), 0.70), (0.1, 5, 0.80)):
        for seed in range(3):
            run = f"r{factor}-{seed}"
            runs.append(
                {
                    "run": run,
                    "experiment": "hnn/burnin",
                    "cfg.experiment_name": "hnn/burnin",
                    "cfg.optim.burnin_factor": factor,
                    "cfg.data.hierarchy": "wordnet_mammal",
                    "cfg.model.dim": 2,
                    "cfg.data.burnin_negatives": negatives,
                    "cfg.data.negatives": 50,
                    "epochs": 30,
                }
            )
            curves += [
                {
                    "run": run,
                    "epoch": e,
                    "reconstruction_mean_rank": 9.0 - e / 10 - seed,
                    "reconstruction_map": level + seed / 100 - (30 - e) / 100,
                }
                for e in (10, 30)
            ]
            curves.append({"run": run, "epoch": 31, "reconstruction_mean_rank": None, "reconstruction_map": None})
    table = hnn_table2.burnin_rows(pd.DataFrame(runs), pd.DataFrame(curves))
    assert list(table.burnin_negatives) == ["5 by frequency", "50 uniform"] and list(table.seeds) == [3, 3]
    assert table["map"].tolist() == pytest.approx([0.81, 0.71]) and table.mean_rank.tolist() == pytest.approx(
        [5.0, 5.0]
    )
    assert math.isnan(table.map_minus_first_low[0])
    assert table.map_minus_first_low[1] < -0.1 < table.map_minus_first_high[1] < 0
    shown = table_engine.displayed("hnn", "table2_burnin", table)
    assert shown["MAP"].tolist() == ["0.810 ± 0.006 (n=3)", "0.710 ± 0.006 (n=3)"]


def test_chance_level_of_a_classifier_run():
    """The summary's chance_train_loss where logged; ln 2 for a balanced run from before it was logged;
    a natural-mix run without it is an error (its chance level depends on the subtree)."""
    from noneuclid.runs import hnn_table2 as table2_runs

    found = pd.DataFrame({"chance_train_loss": [0.07, math.nan], "cfg.data.natural_mix": [True, None]})
    assert table2_runs.chance_losses(found).tolist() == [0.07, pytest.approx(math.log(2))]
    with pytest.raises(ValueError, match="without chance_train_loss"):
        table2_runs.chance_losses(found.assign(**{"cfg.data.natural_mix": [True, True]}))


def test_table2_step_sizes_decay_per_epoch_for_both_optimizers():
    """optim.epoch_lr_factor scales Adam's step (a'_k) and Riemannian SGD's (p_k) after every epoch."""
    from noneuclid import optim
    from noneuclid.models.mlr import PointMLR

    cfg = compose(["experiment=hnn/table2", "profile=cpu"])
    opt = optim.build(cfg.optim, list(PointMLR(5, "hyperbolic").named_parameters()))
    before = sorted(g["lr"] for g in opt.param_groups)
    optim.end_epoch(opt, cfg.optim)
    assert before == [0.03, 0.1] and sorted(g["lr"] for g in opt.param_groups) == pytest.approx([0.0297, 0.099])


def test_a_table2_cell_needs_converged_euclidean_classifiers_and_a_subtree_found(tmp_path):
    """A Euclidean MLR further than REFERENCE_GAP from scikit-learn's logistic regression on the same points
    (table2_reference.csv) has not converged: its cells, and the lead across dimensions it enters, are not
    testable; a comparison where neither classifier ever predicts the subtree (F1 zero) is not one either."""
    from noneuclid.claims import engine
    from noneuclid.report import hnn_table2, hnn_table2_claims, table_engine

    first = wordnet.SUBTREES[0]
    rows = [
        {
            "subtree": first,
            "dim": dim,
            "geometry": g,
            "seed": s,
            "f1": f1,
            "train_loss": 0.01,
            "chance_loss": 0.07,
            "run": f"{g}{dim}{s}",
            "embedding": "e",
        }
        for dim in (3, 10)
        for s in range(3)
        for g, f1 in (("hyperbolic", 0.9), ("euclidean", 0.5), ("euclidean_log0", 0.0 if dim == 3 else 0.8))
    ]
    values, emb_map = _with_settings(pd.DataFrame(rows)), {3: 0.8, 10: 0.8}
    pd.DataFrame(
        [
            {
                "subtree": first,
                "dim": 3,
                "classifier": "euclidean",
                "sampling": "natural",
                "seeds": 3,
                "ours_f1": 50.0,
                "reference_f1": 97.0,
                "difference": -47.0,
            },
            {
                "subtree": first,
                "dim": 3,
                "classifier": "euclidean_log0",
                "sampling": "natural",
                "seeds": 3,
                "ours_f1": 0.0,
                "reference_f1": 0.5,
                "difference": -0.5,
            },
        ]
    ).to_csv(tmp_path / "table2_reference.csv")
    gaps = hnn_table2_claims.reference_gaps(pd.read_csv(tmp_path / "table2_reference.csv"))
    v = {(v.claim, v.cell): v for v in hnn_table2_claims.verdicts(values, emb_map, gaps)}
    off = v[(hnn_table2_claims.OUTPERFORMS, f"{first}, 3-D, vs euclidean")]
    assert (
        off.verdict == engine.NOT_TESTABLE
        and off.reason.startswith("not converged")
        and "3-D Euclidean MLR" in off.reason
    )
    assert (
        v[(hnn_table2_claims.OUTPERFORMS, f"{first}, 3-D, vs euclidean_log0")].verdict != engine.NOT_TESTABLE
    )  # within
    assert v[(hnn_table2_claims.LOW_DIMENSIONS, f"{first}, 3-D vs 10-D")].reason.startswith("not converged")
    assert (
        v[(hnn_table2_claims.OUTPERFORMS, f"{first}, 10-D, vs euclidean")].verdict != engine.NOT_TESTABLE
    )  # no reference
    table = hnn_table2.f1_table(values, gaps).set_index(["subtree", "dim", "classifier"])
    assert table.at[(first, 3, "Euclidean MLR"), "unconverged"]
    shown = table_engine.shown("hnn", hnn_table2.F1, hnn_table2.f1_table(values, gaps))
    assert shown.loc[shown.dim == 3, "Euclidean MLR (ours)"].iloc[0].endswith(", not converged")
    values.loc[values.dim == 3, "f1"] = 0.0  # no classifier predicts the subtree
    none = {(v.claim, v.cell): v for v in hnn_table2_claims.verdicts(values, emb_map)}[
        (hnn_table2_claims.OUTPERFORMS, f"{first}, 3-D, vs euclidean_log0")
    ]
    assert none.verdict == engine.NOT_TESTABLE and none.reason.startswith("neither classifier predicts the subtree")


def test_a_run_whose_loss_rose_to_its_chance_level_after_its_best_epoch_is_unstable():
    """A run's final numbers are a converged classifier's only if its training loss never rose back to its
    chance level after its best epoch; a cell with such a run is not testable, and the table counts them."""
    from noneuclid.claims import engine
    from noneuclid.report import hnn_table2, hnn_table2_claims
    from noneuclid.runs import hnn_table2 as table2_runs, table as run_table

    first = wordnet.SUBTREES[0]
    runs = pd.DataFrame(
        [
            {
                "cfg.model.name": "point_mlr",
                "cfg.data.subtree": first,
                "cfg.data.dim": 3,
                "cfg.model.geometry": g,
                "cfg.seed": s,
                "final_test_f1": f1,
                "final_train_loss": 0.01,
                "chance_train_loss": 0.07,
                "run": f"{g}{s}",
                "embedding_run": "e",
            }
            for s in range(4)
            for g, f1 in (("hyperbolic", 0.9), ("euclidean", 0.5), ("euclidean_log0", 0.5))
        ]
    )
    curves = pd.DataFrame(
        [
            {"run": run, "epoch": e, "train_loss": loss}
            for run in runs.run
            for e, loss in enumerate((0.5, 0.01, 0.2 if run == "hyperbolic1" else 0.01, 0.01), 1)
        ]
    )
    values = table2_runs.f1_values(runs.assign(train_loss_rebound=runs.run.map(run_table.rebound(curves))))
    assert list(values[values.unstable].run) == ["hyperbolic1"]
    v = {(v.claim, v.cell): v for v in hnn_table2_claims.verdicts(values, {3: 0.8})}
    cell = v[(hnn_table2_claims.OUTPERFORMS, f"{first}, 3-D, vs euclidean")]
    assert cell.verdict == engine.NOT_TESTABLE and cell.reason.endswith("): 3-D hyperbolic MLR")
    table = hnn_table2.f1_table(values).set_index(["subtree", "dim", "classifier"])
    assert table.at[(first, 3, "hyperbolic MLR"), "unstable"] == 1
    assert table.at[(first, 3, "Euclidean MLR"), "unstable"] == 0
    values["unstable"] = False
    v = {(v.claim, v.cell): v for v in hnn_table2_claims.verdicts(values, {3: 0.8})}
    assert v[(hnn_table2_claims.OUTPERFORMS, f"{first}, 3-D, vs euclidean")].verdict == engine.REPRODUCES
