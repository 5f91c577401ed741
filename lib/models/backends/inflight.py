"""How many requests a server backend keeps in flight: a fixed ceiling, or (the OpenAI API) AIMD,
the limit halved on HTTP 429 and grown back by one per window of successes, as TCP does."""
from __future__ import annotations

import ipaddress
import os
import threading
from urllib.parse import urlparse

ENV = "RAGBIAS_CONCURRENCY"  # the run parameter `concurrency` reaches every kernel through this
LOOPBACK_DEFAULT = 64  # a server on this machine (vLLM, llama.cpp, Ollama): it queues what it cannot run
SERVER_DEFAULT = 32    # another OpenAI-compatible server
OPENAI_DEFAULT = 16    # the OpenAI API: rate limits per key, so start lower and adapt
SLOW_START = 4  # where an adaptive limit starts when asked to ramp up (OpenAIBackend): a batch's first burst


def is_loopback(url: str | None) -> bool:
    """Whether a server URL names this machine (localhost, 127.0.0.0/8, ::1)."""
    host = urlparse(url or "").hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def default_concurrency(base_url: str | None, openai_api: bool) -> int:
    """In-flight ceiling when neither the spec nor the run names one: RAGBIAS_CONCURRENCY, else by server."""
    if os.environ.get(ENV):
        return env_concurrency()
    if openai_api:
        return OPENAI_DEFAULT
    return LOOPBACK_DEFAULT if is_loopback(base_url) else SERVER_DEFAULT


def env_concurrency() -> int:
    """RAGBIAS_CONCURRENCY as a whole number of at least 1 (an error naming it otherwise)."""
    text = os.environ.get(ENV, "")
    if not text.strip().isdigit() or int(text) < 1:
        raise ValueError(f"{ENV}={text!r}: concurrency must be a whole number of at least 1.")
    return int(text)


def set_run_concurrency(value) -> None:
    """The run parameter `concurrency`: checked, then put where every notebook kernel's get_model reads it."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"concurrency must be a whole number of at least 1 (requests in flight per server "
                         f"model), got {value!r}.")
    os.environ[ENV] = str(value)


class InFlightLimit:
    """A gate for requests: at most `limit` pass at once. Adaptive: a 429 halves the limit (once per
    round: 429s from requests let in before the cut do not cut again) and each success adds 1/limit,
    so a full window of successes grows it by one, up to `ceiling`. With `start`, an adaptive limit
    begins there and grows by one per success (doubling per window, TCP's slow start) until the first
    429: a batch's requests all start at once, and a full first burst at a rate-limited server would
    draw a 429 for nearly every request. Threads pass it with `with`; the asyncio client
    (async_http.py) with `try_enter` / `leave`, waiting on its own loop."""

    def __init__(self, ceiling: int, adaptive: bool = False, start: int | None = None):
        self.ceiling = max(1, int(ceiling))
        self.adaptive = adaptive
        self.slow_start = adaptive and start is not None and start < self.ceiling
        self.limit = float(max(1, int(start)) if self.slow_start else self.ceiling)
        self.in_flight = self.peak = self.cuts = 0
        self._round = 0
        self._cond = threading.Condition()
        self._mine = threading.local()

    def __enter__(self):
        with self._cond:
            self._cond.wait_for(lambda: self.in_flight < int(self.limit))
            self._mine.round = self._admit()
        return self

    def __exit__(self, *exc):
        self.leave()

    def _admit(self) -> int:
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        return self._round

    def try_enter(self) -> int | None:
        """Let one request in if there is room now (no waiting): the round it entered in, else None."""
        with self._cond:
            return self._admit() if self.in_flight < int(self.limit) else None

    def leave(self) -> None:
        """One request is done (after its retries)."""
        with self._cond:
            self.in_flight -= 1
            self._cond.notify_all()

    def observe(self, status: int, round_: int | None = None) -> None:
        """Feed one HTTP status seen by a request (retries included) that entered in `round_` (by
        default the calling thread's)."""
        if not self.adaptive:
            return
        with self._cond:
            entered = getattr(self._mine, "round", self._round) if round_ is None else round_
            if status == 429:
                if entered == self._round:
                    self.slow_start = False
                    self.limit = max(1.0, self.limit / 2)
                    self._round += 1
                    self.cuts += 1
            elif 200 <= status < 300:
                self.limit = min(float(self.ceiling), self.limit + (1.0 if self.slow_start else 1.0 / self.limit))
                self._cond.notify_all()
