"""A recognised prompt (`Task`) and the template cutting every study's recogniser uses: the fixed
text around a slot, taken from the templates themselves (never retyped)."""
from __future__ import annotations

from dataclasses import dataclass, field


def between(template: str, before: str | None, after: str) -> str:
    """The fixed text of `template` between slot `before` (None: its start) and slot `after`."""
    rest = template if before is None else template.split("{" + before + "}", 1)[1]
    return rest.split("{" + after + "}", 1)[0]


def after(text: str, head: str) -> str | None:
    """The rest of `text` after `head`, or None when it does not start with it."""
    return text[len(head):] if text.startswith(head) else None


@dataclass
class Task:
    """A recognised prompt: its kind and the fields the simulator needs."""

    kind: str
    fields: dict = field(default_factory=dict)
    asked: bool = True  # the prompt asks for the paper's reply format (`formats.asks_format`)
