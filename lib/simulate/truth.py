"""The truth of each findings measure: the value the planted parameters imply, computed from the
planted model's own probabilities (`planted`) with the question effect integrated out by
Gauss-Hermite quadrature. Nothing here runs the pipeline or reads its outputs.

Keyed by measure_id (the ids notebooks 05, 06, 08 and 13 write). `null` is the value of no effect.
Measures the simulator plants nothing for (the likelihood readings: it serves no prompt
log-probabilities) have no truth and are left out of the check.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lib.report.findings import slug

from . import planted as M
from .truth_file import Truth

PAPER = slug("paper (parsed reply)")  # the method the simulator answers for (generate and parse)
JUDGE = slug("generate-and-parse")
COMBOS = ("TT", "TF", "FT", "FF")
_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(80)  # E[f(Z)], Z ~ N(0, 1)
_WEIGHTS = _WEIGHTS / _WEIGHTS.sum()


NULL_TOLERANCE = 1e-9  # a truth this close to its null is a planted null (float noise of the quadrature)


def on_truths_side(estimate: float, truth: float, null: float) -> bool:
    """Whether a significant estimate counts as detected against this truth: on the truth's side of the
    null, or on either side when the truth is the null itself (a planted null has no side, and any
    detection of it is a false one: the replications' false detection counts them)."""
    if abs(truth - null) < NULL_TOLERANCE:
        return True
    return bool(np.sign(estimate - null) == np.sign(truth - null))


def expect(f, sd: float) -> float:
    """E[f(u)] for u ~ N(0, sd^2) (exact to quadrature precision for smooth f)."""
    return float(sum(w * f(sd * z) for z, w in zip(_NODES, _WEIGHTS))) if sd else float(f(0.0))


@dataclass(frozen=True)
class Design:
    """What the run asks, as far as the truth depends on it (from the runner config, not its outputs)."""

    datasets: tuple = ("nq", "marco", "triviaqa")
    settings: tuple = ("normal", "rag")
    combos: tuple = COMBOS
    rm_categories: tuple = ("helpful", "abstain", "conflict")
    rm_retries: int = 0
    utility: object = None  # notebook 10's candidate sets (utility_truth.UtilityDesign)


# ---------------------------------------------------------------- 05

def mean_rating(truth: Truth, own: bool, true: bool, u: float) -> float:
    """Expected score of one passage given the question effect."""
    return float((M.SCORES * M.rating_probs(M.rating_mu(truth, own, true, u), truth.pointwise.spread)).sum())


def human_minus_self(truth: Truth, self_true: bool) -> float:
    """E[score of the human true passage] - E[score of the own passage of that factuality]."""
    return expect(lambda u: mean_rating(truth, False, True, u) - mean_rating(truth, True, self_true, u),
                  truth.pointwise.question_sd)


# ---------------------------------------------------------------- 06

def _p_first(truth: Truth, own: tuple, true: tuple) -> float:
    return expect(lambda u: float(M.sigmoid(M.pair_logit(truth, own, true, u))), truth.question_sd)


def pair_cells(truth: Truth, combos=COMBOS) -> list[dict]:
    """Every (combo, order) of an own-vs-human pair: P(first), and which passage is own / true."""
    cells = []
    for combo in combos:
        a_true, b_true = combo[0] == "T", combo[1] == "T"
        for a_first in (True, False):
            own = (True, False) if a_first else (False, True)
            true = (a_true, b_true) if a_first else (b_true, a_true)
            cells.append({"combo": combo, "p_first": _p_first(truth, own, true), "own_first": a_first,
                          "true": true})
    return cells


def pairwise_truths(truth: Truth, combos=COMBOS) -> dict:
    """Self, first-position and factual preference rates and the TF-minus-FT asymmetry."""
    cells = pair_cells(truth, combos)
    p_own = [c["p_first"] if c["own_first"] else 1 - c["p_first"] for c in cells]

    def p_true(c):
        return c["p_first"] if c["true"][0] else 1 - c["p_first"]
    tf = [p_true(c) for c in cells if c["combo"] == "TF"]
    ft = [p_true(c) for c in cells if c["combo"] == "FT"]
    out = {"self": float(np.mean(p_own)), "first": float(np.mean([c["p_first"] for c in cells]))}
    if tf and ft:
        out["factual"] = float(np.mean(tf + ft))
        out["asymmetry"] = float(np.mean(tf) - np.mean(ft))
    return out


def style_truths(truth: Truth) -> dict:
    """Notebook 08: P(the styled own passage is chosen), both orders averaged (TT pairs): the own
    gen-by-QA passage against the human one, the own long passage against the own normal one."""
    def p_styled(own):
        first = expect(lambda u: float(M.sigmoid(M.pair_logit(truth, own, (True, True), u, (True, False)))),
                       truth.question_sd)
        second = expect(lambda u: float(M.sigmoid(M.pair_logit(truth, own[::-1], (True, True), u, (False, True)))),
                        truth.question_sd)
        return (first + 1 - second) / 2
    return {"gen_by_qa": p_styled((True, False)), "long": p_styled((True, True))}


# ---------------------------------------------------------------- 13

def judge_truths(truth: Truth, categories, retries: int = 0) -> dict:
    """Order-averaged accuracy (unparsed counts as wrong) with the paper's category weights, and the
    position consistency among pairs whose two orders both gave a verdict."""
    from lib.rewardbench.categories import PUBLISHED_COUNTS

    parsed = 1 - truth.format_failure ** (retries + 1)
    acc, cons = {}, {}
    for cat in categories:
        def chosen(u, first):
            return float(M.sigmoid(M.judge_logit(truth, cat, first, u)))
        acc[cat] = parsed * expect(lambda u: (chosen(u, True) + chosen(u, False)) / 2, truth.question_sd)
        cons[cat] = expect(lambda u: chosen(u, True) * chosen(u, False)
                           + (1 - chosen(u, True)) * (1 - chosen(u, False)), truth.question_sd)
    w = {c: float(PUBLISHED_COUNTS.get(c, 1)) for c in categories}
    return {"accuracy": sum(w[c] * acc[c] for c in categories) / sum(w.values()),
            "consistency": float(np.mean([cons[c] for c in categories]))}


# ---------------------------------------------------------------- all measures

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
        from .utility_truth import utility_truths
        out.update(utility_truths(truth, design.utility))
    return out
