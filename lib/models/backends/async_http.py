"""HTTP for server backends: one asyncio event loop thread per process and one aiohttp session per
backend, so requests in flight are coroutines, not threads. A thread per request in flight (the openai
client's sync API) cost the client about 2 ms of CPU per request at 256 in flight, mostly the client's
per-request work and GIL hand-offs between 256 threads; here it is about 0.3 ms (docs/benchmarks.md).

Retries follow the openai client's policy, so behaviour is unchanged: 408 / 409 / 429 / 5xx, connection
errors and timeouts are retried up to `max_retries` times, waiting what `Retry-After` (or
`Retry-After-Ms`) asks when it is at most 2 minutes, else 0.5 s x 2^attempt (at most 8 s) shortened
by up to 25% of random jitter; `x-should-retry` decides when the server sends it. Every status seen,
retries included, is fed to the backend's in-flight limit (AIMD on HTTP 429, inflight.py).
"""
from __future__ import annotations

import asyncio
import atexit
import email.utils
import json
import math
import os
import random
import threading
import time
import urllib.parse
import urllib.request

import aiohttp

from .inflight import InFlightLimit

INITIAL_RETRY_DELAY, MAX_RETRY_DELAY, MAX_RETRY_AFTER = 0.5, 8.0, 120.0


class HTTPStatusError(RuntimeError):
    """A reply with an error status, after retries (or one that retrying cannot fix): the status, the
    body (JSON when it is), the server's message and the parameter it names, if any."""

    def __init__(self, status: int, text: str):
        try:
            body = json.loads(text)
        except ValueError:
            body = text
        error = body.get("error", body) if isinstance(body, dict) else None
        said = error.get("message") if isinstance(error, dict) else None
        said = said if isinstance(said, str) and said else (text.strip()[:500] if not isinstance(body, dict) else "")
        self.status_code, self.body = status, body
        self.message = f"Error code: {status}" + (f" - {said}" if said else "")
        self.param = error.get("param") if isinstance(error, dict) and isinstance(error.get("param"), str) else None
        super().__init__(self.message)


class RequestFailed(RuntimeError):
    """No reply after retries; the class name says why (the names the openai client gives them)."""


class APITimeoutError(RequestFailed):
    """The server did not answer within the timeout."""


class APIConnectionError(RequestFailed):
    """The server could not be reached, or dropped the connection."""


def env_proxy(url: str) -> str | None:
    """The proxy the environment names for this URL (HTTP(S)_PROXY, NO_PROXY), or None."""
    parts = urllib.parse.urlparse(url)
    if not parts.hostname or urllib.request.proxy_bypass(parts.hostname):
        return None
    return urllib.request.getproxies().get(parts.scheme)


def retry_after(headers) -> float | None:
    """Seconds the server asks to wait (Retry-After-Ms, Retry-After as seconds or an HTTP date), or None."""
    for name, divisor in (("retry-after-ms", 1000), ("retry-after", 1)):
        value = headers.get(name)
        if value is not None:
            try:
                return float(value) / divisor
            except ValueError:
                pass
    when = email.utils.parsedate_tz(headers.get("retry-after") or "")
    return None if when is None else email.utils.mktime_tz(when) - time.time()


def should_retry(status: int, headers) -> bool:
    """Whether a reply with this status is worth sending again (the openai client's rule)."""
    wait = retry_after(headers)
    if wait is not None and math.isfinite(wait) and wait > MAX_RETRY_AFTER:
        return False
    told = headers.get("x-should-retry")
    if told in ("true", "false"):
        return told == "true"
    return status in (408, 409, 429) or status >= 500


def backoff(attempt: int, headers=None) -> float:
    """Seconds to wait before retry number `attempt` + 1: the server's Retry-After when it is
    reasonable, else exponential backoff with jitter."""
    wait = retry_after(headers) if headers is not None else None
    if wait is not None and math.isfinite(wait) and 0 < wait <= MAX_RETRY_AFTER:
        return wait
    return min(INITIAL_RETRY_DELAY * 2.0 ** min(attempt, 1000), MAX_RETRY_DELAY) * (1 - 0.25 * random.random())


class _Loop:
    """The process's event loop thread, started on first use (again after a fork)."""

    _lock = threading.Lock()
    loop: asyncio.AbstractEventLoop | None = None
    thread: threading.Thread | None = None
    pid = 0

    @classmethod
    def get(cls) -> asyncio.AbstractEventLoop:
        with cls._lock:
            if cls.loop is None or cls.pid != os.getpid():
                cls.loop, cls.pid = asyncio.new_event_loop(), os.getpid()
                cls.thread = threading.Thread(target=cls.loop.run_forever, name="server-http", daemon=True)
                cls.thread.start()
            return cls.loop


