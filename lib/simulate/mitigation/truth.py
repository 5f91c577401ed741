"""The truths of notebook 18's arms from the planted parameters only (never the pipeline's output);
contextual calibration of 05's ratings has none (the simulator's echo of a content-free rating prompt
is not a planted prior).

- Temperature scaling of 05's likelihood ratings: the echo puts the planted P(score = s), proportional
  to exp(-(s - mu)^2 / (2 spread^2)), on the score's token; dividing its log by T leaves the same shape
  at spread * sqrt(T). The truth is the human-minus-own expected score (true passages) at that spread
  minus at the planted one, each integrated over the question and passage effects.

- Contextual calibration of 13's log-probability judge: the simulator answers two identical responses
  (a content-free input) with P(response 1) = sigmoid(position); dividing that prior out leaves each
  order's log-odds logit(accuracy) + length + u, so its truths are balanced calibration's.

- Balanced calibration of 06's likelihood choices: the echo gives lp_1 - lp_2 = the planted log-odds
  of passage 1, so with y = self + u + (factual + u_factual) * (true_A - true_B) (A: the own passage)
  P(A) is sigmoid(y + position) with A first and sigmoid(y - position) with A second; their mean is
  above 1/2 exactly when y > 0: the additive position term is removed exactly. Before: each order's
  verdict Phi((y0 +- position) / pair_sd); after Phi(y0 / (sd sqrt 2)): the question's lean and factual
  effects move y, its position effect only the position term, which the average removes with it.
- Balanced calibration of 13's log-probability judge likewise, with logit(accuracy) + length + u as y
  (the planted length term of each of the run's pairs, `rewardbench.length`).
- Length control of 13's log-probability judge: the verdict names the chosen response in an order
  exactly when logit(accuracy) +- position + length + u > 0; length control should leave the same
  verdicts with the length term removed, so its truth is the mean over the run's pairs and both orders
  of Phi((b +- position) / sd) - Phi((b +- position + length) / sd), b = logit(accuracy). No planted
  length (or a design without pairs): 0, the arm must find no change.
- Length control of 13's generate-and-parse judge (a 0/1 logistic fit): its verdict is drawn with
  P(chosen) = sigmoid(b +- position + length + u), so the truth is the mean over pairs and orders of
  E_u[sigmoid(b +- position + u)] - E_u[sigmoid(b +- position + length + u)].
- Length control of 08's long passages (generated verdicts, the same 0/1 fit): the evaluator names
  its long passage with P = sigmoid(style +- position + length + u) (`pairwise.length`, per 100 words
  of the pair's length difference, read from the run's bank); the truth is the mean over the run's
  pairs and both orders of E_u[sigmoid(style +- position + u)] - E_u[sigmoid(style +- position + length + u)].
- Listwise order averaging of 12's k-sampling runs: the utility listwise-set judgment drawn on k
  shuffles of each GTU question (its roles in stored order, one question effect for all k; k the
  largest of 12's k values), as `utility.draws` draws them; before is run 0, after the vote of all k.
  Truths are the mean over the run's questions of E[after - before] by Monte Carlo: a ground-truth
  passage selected, the share of passages whose status flips, and the shown-first passage selected
  (after: averaged over the k runs' first passages).
- The decomposition (06's parsed replies, sampled): harmful = P(own chosen | own false, other true),
  baseline = P(other chosen | other false, own true), both orders averaged; the excess their difference.
"""
from __future__ import annotations

import numpy as np
from scipy.stats import norm

from ..core import planted as M
from ..core.truth import expect
from ..core.truth_file import Truth
from ..rewardbench.length import pair_terms
from ..self_preference.style_length import styled_leans, styled_logits
from ..self_preference.truth import human_minus_self
from ..utility import draws as UD
from ..utility.truth import FACTOR_DRAWS, sampling_ks

ASYMMETRIC = ("TF", "FT")


def _phi(x: float, sd: float) -> float:
    return float(norm.cdf(x / sd)) if sd else float(x > 0)


