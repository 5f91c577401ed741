"""The OpenAI-compatible backend (the `openai` client) against a real HTTP server on 127.0.0.1."""
import time

import pytest

from lib.models import cache
from lib.models.backends.openai_api import BackendError, OpenAIBackend
from lib.models.backends.server_logprobs import PROBE_TEXT
from lib.models.cache_keys import make_key
from lib.models import CachedModel, LikelihoodUnavailable, Request, get_model
from lib.models.specs import parse_spec
from tests.fake_openai import FakeOpenAI


def model_for(server, **options):
    spec = parse_spec(f"openai:fake-model@{server.url}")
    return CachedModel(spec, OpenAIBackend(spec, **options))


def reqs(n, **kw):
    return [Request(messages=[{"role": "user", "content": f"question {i}"}], **kw) for i in range(n)]


def test_batch_order_cache_and_zero_calls_on_rerun():
    with FakeOpenAI() as srv:
        m = model_for(srv)
        out = m.generate(reqs(6))
        assert [o.text.split(" (")[0] for o in out] == [f"echo: question {i}" for i in range(6)]
        assert srv.calls == 6 and not any(o.cached for o in out)
        again = m.generate(reqs(6))
        assert srv.calls == 6, "a re-run must make zero model calls"
        assert all(o.cached for o in again) and [o.text for o in again] == [o.text for o in out]
        assert cache.cache_stats()["hits"] == 6 and cache.cache_stats()["misses"] == 6
        m.generate(reqs(6, temperature=0.5))  # a changed parameter makes new calls
        assert srv.calls == 12


def test_the_same_request_twice_in_one_batch_is_asked_once():
    """Items with one cache key in a batch: one call (the cache keeps one result per key, so a second
    call could only be overwritten); both get that reply, the repeat as a cache hit."""
    with FakeOpenAI() as srv:
        m = model_for(srv)
        batch = reqs(3) + reqs(3) + reqs(1)  # questions 0, 1, 2, then 0, 1, 2 and 0 again
        out = m.generate(batch)
        assert srv.calls == 3
        assert [o.text for o in out[3:6]] == [o.text for o in out[:3]] and out[6].text == out[0].text
        assert not any(o.cached for o in out[:3]) and all(o.cached for o in out[3:])
        assert cache.cache_stats()["misses"] == 3 and cache.cache_stats()["hits"] == 4
        again = m.generate(batch)  # a re-run reads the same replies
        assert srv.calls == 3 and [o.text for o in again] == [o.text for o in out]


def test_requests_run_concurrently_within_the_worker_bound():
    with FakeOpenAI(delay=0.3) as srv:
        m = model_for(srv, workers=4)
        t0 = time.perf_counter()
        m.generate(reqs(8))
        elapsed = time.perf_counter() - t0
        assert srv.max_in_flight == 4
        assert elapsed < 8 * 0.3 * 0.75  # clearly better than one at a time


@pytest.mark.parametrize("status", [429, 500, 503])
def test_retries_transient_errors_honouring_retry_after(status):
    with FakeOpenAI(fail_first=2, fail_status=status, retry_after=0.05) as srv:
        m = model_for(srv)
        out = m.generate(reqs(3))
        assert all(o.text.startswith("echo") for o in out)
        assert all(n == 3 for n in srv.attempts.values())
        for times in srv.attempt_times.values():  # waited what the server asked, not the default backoff
            gaps = [b - a for a, b in zip(times, times[1:])]
            assert all(0.04 <= g < 0.37 for g in gaps), gaps  # the default backoff would wait >= 0.375 s


def test_backoff_is_exponential_with_jitter_without_retry_after():
    with FakeOpenAI(fail_first=2, fail_status=503) as srv:
        model_for(srv).generate(reqs(1))
        t = srv.attempt_times["question 0"]
        first, second = t[1] - t[0], t[2] - t[1]
        # the client's backoff: 0.5 s then 1 s, each shortened by up to 25% of random jitter
        assert 0.37 <= first < 1.5 and 0.74 <= second < 2.5, (first, second)  # upper bounds allow a busy CPU


def test_gives_up_after_max_retries_with_a_clear_error():
    with FakeOpenAI(fail_first=10, fail_status=500, retry_after=0.01) as srv:
        m = model_for(srv, max_retries=2)
        with pytest.raises(BackendError, match="after 2 retries"):
            m.generate(reqs(1))
        assert srv.attempts["question 0"] == 3


def test_timeout_is_retried_then_reported():
    with FakeOpenAI(delay=0.5) as srv:
        m = model_for(srv, max_retries=1, timeout=0.1)
        with pytest.raises(BackendError, match="APITimeoutError"):
            m.generate(reqs(1))
        time.sleep(0.6)
        assert srv.attempts["question 0"] == 2


