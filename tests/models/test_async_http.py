"""The server client of async_http.py: requests in flight are coroutines on one event loop thread (not a
thread each), the openai client's retry rules, proxies from the environment, slow start of an adaptive
limit; against the real HTTP server of tests/fake_openai.py where requests are sent."""
import threading
import time

import pytest

from lib.models import Request, get_model
from lib.models.backends import async_http
from lib.models.backends.async_http import backoff, env_proxy, retry_after, should_retry
from lib.models.backends.inflight import ENV, InFlightLimit
from tests.fake_openai import FakeOpenAI


@pytest.fixture(autouse=True)
def no_run_concurrency(monkeypatch):
    monkeypatch.delenv(ENV, raising=False)


def client_threads() -> int:
    """Threads of this process but the fake server's (one per connection, in this process here)."""
    return sum("process_request_thread" not in t.name for t in threading.enumerate())


def test_requests_in_flight_are_not_threads():
    # 48 in flight at the server while the client runs no more threads than before plus the caller's
    with FakeOpenAI(delay=0.4) as srv:
        model = get_model(f"openai:fake-model@{srv.url};concurrency:48")
        model.check()  # the event loop thread exists from here on
        before = client_threads()
        seen = []
        worker = threading.Thread(target=lambda: model.generate(
            [Request(messages=[{"role": "user", "content": f"threads {i}"}], max_tokens=4) for i in range(96)]))
        worker.start()
        while worker.is_alive():
            seen.append(client_threads())
            time.sleep(0.02)
        assert srv.max_in_flight == 48 and srv.calls == 96
        # the caller's thread and tqdm's monitor at most, not 48 more
        assert max(seen) <= before + 2, (before, max(seen))


def test_retry_rules_are_the_openai_clients():
    assert all(should_retry(s, {}) for s in (408, 409, 429, 500, 503))
    assert not any(should_retry(s, {}) for s in (400, 401, 404, 422))
    assert not should_retry(503, {"x-should-retry": "false"}) and should_retry(400, {"x-should-retry": "true"})
    assert not should_retry(429, {"retry-after": "121"})  # a server asking more than 2 minutes: give up
    assert retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert 59 < retry_after({"retry-after": time.strftime("%a, %d %b %Y %H:%M:%S GMT",
                                                          time.gmtime(time.time() + 60))}) <= 61
    assert backoff(0, {"retry-after": "0.05"}) == 0.05
    for attempt, top in ((0, 0.5), (1, 1.0), (3, 4.0), (10, 8.0)):  # 0.5 s x 2^attempt, at most 8, minus <= 25%
        waits = [backoff(attempt) for _ in range(200)]
        assert 0.75 * top <= min(waits) and max(waits) <= top and max(waits) - min(waits) > 0.1 * top


def test_proxies_come_from_the_environment_once(monkeypatch):
    monkeypatch.setenv("https_proxy", "http://proxy.example:3128")
    monkeypatch.setenv("no_proxy", "localhost,127.0.0.1")
    assert env_proxy("https://api.openai.com/v1") == "http://proxy.example:3128"
    assert env_proxy("http://127.0.0.1:8000/v1") is None and env_proxy("http://localhost:8000/v1") is None


def test_slow_start_doubles_per_window_until_the_first_429():
    limit = InFlightLimit(32, adaptive=True, start=4)
    assert limit.limit == 4
    for _ in range(4):
        limit.observe(200, 0)
    assert limit.limit == 8  # one window of successes doubled it
    limit.observe(429, 0)
    assert limit.limit == 4 and not limit.slow_start  # halved, and from now on +1 per window
    for _ in range(4):
        limit.observe(200, 1)
    assert 4.9 < limit.limit <= 5.0
    assert InFlightLimit(32, adaptive=False, start=4).limit == 32  # a fixed ceiling never ramps


def test_a_failure_other_than_the_servers_stops_the_batch_and_is_raised():
    with FakeOpenAI() as srv:
        backend = get_model(f"openai:fake-model@{srv.url};concurrency:4").backend

        async def job(i):
            if i == 3:
                raise KeyError("a reply without choices")
            return i

        got = []
        with pytest.raises(KeyError, match="without choices"):
            backend._map(job, list(range(8)), lambda i, r: got.append(r), None)
        assert 3 not in got


def test_a_blocking_call_from_the_loop_thread_is_refused():
    with FakeOpenAI() as srv:
        backend = get_model(f"openai:fake-model@{srv.url}").backend
        backend.check()

        async def nested():
            return backend._call("/chat/completions", {"model": "fake-model", "messages": []})

        with pytest.raises(RuntimeError, match="wait forever"):
            backend.session.run(nested())
        assert async_http._Loop.thread.is_alive()
