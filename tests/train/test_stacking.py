"""Stacked training (noneuclid.train.stacking): runs trained side by side in one model are the runs
trained one by one (float64, same metrics), resume alone from a stack's checkpoints, and a run that
diverges in a stack leaves the others training."""

import json

import pytest
import torch

from noneuclid.config import compose
from noneuclid.runs import RunDir
from noneuclid.train import trainer
from noneuclid.train.loop import train, train_stacked

RUNS = [(0, "prefix10"), (1, "prefix30"), (2, "prefix10")]


def _cfg(root, seed, data, variant="hyperbolic_gru", *extra, epochs=2):
    """A smoke run of hnn/table1; `extra` overrides (those of keys set here replace them)."""
    base = [
        "experiment=hnn/table1",
        "profile=smoke",
        f"variant=hnn/{variant}",
        f"seed={seed}",
        f"data={data}",
        f"paths.runs_dir={root}/runs",
        f"paths.generated_dir={root}/gen",
        "trainer.progress=false",
        f"trainer.epochs={epochs}",
        "data.train_size=128",
        "data.dev_size=64",
        "data.test_size=64",
    ]
    replaced = {e.split("=")[0] for e in extra}
    return compose([*(b for b in base if b.split("=")[0] not in replaced), *extra], experiment_name="hnn/table1")


TIMING = (
    "train_seconds",
    "train_cpu_seconds",
    "seconds_per_epoch",
    "median_seconds_per_epoch",
    "stacked_runs",
)  # of the machine


def _metrics(cfg) -> list[dict]:
    return _untimed(RunDir(cfg).metrics())


def _untimed(rows: list[dict]) -> list[dict]:
    """The rows without what the machine's speed and load decide (TIMING)."""
    return [{k: v for k, v in row.items() if k not in TIMING} for row in rows]


def _same(stacked: list[dict], alone: list[dict]) -> bool:
    """Equal on the CPU; on CUDA, whose kernels need not round alike twice (nor a stack's batched shapes as
    one run's), equal to float64 rounding."""
    if not torch.cuda.is_available():
        return stacked == alone
    return len(stacked) == len(alone) and all(
        a.keys() == b.keys() and all(a[k] == pytest.approx(b[k], rel=1e-9) for k in a) for a, b in zip(stacked, alone)
    )


@pytest.mark.parametrize(
    "variant, extra",
    [
        ("euclidean_gru", ("data.order=original", "data.train_size=160")),
        ("hyperbolic_rnn", ()),
        ("hyperbolic_rnn_eucl_mlr", ("optim.compensated=true",)),
    ],
)
def test_a_stack_trains_exactly_the_runs_one_by_one(variant, extra, tmp_path):
    alone = [train(_cfg(tmp_path / "a", s, d, variant, *extra)) for s, d in RUNS]
    cfgs = [_cfg(tmp_path / "b", s, d, variant, *extra) for s, d in RUNS]
    stacked = train_stacked(cfgs)
    for cfg, a, b in zip(cfgs, alone, stacked):
        assert _same(_metrics(cfg), _metrics(_cfg(tmp_path / "a", cfg.seed, cfg.data.label, variant, *extra)))
        assert b["stacked_runs"] == 3 and a["parameters"] == b["parameters"]
    assert len({s["final_train_loss"] for s in stacked}) == 3  # three different runs
    assert RunDir(cfgs[0]).name == RunDir(_cfg(tmp_path / "a", 0, "prefix10", variant, *extra)).name


