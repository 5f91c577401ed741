"""The truth of each findings measure the planted model defines, from every study's truth functions:
{measure_id: (notebook, truth, null)}. Measures the simulator plants nothing for have no truth and are
left out of the check."""
from __future__ import annotations

from .core.truth import JUDGE, PAPER, Design
from .core.truth_file import Truth
from .rewardbench.truth import judge_truths
from .self_preference.truth import human_minus_self, pairwise_truths, style_truths
from .utility.truth import utility_truths


def measure_truths(truth: Truth, design: Design = Design()) -> dict:
    """{measure_id: (notebook, truth, null)} for every measure the planted model defines."""
    out = {}
    hms = {"true": human_minus_self(truth, True), "false": human_minus_self(truth, False)}
    for dataset in tuple(design.datasets) + ("all",):
        for setting in design.settings:
            for fact, value in hms.items():
                out[f"human_minus_self.{dataset}.{setting}.self_{fact}.{PAPER}"] = ("05_pointwise_reranking", value, 0.0)
    pw = pairwise_truths(truth, design.combos)
    nb = "06_generation_phase"
    out[f"self_preference_rate.{PAPER}"] = (nb, pw["self"], 0.5)
    out[f"first_position_rate.{PAPER}"] = (nb, pw["first"], 0.5)
    # the mean of both orders' rates: every order and combination weighs the same, as in pw["self"]
    out[f"order_balanced_self_preference_rate.{PAPER}"] = (nb, pw["self"], 0.5)
    if "factual" in pw:
        out[f"factual_preference_rate.{PAPER}"] = (nb, pw["factual"], 0.5)
        out[f"tf_minus_ft_asymmetry.{PAPER}"] = (nb, pw["asymmetry"], 0.0)
    for kind, value in style_truths(truth).items():
        for dataset in design.datasets:
            out[f"style_preference.{kind}.{dataset}"] = ("08_writing_style", value, 0.5)
    jt = judge_truths(truth, design.rm_categories, design.rm_retries)
    out[f"judge_overall_accuracy.{JUDGE}"] = ("13_rewardbench", jt["accuracy"], 0.5)
    out[f"judge_position_consistency.{JUDGE}"] = ("13_rewardbench", jt["consistency"], float("nan"))
    if design.utility is not None:
        out.update(utility_truths(truth, design.utility))
    return out
