"""The truth of the self-preference study's measures (notebooks 05, 06 and 08): the value the planted
parameters imply, computed from the planted model's own probabilities with the question effect
integrated out. Keyed by measure_id; `null` is the value of no effect."""
from __future__ import annotations

import numpy as np

from ..core import planted as M
from ..core.truth import COMBOS, PAPER, Design, expect
from ..core.truth_file import Truth
from .style_length import styled_leans, styled_logits


# ---------------------------------------------------------------- 05

def mean_rating(truth: Truth, own: bool, true: bool, u: float, spread: float | None = None) -> float:
    """Expected score of one passage given the question effect (at the planted spread, or `spread`)."""
    spread = truth.pointwise.spread if spread is None else spread
    return float((M.SCORES * M.rating_probs(M.rating_mu(truth, own, true, u), spread)).sum())


def human_minus_self(truth: Truth, self_true: bool, spread: float | None = None) -> float:
    """E[score of the human true passage] - E[score of the own passage of that factuality]: each mean
    over the latent rating's question and passage effects (the two passages' own effects differ, so
    the difference of the two expectations, each at the summed sd)."""
    sd = truth.pointwise.rating_sd
    return (expect(lambda v: mean_rating(truth, False, True, v, spread), sd)
            - expect(lambda v: mean_rating(truth, True, self_true, v, spread), sd))


# ---------------------------------------------------------------- 06

def _p_first(truth: Truth, own: tuple, true: tuple) -> float:
    x = M.pair_logit(truth, own, true)  # the question's effects add one normal of sd pair_sd
    return expect(lambda u: float(M.sigmoid(x + u)), M.pair_sd(truth, own, true))


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


def style_truths(truth: Truth, design: Design = Design(), dataset: str | None = None) -> dict:
    """Notebook 08: P(the styled own passage is chosen), both orders averaged (TT pairs): the own
    gen-by-QA passage against the human one, the own long passage against the own normal one; with a
    planted length term, the mean over the run's pairs (of `dataset`) of each pair's value at its
    length difference (`style_length.styled_leans`)."""
    def p_styled(kind):
        sd, x_first, x_second = styled_logits(truth, kind)
        values = [(expect(lambda u: float(M.sigmoid(x_first + lean + u)), sd)
                   + 1 - expect(lambda u: float(M.sigmoid(x_second - lean + u)), sd)) / 2
                  for lean in styled_leans(truth, design, kind, dataset)]
        return float(np.mean(values))
    return {kind: p_styled(kind) for kind in ("gen_by_qa", "long")}


def paper_reading_truths(truth: Truth, design: Design = Design()) -> dict:
    """{measure_id: (notebook, truth, null)} of 05, 06 and 08's paper readings (parsed replies)."""
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
    for dataset in design.datasets:
        for kind, value in style_truths(truth, design, dataset).items():
            out[f"style_preference.{kind}.{dataset}"] = ("08_writing_style", value, 0.5)
    return out
