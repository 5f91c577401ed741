"""Likelihood scoring (CachedModel.option_logprobs), per-request sampling seeds and the int8 option,
on the real embedded SmolLM2."""
import math

import pytest

from lib.models import cache
from lib.models import LikelihoodUnavailable, Request, get_model
from lib.models.specs import SpecError, parse_spec

pytestmark = pytest.mark.model
RATE = [{"role": "user", "content": "Rate how well this passage answers 'What is the capital of France?' "
                                    "from 1 to 5. Passage: Paris is the capital of France. Reply as ###<n>***"}]
DIGITS = ["1", "2", "3", "4", "5"]


def test_single_token_options_equal_loglikelihood_and_sum_below_one():
    m = get_model("local:smollm2")
    raw = "Question: Is the sky blue on a clear day? Answer (yes or no):"
    items = [(RATE, "###", DIGITS), (RATE, "", DIGITS), (raw, "", [" yes", " no"])]
    got = m.option_logprobs(items)
    assert [len(g) for g in got] == [5, 5, 2]
    ref = m.loglikelihood([(RATE, "###" + d) for d in DIGITS])
    ref_prefix = m.loglikelihood([(RATE, "###")])[0].logprob
    # log P(d | ctx + "###") = log P("###" d | ctx) - log P("###" | ctx) when "###" and d tokenize apart
    assert got[0] == pytest.approx([r.logprob - ref_prefix for r in ref], abs=1e-3)
    assert got[1] == pytest.approx([r.logprob for r in m.loglikelihood([(RATE, d) for d in DIGITS])], abs=1e-4)
    assert got[2] == pytest.approx([r.logprob for r in m.loglikelihood([(raw, " yes"), (raw, " no")])], abs=1e-4)
    for g in got:
        assert sum(math.exp(v) for v in g) <= 1 + 1e-6
    # the prefix matters: after '###' digits are likelier than at the start of the reply
    assert sum(math.exp(v) for v in got[0]) > sum(math.exp(v) for v in got[1])
    misses = cache.cache_stats()["misses"]
    assert m.option_logprobs(items) == got and cache.cache_stats()["misses"] == misses


def test_multi_token_options_fall_back_to_summed_continuations():
    m = get_model("local:smollm2")
    ctx = "The capital of France is"
    got = m.option_logprobs([(ctx, "", [" Paris", " Buenos Aires"])])[0]
    ref = m.loglikelihood([(ctx, " Paris"), (ctx, " Buenos Aires")])
    assert got == pytest.approx([r.logprob for r in ref], abs=1e-4)
    assert got[0] > got[1]
    with pytest.raises(ValueError, match="non-empty options"):
        m.option_logprobs([(ctx, "", [""])])


def test_servers_without_likelihoods_say_so(scripted_model):
    m = scripted_model(lambda text, request: "###4***", spec="openai:none@http://127.0.0.1:9/v1", likelihoods=False)
    assert not m.scores_options
    with pytest.raises(LikelihoodUnavailable, match="unavailable for this server"):
        m.option_logprobs([("ctx", "", ["a", "b"])])


def test_sampled_reply_does_not_depend_on_batch_mates():
    m = get_model("local:smollm2")
    ask = dict(max_tokens=16, temperature=1.0)
    target = Request(messages=[{"role": "user", "content": "Name a fruit and say why you like it."}], **ask)
    others = [Request(messages=[{"role": "user", "content": q}], **ask) for q in
              ["Write a long poem about the sea and its many moods.", "Hi", "List three colours."]]
    alone, batched = [], {}
    m.backend.generate([target], lambda i, r: alone.append(r.text))
    m.backend.generate(others[:2] + [target] + others[2:], lambda i, r: batched.__setitem__(i, r.text))
    assert alone[0] == batched[2]
    resample = []
    m.backend.generate([Request(messages=target.messages, sample=1, **ask)], lambda i, r: resample.append(r.text))
    assert resample[0] != alone[0]


def test_int8_spec_is_a_different_model_for_the_cache():
    assert parse_spec("local:smollm2;int8").key == "local:smollm2;int8"
    assert parse_spec(" local:smollm2 ; int8 ").quant == "int8"
    assert parse_spec("local:smollm2").key != parse_spec("local:smollm2;int8").key
    with pytest.raises(SpecError, match="int8"):
        parse_spec("local:smollm2;int4")
    q = get_model("local:smollm2;int8")
    out = q.chat("What is the capital of France?", max_tokens=8)
    assert "paris" in out.text.lower()
    assert "quantized.dynamic" in type(q.backend.model.get_output_embeddings()).__module__


def test_request_seed_depends_on_the_whole_request_not_only_the_sample_index():
    from lib.models.backends.transformers_lm import request_seed
    from lib.models import Request

    def req(text, sample, **kw):
        return Request(messages=[{"role": "user", "content": text}], temperature=1.0, sample=sample, **kw)
    # the same request always gets the same seed (so a reply does not depend on its batch)
    assert request_seed(req("Who wrote Emma?", 2)) == request_seed(req("Who wrote Emma?", 2))
    # two questions asked with the same sample index must not share one random stream
    assert request_seed(req("Who wrote Emma?", 2)) != request_seed(req("Who painted the Night Watch?", 2))
    assert request_seed(req("Who wrote Emma?", 2)) != request_seed(req("Who wrote Emma?", 3))
    assert request_seed(req("Who wrote Emma?", 2)) != request_seed(req("Who wrote Emma?", 2, seed=1))


def test_cache_hits_never_build_the_backend(scripted_model):
    from lib.models import CachedModel
    from lib.models.backends import DECLARED

    items = [("The capital of France is", "", [" Paris", " Rome"])]
    first = scripted_model(loglik=lambda text, cont: -1.0 if "Paris" in cont else -5.0)
    want = first.option_logprobs(items)

    def no_backend():
        raise AssertionError("a warm call built the backend (imports torch)")

    warm = CachedModel(first.spec, factory=no_backend, capabilities=DECLARED["local"])
    assert warm.scores_options
    assert warm.option_logprobs(items) == want == [[-1.0, -5.0]]
    with pytest.raises(AssertionError, match="built the backend"):
        warm.option_logprobs([("The capital of Italy is", "", [" Rome", " Paris"])])
