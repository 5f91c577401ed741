"""The arms on planted inputs: each removes what it should, exactly where it can, and a planted defect
(one per arm: the mutants) changes the answer, so each check can fail."""
import numpy as np
import pandas as pd
import pytest
from scipy.special import expit, log_softmax

from lib.mitigation import arms, calibration
from lib.mitigation.decomposition import decomposition_rows, decomposition_units
from lib.mitigation.findings_rows import mitigation_findings
from lib.mitigation.length_control import (generated_design, judge_design, length_controlled, length_rows,
                                           scalar_design)

POS = 1.5  # additive log-odds of the option shown first


def _pairs06(x: np.ndarray, pos: float = POS) -> pd.DataFrame:
    """06 pairs whose log-odds of choosing passage 1 is pos + x (A first) or pos - x (B first)."""
    rows = []
    for i, xi in enumerate(x):
        for order, d in (("a_first", pos + xi), ("b_first", xi - pos)):  # lp_a - lp_b
            rows.append({"question": f"q{i}", "evaluator": "m", "b_author": "human", "combo": "TF" if i % 2 else "TT",
                         "a_fact": "true", "b_fact": "false" if i % 2 else "true", "order": order,
                         "lp_a": d, "lp_b": 0.0})
    return pd.DataFrame(rows)


def _judge13(x: np.ndarray, pos: float = POS) -> pd.DataFrame:
    """13 records whose log-odds of naming response 1 is pos + x (chosen first) or pos - x."""
    return pd.DataFrame({"rm": "j", "kind": "judge", "spec": "judge:m;logprob", "id": [f"q{i}:a" for i in range(len(x))],
                         "question": [f"q{i}" for i in range(len(x))],
                         "logprobs_cr": [list(log_softmax([pos + v, 0.0])) for v in x],
                         "logprobs_rc": [list(log_softmax([pos - v, 0.0])) for v in x]})


def _row(table, arm, quantity):
    return table[(table["arm"] == arm) & (table["quantity"] == quantity)].iloc[0]


X = np.random.default_rng(1).normal(0.4, 1.0, 60)


def test_balanced_calibration_removes_an_additive_position_term_exactly():
    t = arms.balanced_pairwise(_pairs06(X))
    assert _row(t, "balanced", "self")["after"] == pytest.approx((X > 0).mean())
    assert _row(t, "balanced", "self")["before"] == pytest.approx(np.mean([float(expit(POS + x) > .5) + float(expit(x - POS) > .5) for x in X]) / 2)
    assert _row(t, "balanced", "position")["after"] == 0.5
    assert _row(t, "balanced", "position")["before"] > 0.7
    flipped = _row(t, "balanced", "flipped")["after"]
    assert flipped == pytest.approx(np.mean([float((x > 0) != (x + POS > 0)) + float((x > 0) != (x - POS > 0)) for x in X]) / 2)
    j = arms.balanced_judge(_judge13(X))
    assert _row(j, "balanced", "accuracy")["after"] == pytest.approx((X > 0).mean())
    assert _row(j, "balanced", "position")["after"] == 0.5


def test_mutant_balanced_calibration_averaging_the_first_position_is_caught():
    # the defect: averaging P(passage 1) over the orders (not P(A)) gives no verdict at all
    u = arms.pairwise_units(_pairs06(X))
    wrong = calibration.verdict(calibration.balanced(u["a_first"], 1 - u["b_first"]))
    assert not np.allclose(wrong, (u["v_balanced"]))
    assert not np.isclose(wrong.mean(), (X > 0).mean())


def test_contextual_calibration_divides_out_the_content_free_prior():
    prior = list(expit([POS, -POS]))  # what a content-free input gives under the planted model
    t = arms.contextual_judge(_judge13(X), {"judge:m;logprob": prior})
    assert _row(t, "contextual", "accuracy")["after"] == pytest.approx((X > 0).mean())
    assert _row(t, "contextual", "position")["after"] == pytest.approx(0.5)
    assert _row(t, "contextual", "position")["diff"] < -0.2


def test_mutant_contextual_calibration_with_the_wrong_prior_is_caught():
    wrong = list(expit([-POS, POS]))  # the options' prior swapped: doubles the position term instead
    t = arms.contextual_judge(_judge13(X), {"judge:m;logprob": wrong})
    assert _row(t, "contextual", "position")["after"] != pytest.approx(0.5)
    assert _row(t, "contextual", "accuracy")["after"] != pytest.approx((X > 0).mean())


