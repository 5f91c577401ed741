"""Per-question rows, the paper's set F1, failure handling, paper layout, cost and evidence bookkeeping."""
import numpy as np
import pandas as pd
import pytest

from lib.utility.answering import evidence_by_condition, evidence_from_judgment
from lib.utility.benchmark import Candidates
from lib.utility.calls import Ledger
from lib.utility.evaluate import (SET_EXTRA, cost_per_question, failure_table, harmonic_f1, judgment_rows,
                                  side_by_side, summarize, with_intervals)
from lib.utility.experiments import cost_table
from lib.utility.judging import Judgment

ROWS = [Candidates(id=f"q{i}", question="q", passage=["a", "b", "c"], ground_truth_label=[0, 1, 0],
                   source="nq", ground_truth_passages=["b"]) for i in range(4)]


def judgments(form):
    if form == "listwise-set":
        sel = [[1], [0, 1], None, [2]]
        return [Judgment(r.id, form, "utility", [0, 1, 2], selected=s,
                         counts={"ok": 1} if s is not None else {"failed": 1}) for r, s in zip(ROWS, sel)]
    ranks = [[1, 0, 2], [0, 1, 2], None, [1, 2, 0]]
    return [Judgment(r.id, form, "utility", [0, 1, 2], ranking=k, counts={"repaired": 1})
            for r, k in zip(ROWS, ranks)]


def test_set_f1_is_the_harmonic_mean_of_averaged_p_and_r():
    df = judgment_rows(ROWS, judgments("listwise-set"))
    s = summarize(df, ["source", "form"], ["P", "R", "F1"], n_boot=200)
    # readable: P = 1, 1/2, 0 ; R = 1, 1, 0
    p, r = (1 + 0.5 + 0) / 3, 2 / 3
    assert s["P"].iloc[0] == pytest.approx(100 * p) and s["R"].iloc[0] == pytest.approx(100 * r)
    assert s["F1"].iloc[0] == pytest.approx(100 * harmonic_f1(p, r))
    assert s[SET_EXTRA].iloc[0] == pytest.approx(100 * (1 + 2 / 3 + 0) / 3)   # the labelled extra differs
    assert s["F1 lo"].isna().all() and s["F1 hi"].isna().all()  # 3 readable questions: no interval, as findings
    assert s["n"].iloc[0] == 4 and s["n_failed_questions"].iloc[0] == 1
    assert s["failure rate"].iloc[0] == pytest.approx(25.0)
    zero = summarize(df, ["source", "form"], ["P", "R", "F1"], n_boot=200, failures="zero")
    assert zero["P"].iloc[0] == pytest.approx(100 * 1.5 / 4)


def test_paper_cell_nq_utility():
    assert harmonic_f1(57.19, 73.00) == pytest.approx(64.14, abs=0.01)


def test_failed_ranking_scores_nothing_and_is_counted():
    df = judgment_rows(ROWS, judgments("listwise-rank"))
    assert np.isnan(df["NDCG@1"].iloc[2]) and df["failed"].iloc[2]
    f = failure_table(df, ["form"])
    assert f["failed questions"].iloc[0] == 1 and f["questions"].iloc[0] == 4
    assert f["lo"].iloc[0] <= f["failure rate"].iloc[0] <= f["hi"].iloc[0]


def test_side_by_side_and_display():
    df = pd.concat([judgment_rows(ROWS, judgments(f)) for f in ("listwise-set", "listwise-rank")])
    s = summarize(df, ["source", "judgment", "form"], ["P", "R", "F1", "NDCG@1", "NDCG@5", "MRR@5"], n_boot=200)
    t = side_by_side(s, ["source", "judgment"])
    assert len(t) == 1 and t["NDCG@1"].iloc[0] == pytest.approx(100 * 2 / 3)
    assert t["failed set"].iloc[0] == 1 and t["n rank"].iloc[0] == 4
    assert with_intervals(t, ["F1", "NDCG@1"])["NDCG@1"].iloc[0] == "66.7"  # 4 questions: no interval


def test_costs_keyed_by_model_and_method():
    led = Ledger()
    led.add(("m", "k-sampling"), requests=10, tokens_in=1000, tokens_out=50, misses=10)
    led.add(("m", "answer 2-sampling"), requests=2, hits=2, tokens_in=100, tokens_out=10)
    c = cost_table(led, {("m", "2-sampling"): {"k-sampling": 0.5, "answer 2-sampling": 1.0}}, 2)
    assert c["requests / question"].iloc[0] == pytest.approx((0.5 * 10 + 2) / 2)
    per = cost_per_question(led.table(), {("m", "k-sampling"): 5, ("m", "answer 2-sampling"): 2})
    assert per["requests / question"].tolist() == [2.0, 1.0]


def test_evidence_for_sets_rankings_failures_and_conditions():
    r = Candidates(id="x", question="q", passage=["a", "b", "c", "d"], ground_truth_label=[0, 0, 1, 1],
                   ground_truth_passages=["c", "d"])
    assert evidence_from_judgment(r, Judgment("x", "listwise-set", "utility", [], selected=[1, 3])) == ["b", "d"]
    rank = Judgment("x", "listwise-rank", "utility", [], ranking=[3, 0, 2, 1])
    assert evidence_from_judgment(r, rank, 2) == ["a", "d"]
    assert evidence_from_judgment(r, rank, 0) == ["d"]
    assert evidence_from_judgment(r, Judgment("x", "listwise-rank", "utility", [])) == []
    assert evidence_by_condition(r, "ground-truth") == ["c", "d"]
    assert evidence_by_condition(r, "dense") == ["a", "b", "c", "d"]
