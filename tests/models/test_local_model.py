"""The real embedded models, end to end, on short inputs."""
import pytest

from lib.models import cache
from lib.models import Request, get_model
from lib.models.backends.transformers_lm import windows
from lib.models.perplexity import perplexity

pytestmark = pytest.mark.model
QUESTIONS = ["What is the capital of France?", "Who wrote Romeo and Juliet?", "What colour is the sky on a clear day?"]


def test_chat_model_batch_logprobs_and_cache():
    m = get_model("local:smollm2")
    reqs = [Request(messages=[{"role": "user", "content": q}], max_tokens=12, logprobs=3) for q in QUESTIONS]
    out = m.generate(reqs)
    assert len(out) == 3 and all(o.text.strip() for o in out)
    assert "paris" in out[0].text.lower()
    assert all(len(o.top_logprobs) == o.tokens_out and len(o.top_logprobs[0]) == 3 for o in out)
    assert all(lp <= 0 for o in out for step in o.top_logprobs for lp in step.values())
    before = cache.cache_stats()["misses"]
    again = m.generate(reqs)
    assert cache.cache_stats()["misses"] == before and all(o.cached for o in again)
    assert [o.text for o in again] == [o.text for o in out]


def test_batched_greedy_matches_one_at_a_time():
    m = get_model("local:smollm2")
    reqs = [Request(messages=[{"role": "user", "content": q}], max_tokens=8) for q in QUESTIONS]
    batched = [o.text for o in m.generate(reqs)]
    single = []
    for r in reqs:  # every row, alone: padding and batch width must not change a greedy reply
        m.backend.generate([r], lambda i, out: single.append(out.text))
    assert single == batched and len(set(batched)) == len(reqs)


def test_sampled_repeats_differ_by_sample_index():
    m = get_model("local:smollm2")
    reqs = [Request(messages=[{"role": "user", "content": "Name a fruit."}], max_tokens=8, temperature=1.0,
                    sample=i) for i in range(4)]
    texts = [o.text for o in m.generate(reqs)]
    assert len(texts) == 4 and cache.cache_stats()["misses"] == 4
    # each sample index is its own draw: at temperature 1 the four replies are not all the same
    assert len(set(texts)) > 1, texts
    assert m.generate(reqs[:1])[0].cached


def test_loglikelihood_prefers_the_true_continuation():
    m = get_model("local:smollm2")
    paris, berlin = m.loglikelihood([("The capital of France is", " Paris"), ("The capital of France is", " Berlin")])
    assert paris.logprob > berlin.logprob and paris.n_tokens >= 1
    chat_ctx = [{"role": "user", "content": "What is the capital of France?"}]
    a, b = m.loglikelihood([(chat_ctx, "The capital of France is Paris."), (chat_ctx, "The capital of France is Rome.")])
    assert a.logprob > b.logprob and a.mean < 0


def test_base_model_needs_raw_prompts():
    g = get_model("local:gemma3")
    assert g.complete("The capital of France is", max_tokens=4).tokens_out > 0
    with pytest.raises(ValueError, match="no chat template"):
        g.chat("hello", max_tokens=2)


def test_perplexity_real_model_windows_and_cache():
    texts = ["Canberra was chosen as the capital of Australia as a compromise between Sydney and Melbourne.",
             "Melbourne compromise Canberra as between the was and of capital Australia chosen Sydney a as."]
    fluent, shuffled = perplexity(texts, model="local:gemma3")
    assert 1 < fluent < shuffled
    # a window larger than the text changes nothing; a short window scores with less context
    same = perplexity(texts[:1], model="local:gemma3", stride=256, max_length=512)[0]
    assert same == pytest.approx(fluent, rel=1e-4)
    short = perplexity(texts[:1], model="local:gemma3", stride=4, max_length=8)[0]
    assert short != pytest.approx(fluent, rel=1e-3)
    misses = cache.cache_stats()["misses"]
    assert perplexity(texts, model="local:gemma3") == [fluent, shuffled]
    assert cache.cache_stats()["misses"] == misses
    with pytest.raises(ValueError, match="empty"):
        perplexity([""], model="local:gemma3")


def test_perplexity_is_the_windows_scored_one_by_one_and_a_warm_run_loads_no_model(monkeypatch):
    import math

    from lib.models import registry
    from lib.models.backends import transformers_lm
    from lib.models.specs import parse_spec

    texts = ["The Danube flows through ten countries before it reaches the Black Sea in Romania.",
             "Short text."]
    got = perplexity(texts, model="local:gemma3", stride=6, max_length=10)
    lm, tok = transformers_lm.load(parse_spec("local:gemma3"))
    for text, ppl in zip(texts, got):  # the recipe by hand: one window at a time, no batching
        nll = n = 0
        for w, skip in windows(tok(text)["input_ids"], 10, 6):
            nll -= transformers_lm.span_logprobs(lm, [w], [max(skip, 1)], tok.pad_token_id)[0]
            n += len(w) - max(skip, 1)
        assert ppl == pytest.approx(math.exp(nll / n), rel=1e-4)
    # warm: a fresh process state (no model objects, no loaded weights) answers from the cache alone
    monkeypatch.setattr(registry, "_models", {})
    monkeypatch.setattr(transformers_lm, "_loaded", {})
    misses = cache.cache_stats()["misses"]
    assert perplexity(texts, model="local:gemma3", stride=6, max_length=10) == got
    assert cache.cache_stats()["misses"] == misses
    assert transformers_lm._loaded == {} and not get_model("local:gemma3").built


def test_windows_cover_every_token_once():
    ids = list(range(23))
    scored = []
    for w, skip in windows(ids, 8, 5):
        scored.extend(w[max(skip, 1):] if not scored else w[skip:])
    assert scored == ids[1:]
