"""Notebook 18's truths against the arms' own arithmetic on draws of the planted model: records drawn
as the simulator serves them (06's echoed answer log-probabilities, 13's verdict log-probabilities,
06's sampled choices), read by lib.mitigation, land on the closed forms of lib.simulate.mitigation."""
import numpy as np
import pandas as pd
import pytest
from scipy.special import expit, log_softmax

from lib.mitigation import arms, content_free
from lib.mitigation.decomposition import decomposition_rows
from lib.simulate.core import planted as M
from lib.simulate.core.truth import Design
from lib.simulate.core.truth_file import load_truth
from lib.simulate.mitigation.truth import mitigation_truths
from lib.simulate.server import SimServer

TRUTH = load_truth("configs/known_truth.yaml")
N = 2000
U = np.random.default_rng(0).normal(0, TRUTH.question_sd, N)
FACT = {"T": True, "F": False}


def _pairs(sampled: bool) -> pd.DataFrame:
    """06 pairs of the own passage (A) against the human one: per question, TF and FT, both orders."""
    rng = np.random.default_rng(1)
    rows = []
    for i in range(N):
        # the question's three effects (lean, position, factual) exactly as the simulator's replies draw them
        u, up, uf = M.pair_effects(TRUTH, f"q{i}")
        for combo in ("TF", "FT"):
            ta, tb = FACT[combo[0]], FACT[combo[1]]
            a1 = M.pair_logit(TRUTH, (True, False), (ta, tb), u, u_position=up, u_factual=uf)  # passage 1 = A
            b1 = M.pair_logit(TRUTH, (False, True), (tb, ta), u, u_position=up, u_factual=uf)  # passage 1 = B
            for order, d in (("a_first", a1), ("b_first", -b1)):
                row = {"question": f"q{i}", "evaluator": "sim", "b_author": "human", "combo": combo,
                       "a_fact": "true" if ta else "false", "b_fact": "true" if tb else "false", "order": order,
                       "lp_a": float(d), "lp_b": 0.0}
                if sampled:
                    row["chose_a"] = float(rng.random() < expit(d))
                rows.append(row)
    return pd.DataFrame(rows)


def _truth(mid):
    return mitigation_truths(TRUTH, Design())[mid][1]


def test_balanced_calibration_of_06_lands_on_its_truth():
    table = arms.balanced_pairwise(_pairs(False)).set_index("quantity")
    for q in ("self", "factual", "position", "flipped"):
        assert table.loc[q, "diff"] == pytest.approx(_truth(f"balanced.06.{q}"), abs=0.015), q
    assert abs(_truth("balanced.06.position")) > 0.05  # a planted position term that calibration removes


def _judge_records(spec: str) -> pd.DataFrame:
    """13's log-probability verdicts of one judge on N pairs, drawn from the planted judge model."""
    cats = Design().rm_categories
    rec = []
    for i, u in enumerate(U):
        cat = cats[i % len(cats)]
        cr, rc = M.judge_logit(TRUTH, cat, True, u), M.judge_logit(TRUTH, cat, False, u)
        # chosen first: response 1 is the chosen one; rejected first: response 2 is
        rec.append({"spec": spec, "question": f"q{i}", "id": f"q{i}",
                    "logprobs_cr": list(log_softmax([cr, 0.0])), "logprobs_rc": list(log_softmax([0.0, rc]))})
    return pd.DataFrame(rec)


def test_balanced_calibration_of_13_lands_on_its_truth():
    table = arms.balanced_judge(_judge_records("judge:sim;logprob")).set_index("quantity")
    for q in ("accuracy", "position", "flipped"):
        assert table.loc[q, "diff"] == pytest.approx(_truth(f"balanced.13.{q}"), abs=0.015), q


def test_contextual_calibration_of_13_with_the_served_prior_lands_on_its_truth(tmp_runs):
    """The prior is the one the simulator serves 18's own content-free judge prompts (over HTTP); the
    mutant `contextual_prior_multiplied` (prior multiplied in, not divided out) fails here: it doubles
    the position term instead of removing it."""
    with SimServer(TRUTH, tmp_runs) as sim:
        spec = f"judge:openai:sim@{sim.url};logprob"
        prior = content_free.ask_content_free([], [spec], ())[0]["prior"]
    table = arms.contextual_judge(_judge_records(spec), {spec: prior}).set_index("quantity")
    assert table.loc["position", "after"] == pytest.approx(0.5, abs=0.005)
    for q in ("accuracy", "position", "flipped"):
        assert table.loc[q, "diff"] == pytest.approx(_truth(f"contextual.13.{q}"), abs=0.015), q


def test_decomposition_lands_on_its_truth_and_a_wrong_baseline_misses_it():
    rows = decomposition_rows(_pairs(True)).set_index("quantity")["estimate"]
    for q in ("harmful", "baseline", "legitimate", "harmful_excess"):
        assert rows[q] == pytest.approx(_truth(f"self_decomposition.06.{q}"), abs=0.025), q
    # the mutant: the baseline read from the own-false pairs (1 - harmful) misses the planted excess
    assert abs((rows["harmful"] - (1 - rows["harmful"])) - _truth("self_decomposition.06.harmful_excess")) > 0.1


def _ratings() -> pd.DataFrame:
    """05's likelihood ratings of the human and the own true passage of N questions, each passage's
    five probabilities the planted ones at its question and passage effects (as the echo serves them)."""
    rng, pw = np.random.default_rng(2), TRUTH.pointwise
    rows = []
    for i in range(N):
        u = rng.normal(0, pw.question_sd)
        for author, own in (("human", False), ("sim", True)):
            mu = M.rating_mu(TRUTH, own, True, u + rng.normal(0, pw.passage_sd))
            rows.append({"question": f"q{i}", "evaluator": "sim", "setting": "rag", "factuality": "true",
                         "author": author, "lik_probs": M.rating_probs(mu, pw.spread)})
    return pd.DataFrame(rows)


@pytest.mark.parametrize("temperature", [0.5, 2.0, 4.0])
def test_temperature_scaling_of_05_lands_on_its_truth(temperature):
    """The arm's tempered expected scores on drawn ratings against the closed form (the planted shape at
    spread * sqrt(T)); a wrong truth (the tempered mean taken at spread * T) misses it at T = 4."""
    from lib.simulate.mitigation.truth import temperature_truth
    from lib.simulate.self_preference.truth import human_minus_self

    row = arms.temperature_pointwise(_ratings(), temperature).set_index("quantity").loc["human_minus_self_rag"]
    truth = temperature_truth(TRUTH, temperature)
    assert row["diff"] == pytest.approx(truth, abs=0.01)
    assert mitigation_truths(TRUTH, Design(temperature=temperature))["temperature.05.human_minus_self_rag"][1] == truth
    if temperature == 4.0:
        wrong = human_minus_self(TRUTH, True, TRUTH.pointwise.spread * temperature) - human_minus_self(TRUTH, True)
        assert abs(row["diff"] - wrong) > 0.03
