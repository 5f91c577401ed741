"""Moving results-cache entries between caches: the ones of given models out of the driver's cache, the
ones a running task has added since it started out of the task's. Entries are (key, value, tag) with the
model's cache name as tag (CachedModel stores it); every cache is read and written through the model
layer's cache module (lib.models.cache), the one door to a results cache."""
from __future__ import annotations

from pathlib import Path

from lib.models import cache


def entries_for(folder: str | Path, model_keys) -> list[tuple]:
    """Entries of these models (by tag), plus untagged ones (written before entries carried their model,
    so they may belong to any run)."""
    return cache.entries(folder, cache.entry_rows(folder, models=model_keys))


def entries_after(folder: str | Path, rowid: int) -> tuple[list[tuple], int]:
    """Entries stored after `rowid` and the last rowid seen (pass it back next time)."""
    rows = cache.entry_rows(folder, after=rowid)
    return cache.entries(folder, rows), (rows[-1][0] if rows else rowid)


def last_rowid(folder: str | Path) -> int:
    """The newest entry's rowid (0 for an empty or missing cache)."""
    rows = cache.entry_rows(folder, newest=True)
    return rows[-1][0] if rows else 0


def store_entries(folder: str | Path, entries) -> int:
    """Write (key, value, tag) entries into a cache; how many were new there."""
    return cache.put_entries(folder, entries)
