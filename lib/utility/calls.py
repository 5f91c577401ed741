"""The one place the utility study talks to a model: batched, cached, booked in a cost ledger.

A model is a `lib.models` CachedModel: its `request` makes the chat-or-raw decision, and its
`generate` books each batch in the model layer's `Ledger` under the key given here, for one-shot
batches (`ask`) and the shared retry loop (`lib.ask_until_parsed`) alike (tests plug a scripted
backend into the same `CachedModel`).
"""
from __future__ import annotations

from lib.models.ledger import Ledger  # the model layer's ledger: one ledger for every study


def for_model(model, content):
    """A prompt as the model takes it: a message list stays for chat models; base LMs get it as one text."""
    from lib.prompts.utility import as_text
    return as_text(content) if isinstance(content, list) and not model.is_chat else content


def make_request(model, content, max_tokens: int, temperature: float = 0.0, sample: int = 0, **extra):
    """A Request for a prompt string or a message list; base LMs get the messages as one text."""
    return model.request(for_model(model, content), max_tokens=max_tokens, temperature=temperature, sample=sample,
                         **extra)


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
    outs = model.generate(requests, desc=desc or None, ledger=ledger, key=key or default_key(model, desc))
    return [getattr(o, "text", o) or "" for o in outs]
