"""The truth of each findings measure the planted model defines, from every study's truth functions:
{measure_id: (notebook, truth, null)}. Measures the simulator plants nothing for have no truth and are
left out of the check."""
from __future__ import annotations

from .core.truth import Design
from .core.truth_file import Truth
from .rewardbench.truth import judge_reading_truths
from .self_preference.truth import paper_reading_truths
from .utility.truth import utility_truths


def measure_truths(truth: Truth, design: Design = Design()) -> dict:
    """{measure_id: (notebook, truth, null)} for every measure the planted model defines from the paper's
    reading (parsed replies): 05, 06, 08, 13 and, when the design has them, 10-12."""
    out = {**paper_reading_truths(truth, design), **judge_reading_truths(truth, design)}
    if design.utility is not None:
        out.update(utility_truths(truth, design.utility))
    return out
