"""Findings rows of notebooks 11 and 12: per passage kind selected shares, the kind gaps and the position
effect per question (11), the answer score per evidence condition and the paired gains (12)."""
import numpy as np
import pandas as pd
import pytest

from lib.utility.benchmark import Candidates
from lib.utility.evaluate import judgment_rows, selected_shares
from lib.utility.findings_rows import answering_findings, factor_findings
from lib.utility.judging import Judgment

TYPES = ["ground_truth", "counterfactual", "counterfactual", "highly_relevant", "weakly_relevant"]


def test_selected_shares_count_each_kind_and_leave_a_failed_judgment_blank():
    got = selected_shares([0, 2, 3], TYPES)
    assert got == {"selected ground_truth": 1.0, "selected counterfactual": 0.5, "selected noisy": 0.5}
    assert all(np.isnan(v) for v in selected_shares(None, TYPES).values())
    assert np.isnan(selected_shares([0], ["ground_truth", "highly_relevant"])["selected counterfactual"])


def _form_q(n=12):
    rows = [Candidates(f"q{i}", "q", list("abcde"), [1, 0, 0, 0, 0], passages_types=TYPES, source="nq")
            for i in range(n)]
    # the ground truth always, one counterfactual in even questions, no noisy passage; q0 unreadable
    sel = [None] + [[0, 1] if i % 2 == 0 else [0] for i in range(1, n)]
    js = [Judgment(r.id, "listwise-set", "utility", list(range(5)), selected=s) for r, s in zip(rows, sel)]
    return judgment_rows(rows, js, model="m", factor="form", level="question-first")


def _pos_q(n=12):
    recs = []
    for i in range(n):
        for position, ndcg in ((1, 1.0), (5, 0.0), (10, 1.0 if i % 4 == 0 else 0.0)):
            recs.append({"id": f"q{i}", "model": "m", "form": "listwise-rank", "position": position,
                         "failed": i == 3 and position == 10, "NDCG@1": np.nan if i == 3 and position == 10 else ndcg})
    return pd.DataFrame(recs)


def test_factor_rows_are_per_question_differences_with_their_n():
    rows = {r["measure_id"]: r for r in factor_findings(_form_q(), _pos_q(), n_boot=200)}
    gap = rows["role_selection_gap.listwise_set.ground_truth_minus_counterfactual"]
    # readable q1..q11: counterfactual share 0.5 in q2, q4, ..., q10 (5 questions), 0 in the other 6
    assert gap["n"] == 11 and gap["estimate"] == pytest.approx(1 - 5 * 0.5 / 11)
    assert gap["p"] < 0.01 and gap["ci_low"] <= gap["estimate"] <= gap["ci_high"]
    noisy = rows["role_selection_gap.listwise_set.counterfactual_minus_noisy"]
    assert noisy["estimate"] == pytest.approx(5 * 0.5 / 11)
    pos = rows["position_effect.listwise_rank"]
    # q3 is unreadable at 10: left out; of the other 11, q0, q4, q8 have NDCG@1 = 1 at 10 too
    assert pos["n"] == 11 and pos["estimate"] == pytest.approx(8 / 11)
    assert "pointwise" not in " ".join(rows)  # no pointwise judgment was given


def test_answer_rows_name_the_condition_and_pair_the_questions():
    recs = []
    for i in range(12):
        recs += [{"id": f"q{i}", "model": "m", "source": "nq", "condition": "dense", "F1": 1.0, "EM": 1.0},
                 {"id": f"q{i}", "model": "m", "source": "nq", "condition": "utility listwise-set",
                  "F1": 0.0 if i < 3 else 1.0, "EM": 0.0},
                 {"id": f"q{i}", "model": "m", "source": "nq", "condition": "relevance listwise-set",
                  "F1": 0.5, "EM": 0.0}]
    answers = pd.DataFrame(recs)
    summary = pd.DataFrame([{"model": "m", "source": "nq", "condition": c, "n": 12, "F1": 100 * v,
                             "F1 lo": 100 * v - 5, "F1 hi": 100 * v + 5}
                            for c, v in (("dense", 1.0), ("utility listwise-set", 0.75))])
    rows = {r["measure_id"]: r for r in answering_findings(answers, summary, n_boot=200)}
    assert rows["answer_score.nq.utility_listwise_set"]["estimate"] == pytest.approx(75.0)
    assert rows["answer_gain.nq.utility_minus_dense"]["estimate"] == pytest.approx(-0.25)
    assert rows["answer_gain.nq.utility_minus_relevance"]["estimate"] == pytest.approx(0.75 - 0.5)
    assert rows["answer_gain.nq.utility_minus_dense"]["n"] == 12