def balanced_pairwise_truths(truth: Truth) -> dict:
    """06's likelihood choices on TF and FT pairs: before / after balanced calibration, self, factual and
    first-position rates, and the share of per-order verdicts flipped."""
    pw, sd = truth.pairwise, truth.question_sd
    # the question's three effects (`planted.pair_effects`, each sd): u and u_factual move Z, the
    # position-free log-odds of A (sd * sqrt 2 on 06's own-versus-other, true-versus-false pairs);
    # u_position moves only the position term c = position + u_position, which both orders share
    sd_z = sd * 2 ** 0.5
    rows = []
    for combo in ASYMMETRIC:
        delta = 1 if combo == "TF" else -1  # true_A - true_B
        y0 = pw.self + pw.factual * delta
        sd_all = M.pair_sd(truth, (True, False), (delta == 1, delta != 1))
        a_first, a_second = _phi(y0 + pw.position, sd_all), _phi(y0 - pw.position, sd_all)
        after = _phi(y0, sd_z)
        true_a = combo == "TF"
        # flips: an order's verdict differs from the balanced one when Z lies between 0 and -c (A first)
        # or c (A second); given u_position that is a difference of two normal CDFs of Z
        flips = expect(lambda up: (abs(_phi(y0 + pw.position + up, sd_z) - after)
                                   + abs(_phi(y0 - pw.position - up, sd_z) - after)) / 2, sd)
        rows.append({"self": ((a_first + a_second) / 2, after),
                     "factual": (((a_first + a_second) / 2) if true_a else 1 - (a_first + a_second) / 2,
                                 after if true_a else 1 - after),
                     "position": ((a_first + 1 - a_second) / 2, 0.5), "flipped": (0.0, flips)})
    return {q: (sum(r[q][0] for r in rows) / len(rows), sum(r[q][1] for r in rows) / len(rows)) for q in rows[0]}


def judge_cells(truth: Truth, design) -> list[float]:
    """logit(accuracy) + length, the log-odds of naming the chosen response before position: one per
    pair of the run, equally weighted as the arms weigh them (`rewardbench.length.pair_terms`)."""
    rb = truth.rewardbench
    return [M.logit(rb.accuracy.get(cat, 0.75)) + s for cat, s in pair_terms(truth, design)]


def balanced_judge_truths(truth: Truth, design) -> dict:
    """13's log-probability judge (pairs whose two orders are in format), over `judge_cells`:
    accuracy, position (share naming response 1) and flips, before / after balanced calibration."""
    rb, sd = truth.rewardbench, truth.question_sd
    out = {"accuracy": [], "position": [], "flipped": []}
    for base in judge_cells(truth, design):
        first, second, after = _phi(base + rb.position, sd), _phi(base - rb.position, sd), _phi(base, sd)
        out["accuracy"].append(((first + second) / 2, after))
        out["position"].append(((first + 1 - second) / 2, 0.5))
        out["flipped"].append((0.0, (abs(first - after) + abs(second - after)) / 2))
    return {q: (sum(b for b, _ in v) / len(v), sum(a for _, a in v) / len(v)) for q, v in out.items()}


def _pairs_and_orders(truth: Truth, design, change) -> float:
    """The mean over the run's pairs and both orders of `change(b +- position, length)`, b =
    logit(accuracy) of the pair's category."""
    rb = truth.rewardbench
    diffs = []
    for cat, lean in pair_terms(truth, design):
        b = M.logit(rb.accuracy.get(cat, 0.75))
        diffs.append(sum(change(b + p, lean) for p in (rb.position, -rb.position)) / 2)
    return sum(diffs) / len(diffs)


def length_control_truth(truth: Truth, design) -> float:
    """13's log-probability judge: accuracy with the planted length term removed minus accuracy with
    it (pairs whose two orders are in format, both orders averaged)."""
    sd = truth.question_sd
    return _pairs_and_orders(truth, design, lambda x, lean: _phi(x, sd) - _phi(x + lean, sd))


def generated_length_truth(truth: Truth, design) -> float:
    """13's generate-and-parse judge: its verdict names the chosen response with probability
    sigmoid(logit(accuracy) +- position + length + u); the length-controlled accuracy is that probability
    with the length term at 0, so the truth is the mean over the run's pairs and both orders of
    E_u[sigmoid(b +- position + u)] - E_u[sigmoid(b +- position + length + u)]."""
    sd = truth.question_sd
    return _pairs_and_orders(truth, design, lambda x, lean: expect(
        lambda u: float(M.sigmoid(x + u)) - float(M.sigmoid(x + lean + u)), sd))


def style_length_truth(truth: Truth, design, kind: str = "long") -> float:
    """08's own style pairs (`kind`): the evaluator names the styled passage with probability
    sigmoid(toward-styled log-odds + length + u) in each order; the length-controlled rate is that
    probability with the length term at 0, so the truth is the mean over the run's pairs and both
    orders of E_u[sigmoid(x + u)] - E_u[sigmoid(x + length + u)] (x: position, style and self terms
    toward the styled passage, `planted.pair_logit`)."""
    sd, first, second = styled_logits(truth, kind)
    toward = (first, -second)  # styled shown second: toward it is 1 - P(passage 1)
    diffs = [sum(expect(lambda u: float(M.sigmoid(x + u)) - float(M.sigmoid(x + lean + u)), sd) for x in toward) / 2
             for lean in styled_leans(truth, design, kind)]
    return float(np.mean(diffs))