def _ratings05(shift: float = 0.8) -> pd.DataFrame:
    rng = np.random.default_rng(2)
    rows = []
    for i in range(40):
        for author, mu in (("human", 3.0), ("m", 3.0 + shift)):
            p = np.exp(-((np.arange(1, 6) - mu - rng.normal(0, .3)) ** 2) / (2 * .7 ** 2))
            rows.append({"question": f"q{i}", "evaluator": "m", "author": author, "factuality": "true",
                         "setting": "rag", "lik_probs": list(p / p.sum())})
    return pd.DataFrame(rows)


def test_temperature_one_changes_nothing_and_a_flat_prior_changes_nothing():
    r = _ratings05()
    same = arms.temperature_pointwise(r, 1.0).iloc[0]
    assert same["diff"] == pytest.approx(0.0, abs=1e-12) and same["before"] < -0.5
    flat = arms.contextual_pointwise(r, {("m", "rag"): [0.2] * 5}).iloc[0]
    assert flat["diff"] == pytest.approx(0.0, abs=1e-12)
    hot = arms.temperature_pointwise(r, 50.0).iloc[0]
    assert abs(hot["after"]) < 0.1 and hot["diff"] > 0.5 and hot["p"] < 0.01  # flattened: no difference left


def test_mutant_temperature_applied_to_probabilities_not_log_probabilities_is_caught():
    r = _ratings05()
    probs = np.stack(r["lik_probs"])
    right = calibration.expected_score(calibration.tempered(np.log(probs), 50.0))
    wrong = calibration.expected_score(calibration.tempered(probs, 50.0))
    assert not np.allclose(right, wrong, atol=1e-3)


def _length_pairs(n=600, b_len=0.0, seed=3):
    """Scalar reward model with a planted length term: chosen minus rejected score = 1.0 + b_len *
    length (per 100 words) + logistic noise, so P(chosen higher) = expit(1.0 + b_len * length)."""
    rng = np.random.default_rng(seed)
    ld = rng.normal(80, 100, n)  # chosen responses run longer, as in RAG-RewardBench
    margin = 1.0 + b_len * ld / 100 + rng.logistic(size=n)
    return pd.DataFrame({"rm": "s", "kind": "implicit", "spec": "implicit:m", "id": [f"q{i}:a" for i in range(n)],
                         "question": [f"q{i}" for i in range(n)], "len_chosen": 200 + ld, "len_rejected": 200.0,
                         "score_chosen": margin, "score_rejected": 0.0})


def test_length_control_removes_the_planted_length_term():
    got = length_controlled(scalar_design(_length_pairs(b_len=1.2)), n_boot=20)
    assert got["after"] == pytest.approx(expit(1.0), abs=0.04)  # the planted accuracy at equal lengths
    assert got["ci_low"] < got["diff"] < got["ci_high"] and got["p"] < 0.001
    none = length_controlled(scalar_design(_length_pairs(b_len=0.0)), n_boot=20)
    assert abs(none["diff"]) < 0.02 and none["p"] > 0.01


def _judge_lengths(n=600, seed=4):
    """13 log-probability verdicts: log-odds of response 1 = position + 0.8 quality + 1.0 length (per
    100 words) + logistic noise."""
    rng = np.random.default_rng(seed)
    ld = rng.normal(80, 100, n)  # chosen responses run longer, as in RAG-RewardBench
    cr = 0.8 + POS + 1.0 * ld / 100 + rng.logistic(size=n)  # response 1 = chosen
    rc = -0.8 + POS - 1.0 * ld / 100 + rng.logistic(size=n)  # response 1 = rejected, length difference reversed
    return pd.DataFrame({"rm": "j", "kind": "judge", "spec": "judge:m;logprob", "id": [f"q{i}:a" for i in range(n)],
                         "question": [f"q{i}" for i in range(n)], "len_chosen": 200 + ld, "len_rejected": 200.0,
                         "logprobs_cr": [[0.0, -c] for c in cr], "logprobs_rc": [[0.0, -c] for c in rc]})


JUDGE_TRUTH = (expit(0.8 + POS) + expit(0.8 - POS)) / 2  # planted accuracy at equal lengths, orders averaged


def test_length_control_of_a_judge_keeps_position_apart_from_length():
    got = length_controlled(judge_design(_judge_lengths()), n_boot=0)
    assert got["after"] == pytest.approx(JUDGE_TRUTH, abs=0.04)
    assert got["length_coef"] == pytest.approx(1.0, abs=0.15)


