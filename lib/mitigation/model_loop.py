"""The per-model loop of the mitigation study: the judges whose content-free replies it asks for."""
from __future__ import annotations

from typing import Callable


def for_each_model(specs, run: Callable[[object, str, str], object], get_model=None) -> list:
    """run(model, its short name, spec) for every model spec in order, the results in a list; a model
    whose server gives no option log-probabilities is left out and said so."""
    from lib.models import LikelihoodUnavailable
    from lib.models import get_model as load

    get_model = get_model or load
    out = []
    for spec in specs:
        model = get_model(spec)
        try:
            out.append(run(model, getattr(model, "name", str(spec)), spec))
        except LikelihoodUnavailable as e:
            print(f"{spec}: no option log-probabilities here ({e}); its content-free calibration is left out.")
    return out
