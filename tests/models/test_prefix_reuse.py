"""Prefix reuse in the local backend against full passes, on the real embedded models: the same greedy
replies, log-probabilities within the shared-prefix tolerance, and fewer prompt positions computed."""
import pytest

from lib.models import Request
from lib.models.backends import transformers_lm
from lib.models.backends.transformers_lm import TransformersBackend
from lib.models.specs import parse_spec
from lib.prompts import self_preference as sp

pytestmark = pytest.mark.model
PASSAGES = [
    ("What is the capital of France?", "Paris is the capital and largest city of France, on the Seine."),
    ("What is the capital of France?", "Lyon is a city in France, known for its food and silk weaving."),
    ("Who wrote Romeo and Juliet?", "Romeo and Juliet is a tragedy written by William Shakespeare."),
    ("What colour is the sky on a clear day?", "On a clear day the sky looks blue because air scatters blue light."),
]


def _messages():
    return [[{"role": "user", "content": sp.pointwise_rag_prompt(q, p)}] for q, p in PASSAGES]


def _both(monkeypatch, run):
    """run() with prefix reuse, then without; and the positions each computed."""
    out = {}
    for reuse in (True, False):
        monkeypatch.setattr(transformers_lm, "REUSE_PREFIXES", reuse)
        transformers_lm.PREFILL_STATS.clear()
        out[reuse] = (run(), dict(transformers_lm.PREFILL_STATS))
    return out[True], out[False]


@pytest.mark.parametrize("name", ["smollm2", "gemma3"])
def test_generation_with_a_shared_prefix_equals_full_passes(name, monkeypatch):
    backend = TransformersBackend(parse_spec(f"local:{name}"))
    # gemma3 here is a base LM (and has sliding-window layers): raw prompts
    reqs = [Request(messages=m, max_tokens=8, logprobs=3) if name == "smollm2" else
            Request(prompt=m[0]["content"], max_tokens=8, logprobs=3) for m in _messages()]

    def run():
        got = {}
        backend.generate(reqs, lambda i, r: got.__setitem__(i, r))
        return [got[i] for i in range(len(reqs))]

    (shared, stats_on), (full, stats_off) = _both(monkeypatch, run)
    assert [r.text for r in shared] == [r.text for r in full]
    assert [r.tokens_in for r in shared] == [r.tokens_in for r in full]
    for a, b in zip(shared, full):
        for tok, lp in b.top_logprobs[0].items():
            assert a.top_logprobs[0][tok] == pytest.approx(lp, abs=2e-3)
    # the instruction (about 100 tokens) ran once, not four times
    assert stats_on["requested"] == stats_off["requested"]
    assert stats_on["computed"] <= stats_off["computed"] - 2 * 90


def test_option_scores_with_a_shared_prefix_equal_full_passes(monkeypatch):
    backend = TransformersBackend(parse_spec("local:smollm2"))
    items = [(m, "###", ["1", "2", "3", "4", "5"]) for m in _messages()]

    def run():
        got = {}
        backend.option_logprobs(items, lambda i, r: got.__setitem__(i, list(r.logprobs)))
        return [got[i] for i in range(len(items))]

    (shared, stats_on), (full, stats_off) = _both(monkeypatch, run)
    for a, b in zip(shared, full):
        assert a == pytest.approx(b, abs=2e-3)
    assert shared[0] != pytest.approx(shared[2], abs=1e-3)  # different prompts, different numbers
    assert stats_on["computed"] < 0.75 * stats_off["computed"]


def test_likelihoods_of_several_contexts_with_a_shared_prefix_equal_full_passes(monkeypatch):
    backend = TransformersBackend(parse_spec("local:smollm2"))
    pairs = [(m, cont) for m, (q, p) in zip(_messages(), PASSAGES) for cont in (" ###3***", " " + p.split()[0])]

    def run():
        got = {}
        backend.loglikelihood(pairs, lambda i, r: got.__setitem__(i, r.logprob))
        return [got[i] for i in range(len(pairs))]

    (shared, stats_on), (full, _) = _both(monkeypatch, run)
    assert shared == pytest.approx(full, abs=2e-3)
    assert stats_on["computed"] < stats_on["requested"]


def test_groups_that_share_a_first_passage_equal_full_passes(monkeypatch):
    """Generation-phase prompts of one question: pairs with the same first passage form groups past the
    shared instruction and question (two levels of reuse); replies and likelihoods as full passes."""
    backend = TransformersBackend(parse_spec("local:smollm2"))
    q = PASSAGES[0][0]
    true = ("Paris is the capital and largest city of France. It stands on the Seine in the north of the "
            "country and has been the seat of the French government for most of the last thousand years.")
    false = ("Marseille is the capital of France, according to this passage. The port city on the Mediterranean "
             "coast is said here to hold the parliament, the ministries and the president's residence.")
    other = PASSAGES[1][1]
    pairs = [(true, other), (true, false), (false, other), (false, true), (other, true), (other, false)]
    msgs = [[{"role": "user", "content": sp.generation_phase_prompt(q, a, b)}] for a, b in pairs]
    ids = [backend._context_ids(m) for m in msgs]
    lay = transformers_lm.layout(ids, [len(s) - 1 for s in ids])
    assert lay.root and sorted(len(rows) for rows, _ in lay.groups) == [2, 2, 2]  # one per first passage
    reqs = [Request(messages=m, max_tokens=8, logprobs=2) for m in msgs]
    work = [(m, cont) for m in msgs for cont in (" Paris", " Marseille")]

    def run():
        got, lik = {}, {}
        backend.generate(reqs, lambda i, r: got.__setitem__(i, r))
        backend.loglikelihood(work, lambda i, r: lik.__setitem__(i, r.logprob))
        return [got[i] for i in range(len(reqs))], [lik[i] for i in range(len(work))]

    ((replies, liks), stats_on), ((full_replies, full_liks), stats_off) = _both(monkeypatch, run)
    assert [r.text for r in replies] == [r.text for r in full_replies]
    for a, b in zip(replies, full_replies):
        for tok, lp in b.top_logprobs[0].items():
            assert a.top_logprobs[0][tok] == pytest.approx(lp, abs=2e-3)
    assert liks == pytest.approx(full_liks, abs=2e-3)
    assert liks[0] > liks[1]  # the first prompt's passages both say Paris
    assert stats_on["computed"] < 0.7 * stats_off["computed"]
