"""Moving results-cache entries between caches: the ones of given models out of the driver's cache, the
ones a running task has added since it started out of the task's. Entries are (key, value, tag) with the
model's cache name as tag (CachedModel stores it); reads go through diskcache's own table (`Cache`:
rowid, key, tag), read-only, so a kernel writing the same cache at the time is not disturbed."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import diskcache
from diskcache.core import DBNAME


def open_cache(folder: str | Path) -> diskcache.Cache:
    """A results cache as lib.models.cache opens it (never evicts)."""
    return diskcache.Cache(str(folder), eviction_policy="none", size_limit=2**62)


def _rows(folder: Path, where: str, args: tuple) -> list[tuple]:
    db = Path(folder) / DBNAME
    if not db.exists():
        return []
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        return con.execute(f"SELECT rowid, key, tag FROM Cache WHERE {where} ORDER BY rowid", args).fetchall()
    except sqlite3.OperationalError as e:
        if "no such table" in str(e):  # a cache being created this moment: nothing in it yet
            return []
        raise
    finally:
        con.close()


def entries_for(folder: str | Path, model_keys) -> list[tuple]:
    """Entries of these models (by tag), plus untagged ones (written before entries carried their model,
    so they may belong to any run)."""
    keys = sorted(set(model_keys))
    marks = ",".join("?" * len(keys)) or "NULL"
    rows = _rows(Path(folder), f"tag IS NULL OR tag IN ({marks})", tuple(keys))
    return _with_values(folder, rows)


def entries_after(folder: str | Path, rowid: int) -> tuple[list[tuple], int]:
    """Entries stored after `rowid` and the last rowid seen (pass it back next time)."""
    rows = _rows(Path(folder), "rowid > ?", (rowid,))
    return _with_values(folder, rows), (rows[-1][0] if rows else rowid)


def last_rowid(folder: str | Path) -> int:
    """The newest entry's rowid (0 for an empty or missing cache)."""
    rows = _rows(Path(folder), "rowid = (SELECT MAX(rowid) FROM Cache)", ())
    return rows[-1][0] if rows else 0


def _with_values(folder, rows) -> list[tuple]:
    if not rows:
        return []
    with open_cache(folder) as store:
        out = [(key, store.get(key), tag) for _, key, tag in rows]
    return [e for e in out if e[1] is not None]


def store_entries(folder: str | Path, entries) -> int:
    """Write (key, value, tag) entries into a cache; how many were new there."""
    new = 0
    with open_cache(folder) as store:
        for key, value, tag in entries:
            new += key not in store
            store.set(key, value, tag=tag)
    return new
