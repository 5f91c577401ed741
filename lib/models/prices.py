"""List prices of OpenAI models in US dollars per million tokens, for the cost ledger and the plan.

PRICES_AS_OF: OpenAI's published list prices as known on that date (standard tier; the Batch API's
prices are half of them; cached input is what a prompt prefix the provider already holds costs); OpenAI
changes them, so check before quoting a cost. Models missing here (and every non-OpenAI server, hub or
embedded model) have no price: their cost is None, never 0, unless RAGBIAS_PRICES gives one: a JSON
mapping of model spec (as `str(spec)` without options, e.g. "openai:my-model@https://host/v1") to
[input, output] USD per 1M tokens, for a paid server of your own or a model this list lacks.
"""
from __future__ import annotations

import json
import os
from typing import NamedTuple

ENV = "RAGBIAS_PRICES"

PRICES_AS_OF = "2025-06-01"


class Price(NamedTuple):
    """USD per 1M tokens: input, output, cached input (None: not offered), and through the Batch API."""

    input: float
    output: float
    cached_input: float | None
    batch_input: float
    batch_output: float


def _listed(inp: float, out: float, cached: float | None) -> Price:
    return Price(inp, out, cached, inp / 2, out / 2)  # the Batch API: half the list price


PRICES = {
    "gpt-4o": _listed(2.50, 10.00, 1.25),
    "gpt-4o-mini": _listed(0.15, 0.60, 0.075),
    "gpt-4.1": _listed(2.00, 8.00, 0.50),
    "gpt-4.1-mini": _listed(0.40, 1.60, 0.10),
    "gpt-4.1-nano": _listed(0.10, 0.40, 0.025),
    "gpt-4-turbo": _listed(10.00, 30.00, None),
    "gpt-3.5-turbo": _listed(0.50, 1.50, None),
    "gpt-3.5-turbo-1106": _listed(1.00, 2.00, None),
    "o3-mini": _listed(1.10, 4.40, 0.55),
    "o4-mini": _listed(1.10, 4.40, 0.275),
}


def given_prices() -> dict[str, Price]:
    """Prices given in RAGBIAS_PRICES (spec key -> Price; the Batch API at half), {} when unset."""
    text = os.environ.get(ENV, "").strip()
    if not text:
        return {}
    try:
        given = json.loads(text)
        return {k: _listed(float(v[0]), float(v[1]), None) for k, v in given.items()}
    except (ValueError, TypeError, IndexError, AttributeError):
        raise ValueError(f"{ENV} must be JSON such as {{\"openai:model@https://host/v1\": [0.15, 0.6]}} "
                         f"(USD per 1M input and output tokens); got {text[:80]!r}.") from None


def price_of(spec) -> Price | None:
    """The price of a ModelSpec: RAGBIAS_PRICES's for its key, else its list price on OpenAI's own
    API, else None (no known price)."""
    given = given_prices().get(spec.key)
    if given is not None:
        return given
    if spec.backend != "openai" or (spec.base_url and "api.openai.com" not in spec.base_url):
        return None
    return PRICES.get(spec.model)


def price(spec) -> tuple[float, float] | None:
    """(input, output) USD per 1M tokens for a ModelSpec on OpenAI's own API, else None."""
    p = price_of(spec)
    return None if p is None else (p.input, p.output)


def cost_usd(spec, tokens_in: int, tokens_out: int, batch: bool | None = None) -> float | None:
    """Dollars for these tokens at list price (the Batch API's with `batch`, by default when the spec
    sends through it), or None when the model has no known price."""
    p = price_of(spec)
    if p is None:
        return None
    batch = getattr(spec, "batch", False) if batch is None else batch
    inp, out = (p.batch_input, p.batch_output) if batch else (p.input, p.output)
    return (tokens_in * inp + tokens_out * out) / 1e6
