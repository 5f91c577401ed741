"""The on-disk result cache (diskcache) and its hit / miss / token counters."""
from __future__ import annotations

import threading
import time
from pathlib import Path

import diskcache

from ..paths import cache_dir

_lock = threading.Lock()
_caches: dict[Path, diskcache.Cache] = {}
STATS = {"hits": 0, "misses": 0, "tokens_in": 0, "tokens_out": 0}


def results_cache() -> diskcache.Cache:
    """The process-wide results cache in `cache_dir()/results` (never evicts)."""
    path = cache_dir() / "results"
    with _lock:
        if path not in _caches:
            # diskcache's default evicts past 1 GB; a results cache must never silently forget.
            _caches[path] = diskcache.Cache(str(path), eviction_policy="none", size_limit=2**62)
        return _caches[path]


class Writer:
    """Stores results as they arrive, one transaction per `window` seconds: a slow model's every
    result is written at once, while a fast server's hundreds per second share a commit (a commit
    each cost the client ~1.3 ms of its one result thread, the limit at 256 in flight). Leaving the
    `with` block writes what is pending, so at most `window` seconds of results are at risk. `tag`
    (the model's cache name) is stored with every entry, so a cluster task can take its own entries."""

    def __init__(self, store: diskcache.Cache, window: float = 0.05, tag: str | None = None):
        self.store, self.window, self.tag = store, window, tag
        self._pending: list[tuple] = []
        self._last = time.perf_counter()
        self._lock = threading.Lock()

    def put(self, key: str, value) -> None:
        """Queue one result; write the queue if the last write is `window` seconds old."""
        with self._lock:
            self._pending.append((key, value))
            if time.perf_counter() - self._last >= self.window:
                self._write()

    def _write(self) -> None:
        if self._pending:
            with self.store.transact():
                for key, value in self._pending:
                    self.store.set(key, value, tag=self.tag)
            self._pending.clear()
        self._last = time.perf_counter()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        with self._lock:
            self._write()


def count(hits: int = 0, misses: int = 0, tokens_in: int = 0, tokens_out: int = 0) -> None:
    """Add to the process-wide counters (thread-safe)."""
    with _lock:
        STATS["hits"] += hits
        STATS["misses"] += misses
        STATS["tokens_in"] += tokens_in
        STATS["tokens_out"] += tokens_out


def cache_stats() -> dict:
    """A copy of the counters: hits, misses (= model calls), tokens in and out of those calls."""
    with _lock:
        return dict(STATS)


def reset_stats() -> None:
    """Zero the counters (tests and benchmarks)."""
    with _lock:
        for k in STATS:
            STATS[k] = 0


def close_all() -> None:
    """Close open cache handles (before the cache folder changes, e.g. in tests)."""
    with _lock:
        for c in _caches.values():
            c.close()
        _caches.clear()
