"""Which simulator function gives the truth of each declared findings measure.

Each `Measure` of a study's `measures.py` names its truth function beside its own declaration
(`truth="lib.simulate.<study>.truth:function"`), or says why it has none (`no_truth=...`). The name is
a string because study packages may not import the simulator; it is resolved here, when the
simulator asks. Every named function takes (truth, design) and returns
{measure_id: (notebook, truth, null)}. tests/simulate/test_truth_registry.py keeps the declarations
honest: each has exactly one of the two, each name resolves, and each function, called on a planted
model, gives ids of the measures that name it and of no other."""
from __future__ import annotations

import importlib
from typing import Callable


def resolve(reference: str) -> Callable:
    """The function a declaration names ('module:function'); ValueError naming the reference when it
    does not resolve."""
    module, _, name = reference.partition(":")
    if not module or not name:
        raise ValueError(f"truth={reference!r}: name a function as 'module:function'.")
    try:
        fn = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as e:
        raise ValueError(f"truth={reference!r} does not resolve: {e}") from e
    if not callable(fn):
        raise ValueError(f"truth={reference!r} is not a function.")
    return fn


def truth_function(measure) -> Callable:
    """The function that gives a declared measure's truth (KeyError naming the pattern when it names none)."""
    if not measure.truth:
        raise KeyError(f"{measure.pattern!r} names no truth function: give its declaration truth='module:function', "
                       "or say why there is none (no_truth=...).")
    return resolve(measure.truth)


def unaccounted(measures) -> list[str]:
    """Declared patterns with neither a truth function nor a reason for none, and those with both (a
    reason that the named function contradicts)."""
    return [f"{m.pattern}: {'both a truth function and no_truth' if m.no_truth else 'no truth function and no no_truth reason'}"
            for m in measures if bool(m.truth) == bool(m.no_truth)]


def unresolved(measures) -> list[str]:
    """Declarations whose truth reference does not resolve to a function, each with the reason."""
    out = []
    for m in measures:
        if m.truth:
            try:
                resolve(m.truth)
            except ValueError as e:
                out.append(f"{m.pattern}: {e}")
    return out
