"""The shape of a reply's per-token log-probabilities (chat-shaped entries), shared by every study's
replies."""
from __future__ import annotations

import re
from functools import lru_cache


def token(text: str, logprob: float = 0.0, top: dict | None = None, k: int = 0) -> dict:
    """One chat-shaped log-probability entry; `top` ({token: logprob}) cut to the k asked for."""
    alts = sorted((top or {text: logprob}).items(), key=lambda kv: -kv[1])[: max(k, 1)]
    return {"token": text, "logprob": float(logprob), "bytes": None,
            "top_logprobs": [{"token": t, "logprob": float(v), "bytes": None} for t, v in alts]}


def words(text: str, k: int) -> list[dict]:
    """Entries of a fixed-text reply, one per word, each near-certain."""
    return list(_word_entries(text, k))


@lru_cache(maxsize=4096)
def _word_entries(text: str, k: int) -> tuple[dict, ...]:
    # kept: most replies start with the same fixed words (entries are only read, never changed)
    return tuple(token(w, -0.1, k=k) for w in re.findall(r"\s*\S+", text))
