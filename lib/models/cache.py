"""The on-disk result cache (diskcache) and its hit / miss / token counters."""
from __future__ import annotations

import threading
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
