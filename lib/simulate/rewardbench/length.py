"""The planted length term of 13's verdicts (`rewardbench.length`: log-odds per 100 words toward the
longer response), as the server applies it and as the truths integrate it. The simulator counts the
words of the two responses it is shown (whitespace-separated); a truth reads the same counts from the
run's pairs (`RMDesign.pairs`, `PairedDesign.rm_pairs`: (category, chosen minus rejected words)).
Notebook 15's knockout between two of the simulator's own answers carries no length term."""
from __future__ import annotations

from dataclasses import dataclass, fields

from ..core.truth import Design

PER_WORDS = 100.0


def word_count(text: str) -> int:
    """Words of a response, as the simulator counts them (whitespace-separated)."""
    return len(str(text).split())


def pair_lengths(pairs) -> tuple:
    """((category, chosen minus rejected words), ...) of a table of RM pairs (the run's data)."""
    return tuple((c, word_count(a) - word_count(b)) for c, a, b in zip(pairs["category"], pairs["chosen"], pairs["rejected"]))


def length_term(truth, chosen_minus_rejected: float) -> float:
    """The planted log-odds shift toward the chosen response for its length difference in words."""
    return truth.rewardbench.length * float(chosen_minus_rejected) / PER_WORDS


@dataclass(frozen=True)
class PairedDesign(Design):
    """The run's design with 13's pairs ((category, chosen minus rejected words), ...): the truths a
    planted length term moves read them."""

    rm_pairs: tuple = ()


def with_pairs(design: Design, pairs) -> PairedDesign:
    """`design` with the run's RM pairs attached."""
    return PairedDesign(**{f.name: getattr(design, f.name) for f in fields(Design)}, rm_pairs=tuple(pairs))


def rm_pairs(design_or_pairs) -> tuple:
    """The run's pairs of a `PairedDesign`, none of any other design, or the pairs given as they are."""
    if isinstance(design_or_pairs, Design):
        return getattr(design_or_pairs, "rm_pairs", ())
    return tuple(design_or_pairs or ())


def length_terms(truth, category: str, design_or_pairs=()) -> list[float]:
    """The planted length terms of a category's pairs (a design without pairs, or no planted length:
    [0.0], the pairs taken as of equal length)."""
    pairs = rm_pairs(design_or_pairs)
    if not truth.rewardbench.length:
        return [0.0]
    got = [length_term(truth, d) for c, d in pairs if c == category]
    return got or [0.0]


def pair_terms(truth, design) -> list[tuple[str, float]]:
    """(category, planted length term) of each of the run's pairs in `design.rm_categories`, each pair
    once (a design without pairs: each category once, equal lengths)."""
    pairs = [(c, length_term(truth, d)) for c, d in rm_pairs(design) if c in design.rm_categories]
    return pairs or [(c, 0.0) for c in design.rm_categories]
