"""The study's per-model loop (`for_each_model`, the name every study package gives it): every reward
model of a run, in order, and the ones whose model cannot give what they need left out and said so."""
from __future__ import annotations

from typing import Callable


def for_each_model(reward_models: list[str], run: Callable[[object, str, str], object],
                   models: dict | None = None, left_out_of: str = "the tables") -> list:
    """run(reward model, its name, spec) for every reward-model spec in order, the results in a list.
    One that needs likelihoods its server cannot give (an implicit reward model without prompt
    log-probabilities) is left out of `left_out_of` and said so. `models` maps a spec to the model
    objects to use ({'model': ..., 'ref_model': ...}) instead of loading them."""
    from lib.models import LikelihoodUnavailable

    from .registry import get_reward_model

    parts = []
    for spec in reward_models:
        try:
            rm = get_reward_model(spec, **(models or {}).get(spec, {}))
            parts.append(run(rm, rm.name, spec))
        except LikelihoodUnavailable as e:  # a server without prompt log-probabilities: say so, go on
            print(f"{spec}: likelihood scoring is unavailable here ({e}); it is left out of {left_out_of}.")
    return parts
