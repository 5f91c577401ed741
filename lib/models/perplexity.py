"""Perplexity of texts under a causal LM: a cached call of the model (`CachedModel.perplexity`, the
backend's rolling log-likelihood over sliding windows with a stride), so a warm run loads no model;
for an OpenAI-compatible server, from its echoed prompt log-probabilities (cached likelihoods)."""
from __future__ import annotations

import math

from .specs import SpecError, parse_spec

DEFAULT_MODEL = "hf:gpt2"  # the paper's choice, for users online; offline use "local:gemma3"


def perplexity(texts: list[str], model: str = DEFAULT_MODEL, stride: int = 512, max_length: int | None = None,
               desc: str = "perplexity") -> list[float]:
    """exp(mean token negative log-likelihood) of each text; cached per (model, text, window)."""
    from .registry import get_model

    for i, t in enumerate(texts):
        if not isinstance(t, str) or not t.strip():
            raise ValueError(f"Text {i} is empty; perplexity is undefined for an empty passage.")
    if parse_spec(model).backend == "openai":
        return server_perplexity(texts, model, desc)
    return get_model(model).perplexity(texts, stride, max_length, desc)


def server_perplexity(texts: list[str], model: str, desc: str = "perplexity") -> list[float]:
    """exp(mean token negative log-likelihood) from a server's echoed prompt log-probabilities: the
    whole text in the server's own context (no sliding windows), its first token unscored; only
    after the server passed the echo probe (else LikelihoodUnavailable says why)."""
    from .registry import get_model

    lls = get_model(model).loglikelihood([("", t) for t in texts], desc=desc)
    for t, ll in zip(texts, lls):
        if ll.n_tokens == 0:
            raise SpecError(f"{model}: the server scored no token of a text ({t[:40]!r}...), so its perplexity "
                            "is undefined.")
    return [math.exp(-ll.logprob / ll.n_tokens) for ll in lls]