def test_mutant_length_control_without_reversing_the_second_order_is_caught():
    d = judge_design(_judge_lengths())
    wrong = d.assign(length=d["length"].abs() * np.sign(d["length"] * d["quality"]))  # rc rows not reversed
    assert length_controlled(d, n_boot=0)["after"] == pytest.approx(JUDGE_TRUTH, abs=0.04)
    assert abs(length_controlled(wrong, n_boot=0)["after"] - JUDGE_TRUTH) > 0.04


def _generated_lengths(n=1500, b_len=1.0, seed=6):
    """13 generate-and-parse verdicts drawn from P(response 1) = expit(position + 0.8 quality + b_len
    length): a 0/1 choice per order, one unparsed reply in fifty."""
    rng = np.random.default_rng(seed)
    ld = rng.normal(80, 100, n)
    p_cr = expit(0.8 + POS + b_len * ld / 100)  # response 1 = chosen
    p_rc = expit(-0.8 + POS - b_len * ld / 100)  # response 1 = rejected
    choice = lambda p: np.where(rng.random(n) < 0.02, None, np.where(rng.random(n) < p, 1, 2))  # noqa: E731
    return pd.DataFrame({"rm": "g", "kind": "judge", "spec": "judge:m", "id": [f"q{i}:a" for i in range(n)],
                         "question": [f"q{i}" for i in range(n)], "len_chosen": 200 + ld, "len_rejected": 200.0,
                         "choice_cr": choice(p_cr), "choice_rc": choice(p_rc)}), ld


def test_length_control_of_generated_verdicts_recovers_the_accuracy_at_equal_lengths():
    pairs, ld = _generated_lengths()
    d = generated_design(pairs)
    assert len(d) == pytest.approx(2 * 1500 * 0.98, rel=0.02)  # unparsed replies left out
    got = length_controlled(d, n_boot=50, binary=True)
    # the planted change: accuracy at equal lengths minus the planted accuracy at the pairs' lengths
    planted = np.mean((expit(0.8 + POS) + expit(0.8 - POS)) / 2
                      - (expit(0.8 + POS + ld / 100) + expit(0.8 - POS + ld / 100)) / 2)
    assert planted < -0.05
    assert got["diff"] == pytest.approx(planted, abs=0.02)
    assert got["ci_low"] < got["diff"] < got["ci_high"] and got["p"] < 0.001
    assert got["length_coef"] == pytest.approx(1.0, abs=0.2)
    none = length_controlled(generated_design(_generated_lengths(b_len=0.0)[0]), n_boot=0, binary=True)
    assert abs(none["diff"]) < 0.02


def test_mutant_generated_length_control_read_as_log_odds_is_caught():
    """The 0/1 verdicts fitted by least squares as if they were log-odds (the log-probability arm's
    reading) leave the length term in: the after-minus-before change is far from the planted one."""
    pairs, ld = _generated_lengths()
    d = generated_design(pairs)
    planted = np.mean((expit(0.8 + POS) + expit(0.8 - POS)) / 2
                      - (expit(0.8 + POS + ld / 100) + expit(0.8 - POS + ld / 100)) / 2)
    wrong = length_controlled(d.assign(y=2 * d["y"] - 1), n_boot=0)  # +-1 taken for a log-odds
    assert abs(wrong["diff"] - planted) > 0.04


def test_a_separated_category_of_generated_verdicts_is_said_and_not_reported():
    pairs, _ = _generated_lengths(n=300)
    always = pairs.assign(choice_cr=1, choice_rc=2)  # every verdict right: the quality term runs off
    rows, notes = length_rows(always, n_boot=0)
    assert rows.empty and len(notes) == 1 and "separates" in notes[0]


