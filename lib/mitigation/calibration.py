"""The arms' arithmetic on option probabilities (pure functions, no model call).

- Balanced position calibration: the two orders' probabilities of the same option averaged into one
  verdict, so the verdict no longer depends on which option was shown first.
- Contextual calibration (Zhao et al. 2021, beyond our three papers): each option's probability divided
  by its probability for a content-free input (the option prior), then renormalised.
- Temperature scaling: log-probabilities divided by a temperature before renormalising (T > 1 flattens,
  suppressing the model's confidence, as self-preference v2 suggests).
"""
from __future__ import annotations

import numpy as np
from scipy.special import softmax

SCORES = np.arange(1, 6)  # 05's rating scale


def option_probs(logprobs) -> np.ndarray:
    """Log-probabilities of the options (last axis) -> probabilities renormalised over the options."""
    return softmax(np.asarray(logprobs, dtype=float), axis=-1)


def balanced(p_first_order, p_second_order) -> np.ndarray:
    """P(option) averaged over both orders: each argument holds, per unit, the probability of the SAME
    option (e.g. passage A) in one order."""
    return (np.asarray(p_first_order, float) + np.asarray(p_second_order, float)) / 2


def contextual(probs, prior) -> np.ndarray:
    """probs / prior, renormalised over the options (last axis): the content-free prior divided out."""
    w = np.asarray(probs, float) / np.asarray(prior, float)
    return w / w.sum(axis=-1, keepdims=True)


def tempered(logprobs, temperature: float) -> np.ndarray:
    """Probabilities of the options after dividing the log-probabilities by `temperature`."""
    if temperature <= 0:
        raise ValueError(f"temperature must be > 0, got {temperature}")
    return option_probs(np.asarray(logprobs, float) / temperature)


def expected_score(probs) -> np.ndarray:
    """sum(s * p(s)) over 05's scores 1..5 of probabilities renormalised over them (last axis)."""
    p = np.asarray(probs, float)
    return (p * SCORES).sum(axis=-1) / p.sum(axis=-1)


def verdict(p_option) -> np.ndarray:
    """1 where the option is preferred, 0 where the other is, 0.5 on an exact tie (half a vote each)."""
    p = np.asarray(p_option, float)
    return np.where(p > 0.5, 1.0, np.where(p < 0.5, 0.0, 0.5))
