"""The bias profile's battery: the card rows the studies declare (lib.report.measures.card_rows),
each naming the findings measure_ids that give it and the papers' numbers for the same measure
(lib.paper_check.published) as reference rows.

A row lists its findings `measure_ids` in order of preference: the likelihood reading first where
the notebook has one (the embedded models rarely answer in the papers' formats), then the paper's
generate-and-parse reading; the first one the run measured (n > 0) is the one shown. Nothing is
recomputed here: estimate, interval, n, p and Holm's p are the notebooks' (findings.csv).
"""
from __future__ import annotations

from lib.report.measures import CardRow as Measure
from lib.report.measures import Reference, card_rows, find

__all__ = ["BATTERY", "Measure", "Reference", "measure", "method_of", "notebooks"]

BATTERY: tuple[Measure, ...] = card_rows()


def measure(key: str) -> Measure:
    """The battery measure with this key."""
    for m in BATTERY:
        if m.key == key:
            return m
    raise KeyError(f"No battery measure {key!r}; measures: {[m.key for m in BATTERY]}")


def notebooks() -> list[str]:
    """The notebooks whose findings the battery reads, in order."""
    return sorted({m.notebook for m in BATTERY})


def method_of(measure_id: str) -> str:
    """'likelihood' or 'generate-and-parse' (the paper's replies), as the measure's declaration says."""
    return find(measure_id).method
