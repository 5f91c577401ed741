"""The one place the utility study talks to a model: batched, cached, booked in a cost ledger.

A model is a `lib.models` model: its `request` makes the chat-or-raw decision, and its `generate`
books each batch in the model layer's `Ledger` under the key given here (tests plug a scripted
backend into the same `CachedModel`).
"""
from __future__ import annotations

from lib.models.ledger import Ledger  # the model layer's ledger: one ledger for every study


def make_request(model, content, max_tokens: int, temperature: float = 0.0, sample: int = 0, **extra):
    """A Request for a prompt string or a message list; base LMs get the messages as one text."""
    from lib.prompts.utility import as_text
    if isinstance(content, list) and not model.is_chat:
        content = as_text(content)
    return model.request(content, max_tokens=max_tokens, temperature=temperature, sample=sample, **extra)


class Metered:
    """A model wrapper that books every generate() batch in the ledger under one key (so loops such
    as lib.ask_until_parsed.ask_until_parsed are costed too)."""

    def __init__(self, model, ledger: Ledger | None, key: tuple):
        self.model, self.ledger, self.key = model, ledger, key

    def request(self, content, chat=None, **params):
        """The wrapped model's request (messages become text for base LMs)."""
        return make_request(self.model, content, **params)

    def generate(self, requests, desc=None):
        """Generate; the model books the batch in the ledger under this wrapper's key."""
        return self.model.generate(requests, desc=desc or None, ledger=self.ledger, key=self.key)


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