def temperature_truth(truth: Truth, temperature: float) -> float:
    """05's human minus own expected score (true passages) after temperature scaling minus before."""
    spread = truth.pointwise.spread
    return human_minus_self(truth, True, spread * temperature ** 0.5) - human_minus_self(truth, True, spread)


def sampled_k(design) -> int:
    """The number of runs 12 keeps (the largest of its k values; 0 without 12's questions)."""
    u = getattr(design, "utility", None)
    ks = sampling_ks(u.conditions if u else ())
    return max(ks) if ks and u.answers else 0


def order_draws(truth: Truth, roles: tuple, k: int, draws: int = FACTOR_DRAWS, seed: int = 0) -> dict:
    """{quantity: E[after - before]} of one composition: run 0 against the vote of k runs."""
    d = UD.Draws(truth.utility, roles, truth.question_sd, truth.format_failure, draws, seed)
    runs = d.k_runs(k)
    voted = d.k_sampling([k], runs)[k]
    place0, sel0, _ = runs[0]

    def hit(chosen):
        return (chosen & d.gt).any(axis=1)
    first_after = np.mean([(voted & (place == 0)).any(axis=1) for place, _, _ in runs], axis=0)
    return {"gt_hit": float(np.mean(hit(voted)) - np.mean(hit(sel0))), "flipped": float((sel0 != voted).mean()),
            "first_shown": float(first_after.mean() - (sel0 & (place0 == 0)).any(axis=1).mean())}


def order_averaged_truths(truth: Truth, design, draws: int = FACTOR_DRAWS) -> dict:
    """12's k-sampling runs: {quantity: mean over the run's GTU questions of after minus before}."""
    k = sampled_k(design)
    if k < 2:
        return {}
    cache, per = {}, []
    for q in design.utility.answers:
        if q.roles not in cache:
            cache[q.roles] = order_draws(truth, q.roles, k, draws)
        per.append(cache[q.roles])
    return {name: float(np.mean([p[name] for p in per])) for name in per[0]}


def decomposition_truths(truth: Truth) -> dict:
    """06's parsed choices: harmful, baseline, legitimate and the harmful excess (both orders averaged)."""

    def p_own(own_true: bool, other_true: bool) -> float:
        def f(u):
            first = float(M.sigmoid(M.pair_logit(truth, (True, False), (own_true, other_true), u)))
            second = 1 - float(M.sigmoid(M.pair_logit(truth, (False, True), (other_true, own_true), u)))
            return (first + second) / 2
        # u stands for the sum of the question's three effects on the pair's log-odds (sd pair_sd)
        return expect(f, M.pair_sd(truth, (True, False), (own_true, other_true)))
    harmful, legitimate = p_own(False, True), p_own(True, False)
    return {"harmful": harmful, "baseline": 1 - legitimate, "legitimate": legitimate,
            "harmful_excess": harmful - (1 - legitimate)}


def mitigation_truths(truth: Truth, design) -> dict:
    """{measure_id: (notebook, truth, null)} of notebook 18's rows that the planted model defines."""
    nb = "18_mitigation"
    out = {}
    for q, (before, after) in balanced_pairwise_truths(truth).items():
        out[f"balanced.06.{q}"] = (nb, after - before, float("nan") if q == "flipped" else 0.0)
    # the simulator answers a content-free judge prompt (two identical responses) with P(1) = sigmoid(position):
    # dividing that prior out subtracts the position term from each order's log-odds, so each order's
    # verdict is the balanced one and contextual calibration's truths are balanced calibration's
    judge = balanced_judge_truths(truth, design)
    for arm in ("balanced", "contextual"):
        for q, (before, after) in judge.items():
            out[f"{arm}.13.{q}"] = (nb, after - before, float("nan") if q == "flipped" else 0.0)
    out["length_control.13.accuracy"] = (nb, length_control_truth(truth, design), 0.0)
    out["length_control.13.accuracy.generate_and_parse"] = (nb, generated_length_truth(truth, design), 0.0)
    out["length_control.08.long"] = (nb, style_length_truth(truth, design), 0.0)
    for setting in design.settings:  # the planted rating model has no setting term: one truth for each
        out[f"temperature.05.human_minus_self_{setting}"] = (nb, temperature_truth(truth, design.temperature), 0.0)
    for q, v in order_averaged_truths(truth, design).items():
        out[f"order_averaged.12.{q}"] = (nb, v, float("nan") if q == "flipped" else 0.0)
    for q, v in decomposition_truths(truth).items():
        out[f"self_decomposition.06.{q}"] = (nb, v, 0.0 if q == "harmful_excess" else float("nan"))
    return out
