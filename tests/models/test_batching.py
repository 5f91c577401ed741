"""Token-budget batches and the shared-prefix pass of the local backend, against plain forward passes
of the real embedded models."""
import pytest

from lib.models.backends.transformers_lm import (can_share_prefix, load, shared_prefix_logprobs, span_logprobs,
                                          token_batches)
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


@pytest.mark.model
@pytest.mark.parametrize("name", ["smollm2", "gemma3"])
def test_shared_prefix_equals_full_passes(name):
    model, tok = load(parse_spec(f"local:{name}"))
    prefix = tok("Question: Which passage says where the Eiffel Tower stands? Passage 1 says Paris, "
                 "passage 2 says Rome. Answer:")["input_ids"]
    conts = [tok(c, add_special_tokens=False)["input_ids"] for c in [" Paris", " Rome, the capital of Italy", " 2"]]
    shared = shared_prefix_logprobs(model, prefix, conts, tok.pad_token_id)
    full = [span_logprobs(model, [prefix + c], [len(prefix)], tok.pad_token_id)[0] for c in conts]
    assert shared == pytest.approx(full, abs=2e-3)
    assert len(set(round(x, 3) for x in shared)) == 3  # three different numbers, not one copied
    assert shared[0] > shared[1]


@pytest.mark.model
def test_sliding_window_models_share_only_inside_the_window():
    gemma, _ = load(parse_spec("local:gemma3"))
    smol, _ = load(parse_spec("local:smollm2"))
    assert can_share_prefix(gemma, 400, 100) and not can_share_prefix(gemma, 500, 100)
    assert can_share_prefix(smol, 5000, 100)
