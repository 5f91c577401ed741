"""The truth of notebooks 13, 14 and 15's measures and of the differences between two simulated models,
from the planted parameters alone (the question effect integrated out by the quadrature of
`core.truth.expect`); the pairs' lengths come from the run's data (the RM pairs), never from its results.

- 13 `judge_overall_accuracy` and `judge_position_consistency` (`judge_truths`): order-averaged accuracy
  with the paper's category weights, and the consistency of the two orders' verdicts.
- 14 `rm_prefers_longer.generate_and_parse`: per pair of unequal length, the expected share of its two
  verdicts naming the longer response (an unparsed verdict names neither), averaged over pairs.
- 15 `best_of_n_gain.generate_and_parse`: P(the knockout keeps a right answer) - P(a sample is right):
  answers are right (recall 1) or wrong (recall 0), each sample independently given the question
  effect; the knockout is a two-state chain over the champion (right or wrong).
- a difference between two served models: the first's truth minus the second's (both linear means).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core import planted as M
from ..core.truth import JUDGE, Design, expect
from ..core.truth_file import Truth, for_model, model_names
from .length import PairedDesign, length_term, length_terms
from .replies import answer_probability, choose_probability


@dataclass(frozen=True)
class RMDesign:
    """What 13-15 ask, as far as these truths depend on it: the pairs' (category, chosen minus
    rejected length in words) and 15's samples per question (the config's, not the results')."""

    pairs: tuple = ()  # ((category, len_diff), ...)
    n_samples: int = 4
    categories: tuple = ("helpful", "abstain", "conflict")
    retries: int = 0


def prefers_longer(truth: Truth, pairs) -> float:
    """Expected share of verdicts naming the longer response, over the pairs of unequal length."""
    f = truth.format_failure
    values = []
    for category, diff in pairs:
        if diff == 0:
            continue
        def longer(u, chosen_longer=diff > 0, cat=category, lean=length_term(truth, diff)):
            right = (float(M.sigmoid(M.judge_logit(truth, cat, True, u) + lean))
                     + float(M.sigmoid(M.judge_logit(truth, cat, False, u) + lean))) / 2
            return (1 - f) * (right if chosen_longer else 1 - right)
        values.append(expect(longer, truth.question_sd))
    return float(np.mean(values)) if values else float("nan")


def replace_probability(truth: Truth, champion_right: bool, challenger_right: bool) -> float:
    """P(the challenger replaces the champion): it wins more of the two orders' verdicts (an unparsed
    verdict counts for neither)."""
    f = truth.format_failure
    c1 = choose_probability(truth, (champion_right, challenger_right))  # champion shown first
    c2 = 1 - choose_probability(truth, (challenger_right, champion_right))  # champion shown second
    return (1 - f) ** 2 * (1 - c1) * (1 - c2) + f * (1 - f) * ((1 - c1) + (1 - c2))


def knockout_right(truth: Truth, p: float, n: int) -> float:
    """P(the knockout over n samples, each right with probability p, ends on a right answer)."""
    r_rw, r_wr = replace_probability(truth, True, False), replace_probability(truth, False, True)
    r = p
    for _ in range(n - 1):
        r = r * (1 - (1 - p) * r_rw) + (1 - r) * p * r_wr
    return r


def best_of_n_gain(truth: Truth, n: int, good: bool = True) -> float:
    """Expected recall of the knockout's pick minus that of a random sample (15's prompt always shows
    the item's true passage: good evidence)."""
    return expect(lambda u: knockout_right(truth, answer_probability(truth, good, u), n)
                  - answer_probability(truth, good, u), truth.question_sd)


def rm_truths(truth: Truth, design: RMDesign) -> dict:
    """{measure_id: (notebook, truth, null)} of 14 and 15 for one model's truth."""
    out = {}
    if design.pairs:
        out[f"rm_prefers_longer.{JUDGE}"] = ("14_rm_difficulty", prefers_longer(truth, design.pairs), 0.5)
    if design.n_samples > 1:
        out[f"best_of_n_gain.{JUDGE}"] = ("15_best_of_n", best_of_n_gain(truth, design.n_samples), 0.0)
    return out


def per_model(truth: Truth, design: RMDesign, measure_truths) -> dict:
    """{served model name: {measure_id: (notebook, truth, null)}}: `measure_truths(model_truth)`
    (the shared truths) and 14-15's, for every model the truth file describes."""
    return {name: {**measure_truths(for_model(truth, name)), **rm_truths(for_model(truth, name), design)}
            for name in model_names(truth)}


def served_name(model_spec: str) -> str:
    """The model name a findings row's model spec asks the simulator for ('openai:sim_b@...' -> 'sim_b';
    a judge's reward spec, as 18 names its rows, 'judge:openai:sim@...;logprob' -> 'sim')."""
    return str(model_spec).removeprefix("judge:").split(":", 1)[-1].split("@", 1)[0].split(";", 1)[0]


def judge_truths(truth: Truth, categories, retries: int = 0, pairs=()) -> dict:
    """Order-averaged accuracy (unparsed counts as wrong) with the paper's category weights, and the
    position consistency among pairs whose two orders both gave a verdict; a category's values are the
    mean over its pairs' planted length terms (`length.length_terms`: `pairs` as (category, chosen
    minus rejected words), or none: equal lengths)."""
    from .paper_counts import PAPER_COUNTS  # typed from the paper, not the pipeline's copy

    parsed = 1 - truth.format_failure ** (retries + 1)
    acc, cons = {}, {}
    for cat in categories:
        leans = length_terms(truth, cat, pairs)

        def chosen(u, first, lean):
            return float(M.sigmoid(M.judge_logit(truth, cat, first, u) + lean))
        acc[cat] = parsed * float(np.mean([expect(lambda u: (chosen(u, True, s) + chosen(u, False, s)) / 2,
                                                  truth.question_sd) for s in leans]))
        cons[cat] = float(np.mean([expect(lambda u: chosen(u, True, s) * chosen(u, False, s)
                                          + (1 - chosen(u, True, s)) * (1 - chosen(u, False, s)), truth.question_sd)
                                   for s in leans]))
    w = {c: float(PAPER_COUNTS.get(c, 1)) for c in categories}
    return {"accuracy": sum(w[c] * acc[c] for c in categories) / sum(w.values()),
            "consistency": float(np.mean([cons[c] for c in categories]))}


def judge_reading_truths(truth: Truth, design: Design = Design()) -> dict:
    """{measure_id: (notebook, truth, null)} of 13's generate-and-parse judge rows (the run's pairs'
    lengths where `design` is a `length.PairedDesign`)."""
    jt = judge_truths(truth, design.rm_categories, design.rm_retries, design)
    return {f"judge_overall_accuracy.{JUDGE}": ("13_rewardbench", jt["accuracy"], 0.5),
            f"judge_position_consistency.{JUDGE}": ("13_rewardbench", jt["consistency"], float("nan"))}
