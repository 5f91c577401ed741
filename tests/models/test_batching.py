"""Token-budget batches and the shared-prefix pass of the local backend, against plain forward passes
of the real embedded models."""
import pytest

from lib.models.backends import transformers_lm
from lib.models.backends.transformers_lm import (MIN_SHARED, common_prefix, layout, load, prefix_batches,
                                                 span_logprobs, token_batches)
from lib.models.specs import parse_spec


def test_token_batches_keep_order_rows_and_budget():
    lengths = [10, 20, 30, 40, 50, 400, 5]
    order = [6, 0, 1, 2, 3, 4, 5]
    chunks = token_batches(order, lengths, budget=100, max_rows=3)
    assert [i for c in chunks for i in c] == order
    for c in chunks:
        assert len(c) <= 3
        assert len(c) == 1 or len(c) * max(lengths[i] for i in c) <= 100
    assert chunks[-1] == [5]  # wider than the budget alone: still one row
    assert token_batches([], lengths, 100, 3) == []


def test_common_prefix():
    assert common_prefix([[1, 2, 3, 4], [1, 2, 5], [1, 2, 3]]) == 2
    assert common_prefix([[7, 1], [8, 1]]) == 0
    assert common_prefix([[1, 2, 3]]) == 3


def test_prefix_batches_count_the_shared_prefix_once():
    shared = list(range(100, 100 + 2 * MIN_SHARED))  # a common instruction
    seqs = [shared + [i] * 10 for i in range(6)] + [[9] * 40]
    order = list(range(len(seqs)))
    # budget 60: six rows of 10 unshared positions fit in one batch, the odd row goes alone
    assert prefix_batches(seqs, order, budget=60) == [[0, 1, 2, 3, 4, 5], [6]]
    # counting every position, as before, the budget holds one row of 42 at a time
    assert prefix_batches(seqs, order, budget=60, limits=[0] * len(seqs)) == [[i] for i in order]
    # the prefix may not reach past a row's limit (its first scored position)
    assert prefix_batches(seqs, order, budget=60, limits=[5] * len(seqs)) == [[i] for i in order]
    # under a sliding window the prefix is shared only if the whole row fits inside it
    assert prefix_batches(seqs, order, budget=60, window=40) == [[i] for i in order]
    assert prefix_batches(seqs, order, budget=60, max_rows=4) == [[0, 1, 2, 3], [4, 5], [6]]


def test_layout_groups_rows_that_share_more_than_the_root():
    root, a, b = [1] * 20, [2] * 30, [3] * 30  # instruction; two first passages
    seqs = [root + a + [5, 6], root + a + [7], root + b + [8, 9, 10], root + b + [11], root + [4] * 12]
    lay = layout(seqs, [len(s) - 1 for s in seqs])
    assert lay.root == 20
    assert sorted((sorted(rows), end) for rows, end in lay.groups) == [([0, 1], 50), ([2, 3], 50), ([4], 20)]
    # computed: the root once, three segments padded to 30, five rests padded to the longest (12)
    assert lay.computed == 20 + 3 * 30 + 5 * 12
    assert lay.computed < 20 + 5 * (max(map(len, seqs)) - 20)  # cheaper than one shared root alone
    # a limit before the segment ends (a scored position) keeps the row out of any group
    lay = layout(seqs, [len(s) - 1 for s in seqs[:-1]] + [15])
    assert lay.root == 0 and lay.computed == 5 * max(map(len, seqs))


@pytest.mark.model
@pytest.mark.parametrize("name", ["smollm2", "gemma3"])
def test_shared_prefix_equals_full_passes(name, monkeypatch):
    model, tok = load(parse_spec(f"local:{name}"))
    prefix = tok("Question: Which passage says where the Eiffel Tower stands? Passage 1 says Paris, "
                 "passage 2 says Rome. Answer:")["input_ids"]
    conts = [tok(c, add_special_tokens=False)["input_ids"] for c in [" Paris", " Rome, the capital of Italy", " 2"]]
    seqs, starts = [prefix + c for c in conts], [len(prefix)] * 3
    transformers_lm.PREFILL_STATS.clear()
    shared = span_logprobs(model, seqs, starts, tok.pad_token_id)
    # the prefix ran once: fewer positions computed than three full rows
    assert transformers_lm.PREFILL_STATS["computed"] < sum(map(len, seqs)) - len(prefix)
    monkeypatch.setattr(transformers_lm, "REUSE_PREFIXES", False)
    full = [span_logprobs(model, [s], [st], tok.pad_token_id)[0] for s, st in zip(seqs, starts)]
    assert shared == pytest.approx(full, abs=2e-3)
    assert len(set(round(x, 3) for x in shared)) == 3  # three different numbers, not one copied
    assert shared[0] > shared[1]


@pytest.mark.model
def test_sliding_window_models_share_only_inside_the_window():
    gemma, _ = load(parse_spec("local:gemma3"))
    smol, _ = load(parse_spec("local:smollm2"))
    rows = lambda n: [list(range(400)) + [1] * (n - 400), list(range(400)) + [2] * (n - 400)]  # noqa: E731
    gemma_window, smol_window = gemma.config.sliding_window, getattr(smol.config, "sliding_window", None)
    assert gemma_window == 512 and smol_window is None
    assert layout(rows(500), [450, 450], gemma_window).root == 400
    assert layout(rows(600), [450, 450], gemma_window).root == 0  # past the 512-token window
    assert layout(rows(500), [450, 450], gemma_window, extra=20).root == 0  # generated tokens count too
    assert layout(rows(5000), [450, 450], smol_window).root == 400
    assert layout(rows(5000), [10, 10], smol_window).root == 0  # below MIN_SHARED