def test_interrupted_batch_resumes_from_cache():
    batch = reqs(5)
    with FakeOpenAI(broken_prompts=("question 3",)) as srv:
        m = model_for(srv)
        with pytest.raises(BackendError, match="1 of 5 requests failed"):
            m.generate(batch)
        assert srv.calls == 4
    with FakeOpenAI() as srv2:  # the server is fixed; same model identity requires the same URL
        m2 = model_for(srv2)
        keys = [make_key("generate", m.spec.key, r.as_dict()) for r in batch]
        assert sum(k in cache.results_cache() for k in keys) == 4
        store = cache.results_cache()
        for r in batch:  # copy finished results under the new server's key, as a stand-in for restart
            old = store.get(make_key("generate", m.spec.key, r.as_dict()))
            if old is not None:
                store.set(make_key("generate", m2.spec.key, r.as_dict()), old)
        out = m2.generate(batch)
        assert srv2.calls == 1, "only the unfinished request is sent again"
        assert sum(o.cached for o in out) == 4


def test_logprobs_parsed_and_missing_ones_reported_not_faked():
    with FakeOpenAI() as srv:
        out = model_for(srv).generate(reqs(1, logprobs=2))[0]
        assert out.top_logprobs == [{"echo": -0.1, "x": -2.5}]
    with FakeOpenAI(logprobs=False) as srv:
        with pytest.warns(UserWarning, match="no log-probabilities"):
            out = model_for(srv).generate(reqs(1, logprobs=2))[0]
        assert out.top_logprobs is None


def test_raw_prompts_use_completions_with_legacy_logprobs():
    with FakeOpenAI() as srv:
        out = model_for(srv).generate([Request(prompt="The sky is", logprobs=2, max_tokens=4)])[0]
        assert out.text.startswith(" continued") and out.top_logprobs == [{"continued": -0.3, "stop": -1.9}]
        assert srv.bodies[-1]["max_tokens"] == 4 and "messages" not in srv.bodies[-1]


def test_loglikelihood_through_echo():
    with FakeOpenAI() as srv:
        m = model_for(srv)
        ll = m.loglikelihood([("The capital of France is", " Paris and more")])[0]
        assert (ll.logprob, ll.n_tokens) == (-1.5, 3)  # " Paris", "and", "more" at -0.5 each
        body = srv.bodies[-1]
        assert body["echo"] is True and body["max_tokens"] == 1  # the generated token is not counted
        assert srv.bodies[0]["prompt"] == PROBE_TEXT  # the server was probed first, once
        assert m.loglikelihood([("The capital of France is", " Paris and more")])[0].cached
    with FakeOpenAI(logprobs=False) as srv:
        with pytest.raises(LikelihoodUnavailable, match="no prompt log-probabilities with echo"):
            model_for(srv).loglikelihood([("a b", " c")])


def test_openai_itself_gets_max_completion_tokens():
    backend = OpenAIBackend(parse_spec("openai:gpt-5-mini"))
    payload = backend._payload(Request(messages=[{"role": "user", "content": "hi"}], max_tokens=7))
    assert payload["max_completion_tokens"] == 7 and "max_tokens" not in payload
    local = OpenAIBackend(parse_spec("openai:m@http://127.0.0.1:8000/v1"))
    assert local._payload(Request(messages=[{"role": "user", "content": "hi"}], max_tokens=7))["max_tokens"] == 7


def test_server_refusing_max_tokens_gets_the_newer_name():
    with FakeOpenAI(refuse=("max_tokens",)) as srv:
        out = model_for(srv).generate(reqs(2, max_tokens=9))
        assert all(o.text.startswith("echo") for o in out)
        assert srv.bodies[-1]["max_completion_tokens"] == 9 and "max_tokens" not in srv.bodies[-1]


def test_refused_sampling_parameter_is_named_in_the_error():
    with FakeOpenAI(refuse=("temperature",)) as srv:
        with pytest.raises(BackendError, match="refused the parameter 'temperature' \\(sent temperature=0.7\\)"):
            model_for(srv).generate(reqs(1, temperature=0.7))
        assert srv.attempts["question 0"] == 1, "a refused parameter is not retried"


def test_unreachable_server_fails_before_work():
    m = get_model("openai:some-model@http://127.0.0.1:9/v1")
    with pytest.raises(BackendError, match="unreachable"):
        m.generate(reqs(1))


def test_openai_key_never_goes_to_another_server(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-secret")
    monkeypatch.delenv("RAGBIAS_API_KEY", raising=False)
    with FakeOpenAI() as srv:
        model_for(srv).generate(reqs(2))
        assert srv.auth_headers and not any("sk-openai-secret" in h for h in srv.auth_headers)


def test_api_key_sent_from_env_and_never_cached(monkeypatch, fresh_cache):
    monkeypatch.setenv("RAGBIAS_API_KEY", "sk-test-secret-123")
    with FakeOpenAI() as srv:
        model_for(srv).generate(reqs(2))
        assert srv.auth_headers and all(h == "Bearer sk-test-secret-123" for h in srv.auth_headers)
    cache.close_all()
    for f in fresh_cache.rglob("*"):
        if f.is_file():
            assert b"sk-test-secret-123" not in f.read_bytes()
