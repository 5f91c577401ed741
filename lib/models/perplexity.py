"""Perplexity of texts under a causal LM: a cached call of the model (`CachedModel.perplexity`, the
backend's rolling log-likelihood over sliding windows with a stride), so a warm run loads no model."""
from __future__ import annotations

from .specs import SpecError, parse_spec

DEFAULT_MODEL = "hf:gpt2"  # the paper's choice, for users online; offline use "local:gemma3"


def perplexity(texts: list[str], model: str = DEFAULT_MODEL, stride: int = 512, max_length: int | None = None,
               desc: str = "perplexity") -> list[float]:
    """exp(mean token negative log-likelihood) of each text; cached per (model, text, window)."""
    from .registry import get_model

    if parse_spec(model).backend == "openai":
        raise SpecError(f"Perplexity needs the model's own token probabilities; use an hf: or local: model, "
                        f"not {model!r}.")
    for i, t in enumerate(texts):
        if not isinstance(t, str) or not t.strip():
            raise ValueError(f"Text {i} is empty; perplexity is undefined for an empty passage.")
    return get_model(model).perplexity(texts, stride, max_length, desc)
