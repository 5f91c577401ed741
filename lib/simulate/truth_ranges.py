"""The range every truth must lie in, by measure family: a probability in [0, 1], a rating
difference within the 1-5 scale, a percentage in [0, 100]. A truth outside its range is a defect of
the instrument (a truth function), never of the pipeline, and validate fails on it by name."""
from __future__ import annotations

import math

from lib.report.measures import find_or_none

RATE, DIFF, PERCENT, RATING_DIFF, REAL = (0.0, 1.0), (-1.0, 1.0), (0.0, 100.0), (-4.0, 4.0), (-math.inf, math.inf)
# {family: (low, high)}: a declared measure's family is its id's first part (lib.report.measures.Measure.kind)
RANGES = {
    "ppl_human_minus_model": REAL,  # perplexity points: any difference of two positive means
    "human_minus_self": RATING_DIFF,
    "self_preference_rate": RATE, "first_position_rate": RATE, "factual_preference_rate": RATE,
    "order_balanced_self_preference_rate": RATE, "style_preference": RATE,
    "tf_minus_ft_asymmetry": DIFF,
    "set_f1": PERCENT, "unreadable_share": PERCENT, "answer_score": PERCENT,
    "role_selection_gap": DIFF, "position_effect": DIFF, "answer_gain": DIFF,
    "judge_overall_accuracy": RATE, "judge_position_consistency": RATE, "rm_prefers_longer": RATE,
    "best_of_n_gain": DIFF,
    # notebook 18: after-minus-before changes and shares (a flip share or a part is in [0, 1], inside DIFF)
    "balanced": DIFF, "contextual": DIFF, "self_decomposition": DIFF, "length_control": DIFF, "order_averaged": DIFF,
    "temperature": (-8.0, 8.0),  # a change of a human-minus-own rating difference (each within -4..4)
    # validate's own rows of 04 and 07 (knowledge_rows.py) and the parsed shares
    "knowledge_accuracy": RATE, "knowledge_level_share": RATE, "knowledge_stratified_factual": RATE,
    "knowledge_stratified_factual_likelihood": RATE, "parsed_share": RATE,
}


def family(measure_id: str) -> str:
    """A row's measure family: its declaration's kind, else its id's first part ('paired_difference.X'
    is X's family)."""
    mid = str(measure_id)
    if mid.startswith("paired_difference."):
        mid = mid.split(".", 1)[1]
    m = find_or_none(mid)
    return m.kind if m is not None else mid.split(".", 1)[0]


def truth_range(measure_id: str) -> tuple[float, float]:
    """(low, high) of a measure's truth; a paired difference of two models spans the width of its
    family's range on both sides. KeyError names a family with no declared range."""
    fam = family(measure_id)
    if fam not in RANGES:
        raise KeyError(f"{measure_id}: no truth range for family {fam!r}; declare one in truth_ranges.RANGES.")
    low, high = RANGES[fam]
    if str(measure_id).startswith("paired_difference."):
        return low - high, high - low
    return low, high


def out_of_range(measure_id: str, truth: float) -> bool:
    """Whether a truth lies outside its measure's range (NaN: no truth, never out of range)."""
    if truth is None or (isinstance(truth, float) and math.isnan(truth)):
        return False
    try:
        low, high = truth_range(measure_id)
    except KeyError:  # a family with no declared range (tests/simulate/test_truth_ranges.py names it)
        return False
    return not (low - 1e-9 <= truth <= high + 1e-9)


def is_rate(measure_id: str) -> bool:
    """Whether a measure is a share in [0, 1] (a family with no declared range is not)."""
    return RANGES.get(family(measure_id)) == RATE and not str(measure_id).startswith("paired_difference.")
