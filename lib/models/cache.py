"""The on-disk result cache (diskcache) and its hit / miss / token counters; the one module that opens
a results cache: the model layer's, and any other folder's (a cluster task's, lib.cluster.cache_transfer)."""
from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import diskcache
from diskcache.core import DBNAME

from ..paths import cache_dir

_lock = threading.Lock()
_caches: dict[Path, diskcache.Cache] = {}
STATS = {"hits": 0, "misses": 0, "tokens_in": 0, "tokens_out": 0}


def results_cache() -> diskcache.Cache:
    """The process-wide results cache in `cache_dir()/results` (never evicts)."""
    path = cache_dir() / "results"
    with _lock:
        if path not in _caches:
            _caches[path] = open_store(path)
        return _caches[path]


def open_store(folder: str | Path) -> diskcache.Cache:
    """A results cache in `folder` (never evicts): close it, or use it in a `with` block."""
    # diskcache's default evicts past 1 GB; a results cache must never silently forget.
    return diskcache.Cache(str(folder), eviction_policy="none", size_limit=2**62)


def entry_rows(folder: str | Path, models=None, after: int | None = None, newest: bool = False) -> list[tuple]:
    """(rowid, key, tag) of a cache's entries in store order: of these models (by the tag CachedModel
    stores, untagged entries included), stored after a rowid, or only the newest. Read from diskcache's
    own table, read-only, so a kernel writing the same cache at the time is not disturbed."""
    db = Path(folder) / DBNAME
    if not db.exists():
        return []
    where, args = "1", ()
    if models is not None:
        keys = sorted(set(models))
        where, args = f"tag IS NULL OR tag IN ({','.join('?' * len(keys)) or 'NULL'})", tuple(keys)
    elif after is not None:
        where, args = "rowid > ?", (after,)
    elif newest:
        where = "rowid = (SELECT MAX(rowid) FROM Cache)"
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        return con.execute(f"SELECT rowid, key, tag FROM Cache WHERE {where} ORDER BY rowid", args).fetchall()
    except sqlite3.OperationalError as e:
        if "no such table" in str(e):  # a cache being created this moment: nothing in it yet
            return []
        raise
    finally:
        con.close()


def entries(folder: str | Path, rows) -> list[tuple]:
    """(key, value, tag) of the (rowid, key, tag) rows that still have a value."""
    if not rows:
        return []
    with open_store(folder) as store:
        out = [(key, store.get(key), tag) for _, key, tag in rows]
    return [e for e in out if e[1] is not None]


def put_entries(folder: str | Path, items) -> int:
    """Write (key, value, tag) entries into the cache in `folder`; how many were new there."""
    new = 0
    with open_store(folder) as store:
        for key, value, tag in items:
            new += key not in store
            store.set(key, value, tag=tag)
    return new


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


def entries_by_model() -> dict[str, int]:
    """How many results the cache holds per model (the tag every entry is stored with), read without
    opening a model or creating a cache: {} when there is no cache yet."""
    counts: dict[str, int] = {}
    for _, _, tag in entry_rows(cache_dir() / "results"):
        if tag is not None:
            counts[tag] = counts.get(tag, 0) + 1
    return counts
