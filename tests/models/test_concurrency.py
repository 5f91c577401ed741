"""Requests in flight: the spec option and the run parameter reach get_model (counted at a real
HTTP server on 127.0.0.1), defaults by server, and AIMD (halve on 429, grow back) on the OpenAI API."""
import threading

import pytest

from lib import runner
from lib.models import Request, get_model
from lib.models.backends.inflight import (ENV, LOOPBACK_DEFAULT, OPENAI_DEFAULT, SERVER_DEFAULT, InFlightLimit,
                                          set_run_concurrency)
from lib.models.backends.openai_api import OpenAIBackend
from lib.models.specs import parse_spec
from tests.fake_openai import FakeOpenAI


def reqs(n, tag=""):
    return [Request(messages=[{"role": "user", "content": f"{tag} question {i}"}], max_tokens=4) for i in range(n)]


@pytest.fixture(autouse=True)
def no_run_concurrency(monkeypatch):
    monkeypatch.delenv(ENV, raising=False)


def test_the_spec_option_sets_how_many_the_server_sees_at_once():
    with FakeOpenAI(delay=0.2) as srv:
        model = get_model(f"openai:fake-model@{srv.url};concurrency:3")
        model.generate(reqs(12, "spec"))
        assert model.backend.workers == 3 and srv.max_in_flight == 3
        assert model.name == f"openai:fake-model@{srv.url}"  # not part of the cache key: same answers


def test_the_run_parameter_reaches_get_model_and_the_spec_option_wins(monkeypatch):
    with FakeOpenAI(delay=0.2) as srv:
        set_run_concurrency(5)  # what the runner does with -p concurrency=5
        model = get_model(f"openai:fake-model@{srv.url}")
        model.generate(reqs(15, "env"))
        assert srv.max_in_flight == 5
        assert get_model(f"openai:fake-model@{srv.url};concurrency:2").backend.workers == 2
    for bad in (0, "8", True):
        with pytest.raises(ValueError, match="whole number"):
            set_run_concurrency(bad)


def test_the_runner_takes_concurrency_as_a_run_parameter_and_still_refuses_typos():
    cfg = runner.load_config(runner.ROOT / "configs" / "smoke.yaml", overrides={"concurrency": 7})
    (_, eff), = runner.effective_parameters(cfg, runner.select_notebooks(cfg, ["00"]))
    assert "concurrency" not in eff  # a run parameter (an environment variable for the kernels), not a notebook's
    typo = runner.load_config(runner.ROOT / "configs" / "smoke.yaml", overrides={"concurency": 7})
    with pytest.raises(runner.ConfigError, match="concurency"):
        runner.effective_parameters(typo, runner.select_notebooks(typo, ["00"]))


def test_defaults_fit_the_server(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # nothing is sent: only the backend is built
    assert OpenAIBackend(parse_spec("openai:m@http://127.0.0.1:8000/v1")).workers == LOOPBACK_DEFAULT
    assert OpenAIBackend(parse_spec("openai:m@http://localhost:8000/v1")).workers == LOOPBACK_DEFAULT
    assert OpenAIBackend(parse_spec("openai:m@https://example.org/v1")).workers == SERVER_DEFAULT
    api = OpenAIBackend(parse_spec("openai:gpt-4o-mini"))
    assert api.workers == OPENAI_DEFAULT < SERVER_DEFAULT and api.limit.adaptive
    assert not OpenAIBackend(parse_spec("openai:m@http://127.0.0.1:8000/v1")).limit.adaptive


def test_aimd_halves_once_per_round_and_grows_back_by_one_per_window():
    limit = InFlightLimit(16, adaptive=True)
    all_in = threading.Barrier(8)

    def hold():
        with limit:
            all_in.wait(5)  # eight requests in flight together
            limit.observe(429)  # every request of the round saw a 429: one cut, not eight

    threads = [threading.Thread(target=hold) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert limit.cuts == 1 and limit.limit == 8
    cut_to = limit.limit
    with limit:
        limit.observe(429)  # a request let in after the cut: a new round, a new cut
    assert limit.limit == pytest.approx(max(1.0, cut_to / 2))
    low = limit.limit
    for _ in range(int(low)):  # one window of successes grows the limit by about one
        limit.observe(200)
    assert low + 0.9 < limit.limit <= low + 1.0
    for _ in range(1000):
        limit.observe(200)
    assert limit.limit == 16  # never past the ceiling


def test_aimd_backs_off_a_rate_limited_server_and_every_request_succeeds():
    # the server answers 429 past 4 in flight; the client starts at 32 and must back off, then grow back
    with FakeOpenAI(delay=0.1, capacity=4) as srv:
        model = get_model(f"openai:fake-model@{srv.url}", workers=32, adaptive=True, max_retries=10)
        out = model.generate(reqs(60, "aimd"))
        limit = model.backend.limit
        assert len(out) == 60 and srv.calls == 60 and srv.rate_limited > 0
        assert limit.cuts >= 2 and limit.limit < 32
        after_cuts = limit.limit
        srv.capacity = None  # the limit lifts: successes grow the in-flight limit back
        model.generate(reqs(60, "grow"))
        assert limit.limit > after_cuts


def test_without_aimd_the_same_server_rate_limits_far_more():
    # the check above can fail: a fixed 32 in flight against the same server draws many more 429s
    counts = {}
    for adaptive in (True, False):
        with FakeOpenAI(delay=0.1, capacity=4) as srv:
            model = get_model(f"openai:fake-model@{srv.url}", workers=32, adaptive=adaptive, max_retries=10)
            model.generate(reqs(40, f"cmp{adaptive}"))
            counts[adaptive] = srv.rate_limited
    assert counts[True] < counts[False] / 2, counts
