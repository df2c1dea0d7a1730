"""PREFIX-Z% generation exactly as specified (the paper's description; docs/hnn.md, "Values taken from the paper")."""

import pytest

from noneuclid.data import prefix


@pytest.mark.parametrize("percent", [10, 30, 50])
def test_pairs_follow_the_recipe(percent):
    first, second, labels = prefix.make_split(percent, 2000, seed=0)
    assert len(first) == len(second) == len(labels) == 2000 and sum(labels) == 1000
    for s1, s2, y in zip(first, second, labels):
        assert 1 <= len(s2) <= len(s1) <= prefix.MAX_LEN
        assert all(1 <= w <= prefix.VOCAB for w in s1 + s2)
        if y == 1:  # at most floor(Z/100 * L2) positions differ from the prefix
            changed = sum(a != b for a, b in zip(s1, s2))
            assert changed <= percent * len(s2) // 100


def test_negatives_are_uniform_and_positives_mostly_match():
    first, second, labels = prefix.make_split(10, 4000, seed=1)
    match = [sum(a == b for a, b in zip(s1, s2)) / len(s2) for s1, s2 in zip(first, second)]
    pos = [m for m, y in zip(match, labels) if y == 1]
    neg = [m for m, y in zip(match, labels) if y == 0]
    assert sum(pos) / len(pos) > 0.9 and sum(neg) / len(neg) < 0.05


def test_deterministic_and_seeded():
    assert prefix.make_split(30, 100, 5) == prefix.make_split(30, 100, 5)
    assert prefix.make_split(30, 100, 5) != prefix.make_split(30, 100, 6)
    assert prefix.make_split(30, 100, 5) != prefix.make_split(50, 100, 5)


def test_written_once_and_reused(tmp_path):
    data = prefix.load(tmp_path, 10, "dev", 200)
    path = prefix.split_file(tmp_path, 10, "dev", 200)
    assert path.exists()
    stamp = path.stat().st_mtime_ns
    assert prefix.load(tmp_path, 10, "dev", 200) == data == prefix.make_split(10, 200, prefix.SPLITS["dev"][1])
    assert path.stat().st_mtime_ns == stamp


def test_bad_arguments():
    with pytest.raises(ValueError, match="balanced pairs: size must be even, got 3"):
        prefix.make_split(10, 3, 0)
    with pytest.raises(ValueError, match=r"percent must be in \[0, 100\], got 120"):
        prefix.make_split(120, 4, 0)
    with pytest.raises(ValueError, match=r"percent must be in \[0, 100\], got -1"):
        prefix.make_split(-1, 4, 0)


def test_paired_order_holds_the_same_examples_each_first_sentences_pairs_side_by_side(tmp_path):
    """paired=True: the authors' order (prefix_dataset.py appends each first sentence's two pairs in
    turn): the same examples as the shuffled split, examples 2k and 2k+1 sharing their first sentence
    with labels 1 and 0; its own file."""
    shuffled, paired = prefix.make_split(10, 400, 4), prefix.make_split(10, 400, 4, paired=True)
    assert sorted(map(str, zip(*shuffled))) == sorted(map(str, zip(*paired)))
    first, _, labels = paired
    assert all(first[k] == first[k + 1] and labels[k : k + 2] == [1, 0] for k in range(0, 400, 2))
    assert prefix.split_file(tmp_path, 10, "train", 400, paired=True) != prefix.split_file(tmp_path, 10, "train", 400)
    assert prefix.load(tmp_path, 10, "train", 400, paired=True) == prefix.make_split(
        10, 400, prefix.SPLITS["train"][1], True
    )


def test_original_order_trains_fixed_batches_of_consecutive_pairs_in_a_shuffled_order():
    """data.order=original (Ganea et al.'s hyp_rnn.py): each epoch the same batches of consecutive
    examples, in an order that changes with the epoch and is fixed by (seed, epoch); every example at
    least once, the last batch filled up from the first examples (every batch full)."""
    import torch

    from noneuclid.train.tasks.batching import shuffled as _shuffled

    epochs = [_shuffled(10, 4, seed=3, epoch=e, device="cpu", fixed=True) for e in range(4)]
    for batches in epochs:
        assert sorted(tuple(b.tolist()) for b in batches) == [(0, 1, 2, 3), (4, 5, 6, 7), (8, 9, 0, 1)]
    assert len({tuple(tuple(b.tolist()) for b in batches) for batches in epochs}) > 1
    again = _shuffled(10, 4, seed=3, epoch=1, device="cpu", fixed=True)
    assert all(torch.equal(a, b) for a, b in zip(again, epochs[1]))
