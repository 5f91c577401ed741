"""`make power`'s RM accuracy difference between two judges (notebook 13, compared by lib.compare),
drawn from the planted model of 13: both judges judge the same pairs in both orders, each verdict
right with `planted.judge_logit` (the judge's accuracy for the pair's category, its position bias, the
pair's difficulty), an unparsed verdict wrong (the planted failure rate), as 13's units reader counts it.

Judge A is the truth file's own model; judge B is its second served model (`models:` in the file,
rm_params.for_model: its own position bias) with every category's accuracy set to A's minus the planted
size on the log-odds. The pair's difficulty is one draw shared by both judges, as the simulator keys it
by the pair ("rm:<pair id>", the same for every served model): the two judges' values are paired.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np


from ..core import planted as M
from ..core.power_draw import Draw
from .paper_counts import PAPER_COUNTS
from ..core.truth_file import Truth, for_model, model_names
from .truth import judge_truths

MEASURE_ID = "judge_overall_accuracy.generate_and_parse"  # the registry's row compare pairs the judges on


@dataclass(frozen=True)
class PairDesign:
    """The pairs a run judges: each pair's category and the unit its interval resamples (its question)."""

    categories: tuple
    clusters: tuple


def benchmark_pairs(n: int, counts: dict = PAPER_COUNTS) -> PairDesign:
    """n pairs in the benchmark's category mix (its Table 4 counts, largest remainders), one question each."""
    total = sum(counts.values())
    exact = {c: n * k / total for c, k in counts.items()}
    got = {c: int(v) for c, v in exact.items()}
    for c in sorted(exact, key=lambda c: got[c] - exact[c])[:n - sum(got.values())]:
        got[c] += 1
    cats = tuple(c for c in counts for _ in range(got[c]))
    return PairDesign(cats, tuple(range(len(cats))))


def judges(truth: Truth, shift: float) -> tuple[Truth, Truth]:
    """(judge A, judge B): the file's own model, and its second model with A's accuracies moved down
    by `shift` log-odds in every category (the second model's position bias kept)."""
    names = model_names(truth)
    b = for_model(truth, names[1]) if len(names) > 1 else truth
    acc = {c: float(M.sigmoid(M.logit(a) - shift)) for c, a in truth.rewardbench.accuracy.items()}
    return truth, replace(b, rewardbench=replace(b.rewardbench, accuracy=acc))


def rm_implied(truth: Truth, shift: float, categories=tuple(PAPER_COUNTS)) -> float:
    """Judge A's accuracy minus judge B's, category-weighted as the paper's Overall (lib.simulate.truth)."""
    a, b = judges(truth, shift)
    return judge_truths(a, categories)["accuracy"] - judge_truths(b, categories)["accuracy"]


def accuracy(judge: Truth, categories: np.ndarray, u: np.ndarray, failure: float, rng) -> np.ndarray:
    """Per pair, the share of its two verdicts (chosen shown first, then second) that name the chosen
    response and were parsed."""
    right = np.zeros(len(categories))
    for first in (True, False):
        p = np.empty(len(categories))
        for c in np.unique(categories):
            at = categories == c
            p[at] = M.sigmoid(M.judge_logit(judge, c, first, u[at]))
        right += (rng.random(len(p)) < p) & (rng.random(len(p)) >= failure)
    return right / 2


def rm_draw(truth: Truth, shift: float, n: int, rng: np.random.Generator, design: PairDesign | None = None,
            paired: bool = True) -> Draw:
    """Both judges' accuracy on n pairs (`design`, default the benchmark's mix); `paired=False` gives
    judge B its own pair difficulties (a planted defect: the tests show the power moves)."""
    d = design or benchmark_pairs(n)
    cats = np.asarray(d.categories, dtype=object)
    a, b = judges(truth, shift)
    u = rng.normal(0.0, truth.question_sd, len(cats))
    u_b = u if paired else rng.normal(0.0, truth.question_sd, len(cats))
    return Draw(accuracy(a, cats, u, truth.format_failure, rng), np.asarray(d.clusters),
                second=accuracy(b, cats, u_b, truth.format_failure, rng), strata=cats, measure_id=MEASURE_ID)