def test_a_run_of_an_interrupted_stack_resumes_alone(tmp_path, monkeypatch):
    reference = train(_cfg(tmp_path / "a", 0, "prefix10"))
    real_epoch, calls = trainer.train_epoch, []

    def killed_in_epoch_2(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real_epoch(*args, **kwargs)

    monkeypatch.setattr(trainer, "train_epoch", killed_in_epoch_2)
    with pytest.raises(KeyboardInterrupt):
        train_stacked([_cfg(tmp_path / "b", s, d) for s, d in RUNS])
    monkeypatch.setattr(trainer, "train_epoch", real_epoch)
    resumed = train(_cfg(tmp_path / "b", 0, "prefix10"))
    assert resumed["final_train_loss"] == reference["final_train_loss"]
    assert _metrics(_cfg(tmp_path / "b", 0, "prefix10")) == _metrics(_cfg(tmp_path / "a", 0, "prefix10"))


def test_a_longer_stack_goes_on_from_the_finished_shorter_one(tmp_path):
    """Runs of 3 epochs after the same runs of 1: they start from their checkpoints (EXTENDS) and
    give exactly the runs of 3 epochs trained from the start; the short runs stay as they were."""
    short = [_cfg(tmp_path / "b", s, d, epochs=1) for s, d in RUNS]
    train_stacked(short)
    before = [RunDir(c).file("metrics.jsonl").read_text() for c in short]
    longer = [_cfg(tmp_path / "b", s, d, epochs=3) for s, d in RUNS]
    train_stacked(longer)
    train_stacked([_cfg(tmp_path / "a", s, d, epochs=3) for s, d in RUNS])
    for c, s, text in zip(longer, short, before):
        assert RunDir(c).file("EXTENDS").read_text() == str(RunDir(s).path)
        assert _same(_metrics(c), _metrics(_cfg(tmp_path / "a", c.seed, c.data.label, epochs=3)))
        assert RunDir(s).file("metrics.jsonl").read_text() == text
    other = _cfg(tmp_path / "b", 0, "prefix10", "hyperbolic_gru", "optim.lr=0.01", epochs=3)
    assert RunDir(other).shorter_run() is None  # other settings
    fresh = _cfg(tmp_path / "b", 0, "prefix10", "hyperbolic_gru", "trainer.extend=false", epochs=2)
    train(fresh)
    assert not RunDir(fresh).file("EXTENDS").exists()
    assert RunDir(fresh).path == RunDir(_cfg(tmp_path / "b", 0, "prefix10", epochs=2)).path


def test_a_diverging_run_is_marked_and_the_others_finish(tmp_path, monkeypatch):
    real_loss = trainer.tasks.SentencePairs.loss

    def poisoned(self, model, batch):
        loss, sums = real_loss(self, model, batch)
        if self.runs == 3:
            sums[1] = float("nan")
        return loss, sums

    monkeypatch.setattr(trainer.tasks.SentencePairs, "loss", poisoned)
    cfgs = [_cfg(tmp_path, s, d) for s, d in RUNS]
    summaries = train_stacked(cfgs)
    assert json.loads(RunDir(cfgs[1]).file("DIVERGED").read_text())["epoch"] == 1
    assert RunDir(cfgs[0]).done and RunDir(cfgs[2]).done and not RunDir(cfgs[1]).done
    assert summaries[0]["epochs"] == 2 and summaries[1]["epoch"] == 1


def test_runs_that_differ_in_more_than_seed_and_data_are_refused(tmp_path):
    cfgs = [_cfg(tmp_path, 0, "prefix10"), _cfg(tmp_path, 1, "prefix10", "hyperbolic_gru", "optim.lr=0.01")]
    with pytest.raises(ValueError, match="may differ only in.*optim"):
        train_stacked(cfgs)


def test_stack_config_trains_every_combination(tmp_path):
    from noneuclid.config import stacked_runs

    cfgs = stacked_runs(
        [f"paths.runs_dir={tmp_path}", "experiment=hnn/table1"], {"seed": [0, 1], "data": ["prefix10", "prefix50"]}
    )
    assert [(c.seed, c.data.label) for c in cfgs] == [
        (0, "prefix10"),
        (0, "prefix50"),
        (1, "prefix10"),
        (1, "prefix50"),
    ]
    assert all(c.stack is None for c in cfgs)


def test_a_finite_gradient_whose_norm_overflows_is_finite_alone_as_in_a_stack():
    from noneuclid.train.stacking import finite_runs

    model = torch.nn.Linear(2, 3).float()
    model.weight.grad = torch.full((3, 2), 3e38)  # finite; its 2-norm overflows float32
    model.bias.grad = torch.zeros(3)
    assert finite_runs(model, 1).tolist() == [True]
    model.bias.grad[1] = float("nan")
    assert finite_runs(model, 1).tolist() == [False]
    assert finite_runs(model, 3).tolist() == [True, False, True]  # read as 3 stacked runs (rows)


def test_gradient_clipping_acts_per_copy():
    from noneuclid.nn.parameters import with_copy_dims
    from noneuclid.optim.composite import CompositeOptimizer

    p = with_copy_dims(torch.nn.Parameter(torch.zeros(2, 3, 4, dtype=torch.float64)), 2)
    p.grad = torch.randn(2, 3, 4, dtype=torch.float64) * 10
    p.grad[0, 0] = 0.01
    expected = p.grad / p.grad.norm(dim=-1, keepdim=True).clamp_min(1)
    CompositeOptimizer([torch.optim.SGD([p], lr=1.0)], clip_norm=1.0).step()
    torch.testing.assert_close(p.data, -expected)


@pytest.mark.parametrize("geometry", ["euclidean", "hyperbolic"])
def test_sentence_pair_weights_are_clipped_per_tensor_of_the_original_code(geometry):
    """W1 and W2 of the FFNN and each class's MLR weights are separate tensors in the original code,
    each clipped to norm 1 on its own; clip_per_tensor=false (earlier runs) clips them together."""
    from noneuclid.models.sentence_pair import SentencePairModel
    from noneuclid.optim.composite import CompositeOptimizer

    for per_tensor in (True, False):
        model = SentencePairModel(10, geometry=geometry, runs=3, clip_per_tensor=per_tensor).double()
        weights = [model.W, *model.mlr.parameters()]  # [runs, 2 (W1, W2) or classes, ...]
        for p in weights:
            p.grad = torch.randn_like(p) * 10
        unit = [p.grad.flatten(2 if per_tensor else 1) for p in weights]
        unit = [(g / g.norm(dim=-1, keepdim=True).clamp_min(1)).view_as(p) for g, p in zip(unit, weights)]
        CompositeOptimizer([torch.optim.SGD(weights, lr=0.0)], clip_norm=1.0).step()
        for p, expected in zip(weights, unit):
            torch.testing.assert_close(p.grad, expected)


@pytest.mark.shared_data("snli")
def test_snli_end_to_end_on_a_slice_of_dev(tmp_path, shared_data):
    """SNLI's training split cannot be had here: the SNLI path (real files, vocabulary, stack of
    seeds) runs end to end with a slice of dev as the training split."""
    cfgs = [
        compose(
            [
                "experiment=hnn/table1",
                "profile=smoke",
                "variant=hnn/hyperbolic_gru",
                "data=snli",
                f"seed={s}",
                f"paths.data_dir={shared_data}",
                f"paths.runs_dir={tmp_path}",
                "data.train_split=dev",
                "data.train_size=256",
                "data.dev_size=256",
                "data.test_size=256",
                "trainer.progress=false",
            ],
            experiment_name="hnn/table1",
        )
        for s in (0, 1)
    ]
    summaries = train_stacked(cfgs)
    assert all(s["nonfinite_events"] == 0 and 0 <= s["test_accuracy_at_best_dev"] <= 1 for s in summaries)


TABLE2_RUNS = [(0, "group.n.01"), (1, "group.n.01"), (2, "animal.n.01")]


@pytest.fixture(scope="module")
def toy_embedding(tmp_path_factory):
    """A runs folder holding the smoke profile's 2-D embedding of the toy hierarchy (seconds)."""
    root = tmp_path_factory.mktemp("table2")
    train(
        compose(
            [
                "experiment=hnn/poincare",
                "model.dim=2",
                "profile=smoke",
                f"paths.runs_dir={root}",
                "trainer.progress=false",
            ]
        )
    )
    return root


def _table2(root, seed, subtree, *extra):
    """A smoke run of hnn/table2 (2-D, 2 epochs) in its own copy of the runs folder `root`."""
    return compose(
        [
            "experiment=hnn/table2",
            "profile=smoke",
            "data.dim=2",
            f"seed={seed}",
            f"data.subtree={subtree}",
            f"paths.runs_dir={root}",
            "trainer.progress=false",
            "trainer.epochs=2",
            *extra,
        ]
    )


@pytest.mark.parametrize(
    "geometry, natural_mix",
    [  # `make test`: each geometry, each batching; the rest slow
        ("hyperbolic", "true"),
        ("euclidean", "null"),
        ("euclidean_log0", "true"),
        *(
            pytest.param(g, m, marks=pytest.mark.slow)
            for g, m in (("hyperbolic", "null"), ("euclidean", "true"), ("euclidean_log0", "null"))
        ),
    ],
)
def test_a_stack_of_table2_classifiers_trains_exactly_the_runs_one_by_one(
    geometry, natural_mix, toy_embedding, tmp_path
):
    """Seeds and subtrees side by side: each run's metrics, summary and checkpoint are those of the
    run trained alone. Balanced batches: seed 0 of group.n.01 takes one step more per epoch than the
    others (more training negatives) and trains alone; the other two stack, the shorter last batch
    of animal.n.01 padded."""
    import shutil

    for name in ("alone", "stacked"):
        shutil.copytree(toy_embedding, tmp_path / name)
    extra = (f"model.geometry={geometry}", f"data.natural_mix={natural_mix}")
    alone = [train(_table2(tmp_path / "alone", s, sub, *extra)) for s, sub in TABLE2_RUNS]
    cfgs = [_table2(tmp_path / "stacked", s, sub, *extra) for s, sub in TABLE2_RUNS]
    stacked = train_stacked(cfgs)
    assert [s["stacked_runs"] for s in stacked] == ([3, 3, 3] if natural_mix == "true" else [1, 2, 2])
    for cfg, a, b in zip(cfgs, alone, stacked):
        single = RunDir(_table2(tmp_path / "alone", cfg.seed, cfg.data.subtree, *extra))
        assert RunDir(cfg).name == single.name
        for key in ("final_train_loss", "final_test_loss", "final_test_f1", "final_test_f1_prior", "chance_train_loss"):
            assert b[key] == pytest.approx(a[key], rel=1e-10, abs=1e-12), key
        assert b["embedding_run"] == a["embedding_run"]
        weights = [torch.load(r.file("checkpoint.pt"), weights_only=False)["model"] for r in (single, RunDir(cfg))]
        assert weights[0].keys() == weights[1].keys()
        for k in weights[0]:
            torch.testing.assert_close(weights[1][k], weights[0][k], rtol=1e-10, atol=1e-12)
    assert len({s["final_train_loss"] for s in stacked}) == 3  # three different runs


def test_table2_runs_that_cannot_stack_are_refused(toy_embedding):
    from noneuclid.train import tasks
    from noneuclid.train.tasks.classification import Classification

    with pytest.raises(ValueError, match=r"may differ only in.*these differ: \['model'\]"):
        trainer.stacking.check_stackable(
            [
                _table2(toy_embedding, 0, "group.n.01"),
                _table2(toy_embedding, 1, "group.n.01", "model.geometry=euclidean"),
            ]
        )
    run_tasks = [
        tasks.build(_table2(toy_embedding, s, "group.n.01", f"data.natural_mix={m}"))
        for s, m in ((0, "true"), (1, "null"))
    ]
    with pytest.raises(ValueError, match="same data.natural_mix"):
        tasks.stack(run_tasks)
    with pytest.raises(ValueError, match="one kind"):
        tasks.stack([run_tasks[0], Classification(run_tasks[0].splits["train"], {}, 16, "softmax_cross_entropy", 0)])
    with pytest.raises(ValueError, match="Classification runs cannot be stacked"):
        tasks.stack([Classification(run_tasks[0].splits["train"], {}, 16, "softmax_cross_entropy", s) for s in (0, 1)])
    balanced = [tasks.build(_table2(toy_embedding, s, "group.n.01", "data.natural_mix=null")) for s in (0, 1, 2)]
    with pytest.raises(trainer.stacking.UnequalSteps, match=r"one number of steps, got \[27, 26, 2") as e:
        tasks.stack(balanced)
    assert e.value.groups[-1] == [0]


def test_a_point_mlr_of_one_run_takes_points_of_any_shape_and_earlier_checkpoints():
    """runs = 1 draws the weights a model without a runs dimension drew (nn.Linear's for the
    Euclidean ones), takes x [..., dim], and loads a checkpoint without the runs dimension."""
    from noneuclid.geometry import poincare as pb
    from noneuclid.models.mlr import PointMLR

    x = torch.rand(4, 6, 3, dtype=torch.float64) * 0.3
    for geometry in ("hyperbolic", "euclidean", "euclidean_log0"):
        torch.manual_seed(1)
        model = PointMLR(3, geometry).double()
        torch.manual_seed(1)
        reference = torch.nn.Linear(3, 2).double()
        if geometry != "hyperbolic":
            torch.testing.assert_close(model.mlr.weight[0], reference.weight, rtol=0, atol=0)
            torch.testing.assert_close(model(x), reference(pb.logmap0(x, 1.0) if geometry == "euclidean_log0" else x))
        earlier = {k: v[0] + 0.1 for k, v in model.state_dict().items()}  # without the runs dimension
        model.load_state_dict(earlier)
        assert all(torch.equal(v[0], earlier[k]) for k, v in model.state_dict().items())
        assert model(x).shape == (4, 6, 2) and torch.equal(model(x[0][None]), model(x[0])[None])


@pytest.mark.parametrize("geometry", [pytest.param("euclidean", marks=pytest.mark.slow), "hyperbolic"])
def test_a_converge_run_stops_on_its_own_plateau_as_alone(geometry, toy_embedding, tmp_path):
    """trainer.converge in a stack of three seeds that plateau at different epochs: each run stops at
    its own epoch, with the metrics rows, summary (timing aside), weights and optimizer state it has
    trained alone, while its stack mates go on."""
    import shutil

    for name in ("alone", "stacked"):
        shutil.copytree(toy_embedding, tmp_path / name)
    extra = (
        f"model.geometry={geometry}",
        "trainer.epochs=100",
        "trainer.converge={patience: 5, tol: 1.0e-3, after: 0}",
    )
    seeds = (0, 1, 2)
    alone = [train(_table2(tmp_path / "alone", s, "group.n.01", *extra)) for s in seeds]
    cfgs = [_table2(tmp_path / "stacked", s, "group.n.01", *extra) for s in seeds]
    stacked = train_stacked(cfgs)
    assert len({s["epochs"] for s in alone}) == 3 and all(s["converged"] and s["epochs"] < 100 for s in alone)
    for cfg, a, b in zip(cfgs, alone, stacked):
        single = RunDir(_table2(tmp_path / "alone", cfg.seed, "group.n.01", *extra))
        assert b["epochs"] == a["epochs"] and b["own_plateau"] and a["own_plateau"]
        assert _same(_untimed([b]), _untimed([a]))
        assert _same(_metrics(cfg), _untimed(single.metrics()))
        ends = [torch.load(r.file("checkpoint.pt"), weights_only=False) for r in (single, RunDir(cfg))]
        assert ends[0]["epochs_done"] == ends[1]["epochs_done"] == a["epochs"]
        for part in ("model", "optimizer"):  # weights, moments, step counts and step sizes
            leaves = [_leaves(end[part]) for end in ends]
            assert leaves[0].keys() == leaves[1].keys() and all(_equal(leaves[1][k], leaves[0][k]) for k in leaves[0])
    for name in ("DONE", "summary.json"):  # killed after its last checkpoint: resumed, it ends there
        RunDir(cfgs[0]).file(name).unlink()
    again = train(cfgs[0])
    assert _untimed([again]) == _untimed([stacked[0]])


def _leaves(state, prefix="") -> dict:
    """The leaves (tensors, numbers, ...) of a nested state dict, by their path."""
    if isinstance(state, dict):
        return {k: v for key, value in state.items() for k, v in _leaves(value, f"{prefix}{key}.").items()}
    if isinstance(state, (list, tuple)):
        return {k: v for i, value in enumerate(state) for k, v in _leaves(value, f"{prefix}{i}.").items()}
    return {prefix: state}


def _equal(a, b) -> bool:
    """Equal on the CPU; tensors on CUDA to float64 rounding (see _same)."""
    if not torch.is_tensor(a):
        return a == b
    return torch.equal(a, b) if not torch.cuda.is_available() else torch.allclose(a, b, rtol=1e-9, atol=0)
