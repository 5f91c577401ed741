"""Findings rows of notebooks 14 (preference for the longer response) and 15 (best-of-N gain): the
estimate as defined, n counting questions (a question's pairs are one unit), declared measure ids."""
import pandas as pd
import pytest

from lib.rewardbench.findings_rows import best_of_n_findings, length_findings, reward_method

SPEC = "judge:openai:sim@http://127.0.0.1:1/v1;retries:0"


def test_length_preference_counts_questions_and_skips_equal_lengths():
    # two questions (q1 with two pairs, q2 with one), one pair of equal length left out
    res = pd.DataFrame({"rm": "j", "kind": "judge", "spec": SPEC, "id": ["q1:a", "q1:b", "q2:a", "q3:a"],
                        "len_diff": [4, -2, 3, 0], "correct": [1.0, 1.0, 0.5, 1.0], "p_rejected": [0.0, 0.0, 0.5, 0.0]})
    row = length_findings(res)[0]
    # picked longer: q1:a chosen longer and picked (1), q1:b rejected longer, never picked (0), q2:a 0.5
    assert row["estimate"] == pytest.approx(0.5) and row["n"] == 2 and row["n_judgments"] == 6
    assert row["measure_id"] == "rm_prefers_longer.generate_and_parse" and row["notebook"] == "14_rm_difficulty"


def test_best_of_n_gain_is_pick_minus_mean_recall_per_question():
    cands = pd.DataFrame({"item_id": ["a"] * 3 + ["b"] * 3, "recall": [1.0, 0.0, 0.0, 0.0, 0.0, 1.0]})
    picks = pd.DataFrame({"item_id": ["a", "b"], "recall": [1.0, 0.0], "rm": "judge:sim;retries:0"})
    row = best_of_n_findings(cands, picks, [SPEC])[0]
    assert row["estimate"] == pytest.approx(((1 - 1 / 3) + (0 - 1 / 3)) / 2) and row["n"] == 2
    assert row["measure_id"] == "best_of_n_gain.generate_and_parse" and row["model"].startswith("openai:sim@")


def test_reward_method_names_the_verdict_method_or_the_kind():
    assert reward_method(SPEC + ";logprob") == "log_probability_verdict"
    assert reward_method("implicit:local:smollm2") == "implicit_reward"
    assert reward_method("implicit:local:smollm2;mean") == "implicit_mean_reward"