def test_a_category_whose_responses_all_run_longer_keeps_its_accuracy_apart_from_length():
    # two categories: one judged well with every chosen response 60 words longer, one at chance with
    # equal lengths on average; no length term is planted, so length control must change nothing
    rng = np.random.default_rng(5)
    n = 400
    cat = np.repeat(["long", "even"], n // 2)
    ld = np.where(cat == "long", 60 + rng.normal(0, 5, n), rng.normal(0, 30, n))
    quality = np.where(cat == "long", 2.0, 0.0)
    margin = quality + rng.logistic(size=n)
    pairs = pd.DataFrame({"rm": "s", "kind": "implicit", "spec": "implicit:m", "id": [f"q{i}:a" for i in range(n)],
                          "question": [f"q{i}" for i in range(n)], "category": cat, "len_chosen": 200 + ld,
                          "len_rejected": 200.0, "score_chosen": margin, "score_rejected": 0.0})
    got = length_controlled(scalar_design(pairs), n_boot=0)
    assert abs(got["diff"]) < 0.02
    pooled = length_controlled(scalar_design(pairs.drop(columns="category")), n_boot=0)
    assert pooled["diff"] < -0.05  # one quality term: the long category's accuracy taken for length


def test_a_failed_length_fit_is_said_and_not_reported():
    even = _length_pairs(n=200).assign(len_chosen=250.0)  # no spread in length: nothing to fit
    rows, notes = length_rows(even, n_boot=10)
    assert rows.empty and len(notes) == 1 and "not reported" in notes[0]


def _pairs_decomposition(h: float, legit: float, n: int = 80) -> pd.DataFrame:
    rows = []
    for i in range(n):
        for combo, p in (("FT", h), ("TF", legit), ("TT", .5)):
            for order in ("a_first", "b_first"):
                rows.append({"question": f"q{i}", "evaluator": "m", "b_author": "human", "combo": combo,
                             "order": order, "chose_a": float((i + (order == "b_first")) % 10 < p * 10)})
    return pd.DataFrame(rows)


def test_decomposition_parts_follow_from_the_planted_rates():
    rows = decomposition_rows(_pairs_decomposition(h=0.3, legit=0.8)).set_index("quantity")
    assert rows.loc["harmful", "estimate"] == pytest.approx(0.3)
    assert rows.loc["baseline", "estimate"] == pytest.approx(0.2)
    assert rows.loc["legitimate", "estimate"] == pytest.approx(0.8)
    assert rows.loc["harmful_excess", "estimate"] == pytest.approx(0.1)


def test_mutant_decomposition_baseline_from_the_wrong_combination_is_caught():
    u = decomposition_units(_pairs_decomposition(h=0.3, legit=0.8))
    wrong_baseline = 1 - u["harmful"]  # the defect: P(other chosen | FT) instead of | TF
    assert not np.isclose((u["harmful"] - wrong_baseline).mean(), 0.1)


def test_findings_rows_are_declared_and_carry_their_interval():
    table = pd.concat([arms.balanced_judge(_judge13(X)), arms.temperature_pointwise(_ratings05(), 2.0)])
    rows = mitigation_findings(table, decomposition_rows(_pairs_decomposition(0.3, 0.8)), {"m": "local:m"})
    ids = {r["measure_id"] for r in rows}
    assert {"balanced.13.accuracy", "balanced.13.flipped", "temperature.05.human_minus_self_rag",
            "self_decomposition.06.harmful_excess", "self_decomposition.06.harmful"} <= ids
    tested = [r for r in rows if r["measure_id"] == "balanced.13.accuracy"][0]
    assert not np.isnan(tested["p"]) and tested["ci_low"] <= tested["estimate"] <= tested["ci_high"]
    assert all(np.isnan(r["p"]) for r in rows if r["measure_id"].endswith("flipped"))


def test_rows_of_13_name_the_judges_model_as_13_s_own_rows_do():
    # validate matches a row to the served model it measured: 13's rows name a reward spec's target
    j = _judge13(X).assign(spec="judge:openai:sim@http://127.0.0.1:1/v1;logprob")
    rows = mitigation_findings(arms.balanced_judge(j), decomposition_rows(_pairs_decomposition(0.3, 0.8)))
    assert {r["model"] for r in rows if r["measure_id"].startswith("balanced.13")} == {"openai:sim@http://127.0.0.1:1/v1"}


def test_length_control_tests_the_change_not_the_length_coefficient():
    """A strong, exactly fitted length term that flips no verdict changes no accuracy: its p is the
    change's (1.0), not the coefficient's (about 1e-300 here; 1e-31 beside an interval through 0 on the
    simulator's 13)."""
    rng = np.random.default_rng(5)
    n = 200
    ld = rng.uniform(-50, 50, n)
    margin = 10.0 + 1.2 * ld / 100 + rng.normal(0, 0.01, n)  # far from 0 with or without the length term
    pairs = pd.DataFrame({"rm": "s", "kind": "implicit", "spec": "implicit:m", "id": [f"q{i}:a" for i in range(n)],
                          "question": [f"q{i}" for i in range(n)], "len_chosen": 200 + ld, "len_rejected": 200.0,
                          "score_chosen": margin, "score_rejected": 0.0})
    got = length_controlled(scalar_design(pairs), n_boot=20)
    assert got["diff"] == 0 and got["p"] == pytest.approx(1.0)
    assert got["length_coef"] == pytest.approx(1.2, abs=0.01)  # the term is there: only its test was the wrong one
