"""The study's per-model loop (`for_each_model`, the name every study package gives it): every chat
model of a sweep, in order, under the short name its tables and cost ledger use."""
from __future__ import annotations

from typing import Callable


def for_each_model(specs: list[str], run: Callable[[object, str, str], object], get_model=None) -> list:
    """run(model, short name, spec) for every model spec in order, the results in a list. `get_model`
    (spec -> model) replaces `lib.models.get_model`, e.g. a scripted model in a test."""
    from lib.models.specs import short_name

    if get_model is None:
        from lib.models import get_model
    return [run(get_model(spec), short_name(spec), spec) for spec in specs]
