"""The cost ledger every CachedModel books into: per (model, label) requests, cache hits and misses
(= calls made), tokens, seconds spent in the backend, and dollars for priced APIs."""
from __future__ import annotations

import threading
from dataclasses import dataclass, field

COLUMNS = ["requests", "cache_hits", "cache_misses", "tokens_in", "tokens_out", "seconds", "cost_usd"]


@dataclass
class Ledger:
    """Totals per key. Tokens and cost count every result, cached ones too (as their responses report
    them), so a warm re-run still shows what the work costs; `cache_misses` and `seconds` say what
    this process actually called and spent. A cost of None means "no known price", not free."""

    rows: dict[tuple, dict] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, key: tuple, requests: int = 0, hits: int = 0, misses: int = 0, tokens_in: int = 0,
            tokens_out: int = 0, seconds: float = 0.0, cost_usd: float | None = None) -> None:
        """Add one batch to a key's totals (thread-safe)."""
        with self._lock:
            rec = self.rows.setdefault(tuple(key), {c: 0 for c in COLUMNS} | {"seconds": 0.0, "cost_usd": None})
            for name, value in (("requests", requests), ("cache_hits", hits), ("cache_misses", misses),
                                ("tokens_in", tokens_in), ("tokens_out", tokens_out), ("seconds", seconds)):
                rec[name] += value
            if cost_usd is not None:
                rec["cost_usd"] = (rec["cost_usd"] or 0.0) + cost_usd

    def table(self, names: tuple[str, ...] = ("model", "method")):
        """One row per key, the key split into the named columns."""
        import pandas as pd

        recs = [{**dict(zip(names, key)), **vals} for key, vals in self.rows.items()]
        return pd.DataFrame(recs, columns=list(names) + COLUMNS)

    def clear(self) -> None:
        """Forget every row."""
        with self._lock:
            self.rows.clear()


LEDGER = Ledger()  # process-wide: every CachedModel call is booked here under (model, label)


def cost_table():
    """The process-wide ledger as a table: one row per (model, label)."""
    return LEDGER.table(("model", "label"))
