"""List prices of OpenAI models in US dollars per million tokens, for the cost ledger.

PRICES_AS_OF: OpenAI's published standard-tier list prices as known on that date (the same figures
appear in public copies of the pricing page from March-June 2026); OpenAI changes them, so check before
quoting a cost. Models missing here (and every non-OpenAI
server, hub or embedded model) have no price: their cost is None, never 0.
"""
from __future__ import annotations

PRICES_AS_OF = "2025-06-01"
# model -> (input, output) USD per 1M tokens
PRICES = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4-turbo": (10.00, 30.00),
    "gpt-3.5-turbo": (0.50, 1.50),
    "o3-mini": (1.10, 4.40),
    "o4-mini": (1.10, 4.40),
}


def price(spec) -> tuple[float, float] | None:
    """(input, output) USD per 1M tokens for a ModelSpec on OpenAI's own API, else None."""
    if spec.backend != "openai" or (spec.base_url and "api.openai.com" not in spec.base_url):
        return None
    return PRICES.get(spec.model)


def cost_usd(spec, tokens_in: int, tokens_out: int) -> float | None:
    """Dollars for these tokens at list price, or None when the model has no known price."""
    p = price(spec)
    return None if p is None else (tokens_in * p[0] + tokens_out * p[1]) / 1e6
