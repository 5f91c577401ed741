"""Which simulator function gives the truth of each declared findings measure.

The registry of measures (lib.report.measures) lives in the study packages, which may not import the
simulator; so the link runs the other way: per declared pattern, the dotted name of the function here
that returns {measure_id: (notebook, truth, null)} for that measure's ids. A declared measure with no
entry says in its own declaration why it has none (`Measure.no_truth`).
tests/simulate/test_truth_registry.py keeps the two in step: every declared measure has exactly one of
them, every entry names a declared pattern, and each function, called on a planted model, gives ids of
the patterns registered to it and of no other."""
from __future__ import annotations

import importlib
from typing import Callable

MEASURE_TRUTHS = "lib.simulate.truth.measure_truths"  # (truth, Design)
LIKELIHOOD_TRUTHS = "lib.simulate.self_preference.likelihood_truth.likelihood_truths"  # (truth, Design)
UTILITY_TRUTHS = "lib.simulate.utility.truth.utility_truths"  # (truth, UtilityDesign); through measure_truths too
RM_TRUTHS = "lib.simulate.rewardbench.truth.rm_truths"  # (truth, RMDesign)

TRUTHS: dict[str, str] = {
    # self-preference
    "ppl_human_minus_model.{dataset}.{test}": LIKELIHOOD_TRUTHS,
    "human_minus_self.{dataset}.{setting}.self_{fact}.paper_parsed_reply": MEASURE_TRUTHS,
    "self_preference_rate.paper_parsed_reply": MEASURE_TRUTHS,
    "first_position_rate.paper_parsed_reply": MEASURE_TRUTHS,
    "factual_preference_rate.paper_parsed_reply": MEASURE_TRUTHS,
    "tf_minus_ft_asymmetry.paper_parsed_reply": MEASURE_TRUTHS,
    "order_balanced_self_preference_rate.{method}": MEASURE_TRUTHS,
    # the likelihood readings of 05 and 06 (a `;base` server's echo): the next-token and summed-likelihood
    # methods; the per-word variant depends on the answers' word counts and stays without a truth
    "human_minus_self.{dataset}.{setting}.self_{fact}.{method}": LIKELIHOOD_TRUTHS,
    "first_position_rate.{method}": LIKELIHOOD_TRUTHS,
    "factual_preference_rate.{method}": LIKELIHOOD_TRUTHS,
    "tf_minus_ft_asymmetry.{method}": LIKELIHOOD_TRUTHS,
    "style_preference.{kind}.{dataset}": MEASURE_TRUTHS,
    # utility
    "set_f1.{source}.{judgment}": UTILITY_TRUTHS,
    "unreadable_share.{judgment}.{form}": UTILITY_TRUTHS,
    "role_selection_gap.{form}.ground_truth_minus_counterfactual": UTILITY_TRUTHS,
    "role_selection_gap.{form}.counterfactual_minus_noisy": UTILITY_TRUTHS,
    "position_effect.{form}": UTILITY_TRUTHS,
    "answer_score.{source}.{condition}": UTILITY_TRUTHS,
    "answer_gain.{source}.utility_minus_dense": UTILITY_TRUTHS,
    "answer_gain.{source}.utility_minus_relevance": UTILITY_TRUTHS,
    # RAG-RewardBench
    "judge_overall_accuracy.generate_and_parse": MEASURE_TRUTHS,
    "judge_overall_accuracy.{method}": LIKELIHOOD_TRUTHS,
    "judge_position_consistency.generate_and_parse": MEASURE_TRUTHS,
    "judge_position_consistency.{method}": LIKELIHOOD_TRUTHS,
    "rm_prefers_longer.{method}": RM_TRUTHS,
    "best_of_n_gain.{method}": RM_TRUTHS,
}


def truth_function(pattern: str) -> Callable:
    """The function registered for a declared pattern (KeyError naming the pattern when none is)."""
    if pattern not in TRUTHS:
        raise KeyError(f"No truth function is registered for {pattern!r}: add one to "
                       "lib/simulate/truth_registry.py, or say why there is none in its declaration (no_truth=...).")
    module, name = TRUTHS[pattern].rsplit(".", 1)
    return getattr(importlib.import_module(module), name)


def unaccounted(measures) -> list[str]:
    """Declared patterns with neither a registered truth function nor a reason for none, and those
    with both (a reason that a registration contradicts)."""
    return [f"{m.pattern}: {'both a truth function and no_truth' if m.no_truth else 'no truth function and no no_truth reason'}"
            for m in measures if (m.pattern in TRUTHS) == bool(m.no_truth)]
