"""Notebook 11's sweep object: each factor's conditions, reuse of question-first answers, positions,
the requirement dataset, and Table 3's split (scripted reader under the real model layer)."""
import json

import pytest

from lib.utility.factors import FactorSweep, split_forms
from test_utility_experiments import ROWS, models  # noqa: F401  (the scripted reader fixture)


@pytest.fixture
def factor_sweep(models, tmp_path):  # noqa: F811
    return FactorSweep(["openai:scripted"], ROWS, tmp_path / "replies.jsonl", n_boot=50, get_model=models)


def test_each_factor_judges_every_question_once_per_level_and_form(factor_sweep, tmp_path):
    form_q = factor_sweep.forms(["listwise-set", "listwise-rank"])
    assert len(form_q) == 2 * len(ROWS) and set(form_q["factor"]) == {"form"}
    order_q = factor_sweep.orders(["question-first", "passages-first"], ["listwise-set"], form_q)
    # question-first is reused from the form sweep, passages-first judged anew
    assert order_q.groupby("level").size().to_dict() == {"question-first": 3, "passages-first": 3}
    pos_q = factor_sweep.positions([1, 3], ["listwise-set"])
    assert sorted(pos_q["position"].unique()) == [1, 3] and len(pos_q) == 2 * len(ROWS)
    req_q = factor_sweep.requirements(["cot"], ["listwise-set"], "hotpotqa")
    assert set(req_q["source"]) == {"hotpotqa"} and sorted(req_q["level"]) == ["cot", "none"]
    lines = (tmp_path / "replies.jsonl").read_text().splitlines()
    assert len(lines) == len(form_q) + 3 + len(pos_q) + len(req_q)  # one reply per judged question
    assert json.loads(lines[0])["factor"] == "form"
    cost, fails = factor_sweep.cost_and_failures(form_q, order_q[order_q.factor == "order"], pos_q, req_q)
    assert fails.groupby("factor")["questions"].sum().to_dict() == {"form": 6, "order": 3, "position": 6,
                                                                    "requirement": 2}
    assert cost["requests / question"].eq(1.0).all()  # listwise: one request per question and method


def test_table3_split_keeps_counts_and_each_forms_metrics(factor_sweep):
    form_q = factor_sweep.forms(["listwise-set", "listwise-rank"])
    sets, ranks = split_forms(factor_sweep.summary(form_q, ["model", "source", "form"]))
    assert set(sets["form"]) == {"listwise-set"} and set(ranks["form"]) == {"listwise-rank"}
    assert {"n", "failure rate", "P", "R", "F1", "F1 per question"} <= set(sets.columns)
    assert "NDCG@1" not in sets and "P" not in ranks and ranks["failure rate"].eq(100.0).all()
    assert sets["F1"].eq(100.0).all()  # the reader picks exactly the gold passage
