"""The one place the utility study talks to a model: batched, cached, with a cost ledger.

A model is a `lib.models` model: its `request` makes the chat-or-raw decision (tests plug a scripted
backend into the same `CachedModel`).
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Ledger:
    """Cost per (model, method) key (beyond the paper): requests, tokens in / out as the responses
    report them (so a warm cache still shows the true cost), and cache misses (calls actually made)."""

    rows: dict[tuple, dict] = field(default_factory=dict)

    def add(self, key: tuple, n_requests: int, tokens_in: int, tokens_out: int, misses: int) -> None:
        """Add one batch to a key's totals."""
        rec = self.rows.setdefault(tuple(key), {"requests": 0, "tokens_in": 0, "tokens_out": 0,
                                                "cache_misses": 0})
        rec["requests"] += n_requests
        rec["tokens_in"] += tokens_in
        rec["tokens_out"] += tokens_out
        rec["cache_misses"] += misses

    def table(self, names: tuple[str, ...] = ("model", "method")):
        """One row per key, the key split into the named columns."""
        import pandas as pd
        recs = [{**dict(zip(names, key)), **vals} for key, vals in self.rows.items()]
        return pd.DataFrame(recs, columns=list(names) + ["requests", "tokens_in", "tokens_out",
                                                         "cache_misses"])


def _misses() -> int:
    """Cache misses so far in this process."""
    from lib.models.cache import cache_stats
    return int(cache_stats().get("misses", 0))


def make_request(model, content, max_tokens: int, temperature: float = 0.0, sample: int = 0, **extra):
    """A Request for a prompt string or a message list; base LMs get the messages as one text."""
    from lib.prompts.utility import as_text
    if isinstance(content, list) and not model.is_chat:
        content = as_text(content)
    return model.request(content, max_tokens=max_tokens, temperature=temperature, sample=sample, **extra)


class Metered:
    """A model wrapper that books every generate() batch in the ledger under one key (so loops such
    as lib.asking.ask_until_parsed are costed too)."""

    def __init__(self, model, ledger: Ledger | None, key: tuple):
        self.model, self.ledger, self.key = model, ledger, key

    def request(self, content, chat=None, **params):
        """The wrapped model's request (messages become text for base LMs)."""
        return make_request(self.model, content, **params)

    def generate(self, requests, desc=None):
        """Generate and book the batch."""
        before = _misses()
        outs = self.model.generate(requests, desc=desc or None)
        if self.ledger is not None:
            self.ledger.add(self.key, len(requests), sum(getattr(o, "tokens_in", 0) or 0 for o in outs),
                            sum(getattr(o, "tokens_out", 0) or 0 for o in outs), _misses() - before)
        return outs


def default_key(model, desc: str) -> tuple:
    """(model name, desc) when the caller gives no ledger key."""
    return (str(getattr(getattr(model, "spec", None), "key", "model")), desc or "calls")


def ask(model, prompts: list, max_tokens: int, temperature: float = 0.0,
        samples: list[int] | None = None, desc: str = "", ledger: Ledger | None = None,
        key: tuple | None = None) -> list[str]:
    """Send prompts (strings or message lists) in one batch; reply texts in the same order. The
    ledger books the batch under `key` (default: (model name, desc))."""
    if not prompts:
        return []
    samples = samples or [0] * len(prompts)
    requests = [make_request(model, p, max_tokens, temperature, s) for p, s in zip(prompts, samples)]
    outs = Metered(model, ledger, key or default_key(model, desc)).generate(requests, desc=desc or None)
    return [getattr(o, "text", o) or "" for o in outs]