class ServerSession:
    """Requests to one server: JSON over HTTP with the server's key, at most `limit` in flight, each
    retried as the module says. Blocking calls (`post`, `get`, `map`) may come from any thread but
    the loop's own."""

    def __init__(self, base_url: str, api_key: str, limit: InFlightLimit, max_retries: int, timeout: float):
        self.base_url = base_url.rstrip("/")
        self.headers = {"Authorization": f"Bearer {api_key}", "Content-Type": "application/json"}
        self.limit, self.max_retries, self.timeout = limit, max_retries, timeout
        self._session: aiohttp.ClientSession | None = None
        self._room: asyncio.Condition | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._proxy: str | None = None

    def run(self, coro):
        """Run a coroutine of this session on the event loop and wait for its result."""
        loop = _Loop.get()
        if threading.current_thread() is _Loop.thread:
            coro.close()
            raise RuntimeError("a blocking server call from the event loop's own thread would wait forever")
        return asyncio.run_coroutine_threadsafe(coro, loop).result()

    async def _ready(self) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        if self._session is None or self._loop is not loop:
            # one kept-alive connection per request in flight, and a few spare for connections closing
            conn = aiohttp.TCPConnector(limit=self.limit.ceiling + 16, limit_per_host=0)
            # proxies from the environment once per session, as the openai client honoured them; aiohttp's
            # trust_env would look them (and ~/.netrc) up in a worker thread for every request
            self._proxy = env_proxy(self.base_url)
            self._session = aiohttp.ClientSession(connector=conn, headers=self.headers)
            self._room, self._loop = asyncio.Condition(), loop
            atexit.register(_close_at_exit, self)
        return self._session

    async def _enter(self) -> int:
        """Wait for room under the in-flight limit; the round this request entered in."""
        async with self._room:
            while (entered := self.limit.try_enter()) is None:
                await self._room.wait()
            return entered

    async def _leave(self, n: int = 1) -> None:
        self.limit.leave()
        async with self._room:
            self._room.notify(n)

    async def request(self, method: str, path: str, payload: dict | None = None, max_retries: int | None = None,
                      timeout: float | None = None) -> dict:
        """One request with retries, inside the in-flight limit; the reply's JSON."""
        session = await self._ready()
        retries = self.max_retries if max_retries is None else max_retries
        seconds = self.timeout if timeout is None else timeout
        limits = aiohttp.ClientTimeout(total=None, sock_connect=seconds, sock_read=seconds)
        data = None if payload is None else json.dumps(payload)
        for attempt in range(retries + 1):
            # the gate is passed per attempt, not held while backing off: after a 429 has cut the limit,
            # retries too wait for room under the new limit (each retry then belongs to the new round)
            entered = await self._enter()
            try:
                async with session.request(method, self.base_url + path, data=data, timeout=limits,
                                           proxy=self._proxy) as resp:
                    text = (await resp.read()).decode("utf-8", "replace")
                    before = int(self.limit.limit)
                    self.limit.observe(resp.status, entered)
                    if int(self.limit.limit) > before:  # AIMD grew by a request: let one more in
                        async with self._room:
                            self._room.notify(1)
                    if resp.status < 400:
                        return json.loads(text)
                    if attempt == retries or not should_retry(resp.status, resp.headers):
                        raise HTTPStatusError(resp.status, text)
                    wait = backoff(attempt, resp.headers)
            except asyncio.TimeoutError as e:
                if attempt == retries:
                    raise APITimeoutError(f"no reply within {seconds} s") from e
                wait = backoff(attempt)
            except (aiohttp.ClientConnectionError, aiohttp.ClientPayloadError) as e:
                if attempt == retries:
                    raise APIConnectionError(str(e) or e.__class__.__name__) from e
                wait = backoff(attempt)
            finally:
                await self._leave()
            await asyncio.sleep(wait)

    def post(self, path: str, payload: dict, **options) -> dict:
        """POST JSON, wait for the reply's JSON (retried; errors as HTTPStatusError / RequestFailed)."""
        return self.run(self.request("POST", path, payload, **options))

    def get(self, path: str, **options) -> dict:
        """GET, wait for the reply's JSON."""
        return self.run(self.request("GET", path, None, **options))

    def map(self, job, items: list):
        """Run `await job(item)` for every item, as many at once as the in-flight limit lets in; yields
        (index, result or exception) on the calling thread in the order they finish."""
        import queue

        done: queue.SimpleQueue = queue.SimpleQueue()
        workers = min(self.limit.ceiling, len(items))

        async def worker(todo):
            for i in todo:
                try:
                    done.put((i, await job(items[i])))
                except Exception as e:  # handed to the caller, who decides
                    done.put((i, e))

        async def run_all():
            await self._ready()
            todo = iter(range(len(items)))  # shared: each worker takes the next item
            await asyncio.gather(*(worker(todo) for _ in range(workers)))

        running = asyncio.run_coroutine_threadsafe(run_all(), _Loop.get())
        try:
            for _ in range(len(items)):
                yield done.get()
        finally:
            running.cancel()  # the caller stopped early: nothing more is sent


def _close_at_exit(session: ServerSession) -> None:
    """Close a session's connections when the interpreter exits (no 'unclosed session' warnings)."""
    loop = _Loop.loop
    if session._session is not None and loop is not None and loop.is_running() and _Loop.pid == os.getpid():
        try:
            asyncio.run_coroutine_threadsafe(session._session.close(), loop).result(timeout=2)
        except Exception:
            pass
