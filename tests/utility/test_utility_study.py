"""Notebooks 10-12's study functions (lib/utility/study.py) with a scripted reader under the real model
layer: what each reads, asks and returns, the replies file holding this run's replies only, and 11's
orders and requirements left unasked when the caller gives them no form."""
import json

import pytest

from lib.utility import study
from lib.utility.benchmark import save_benchmark
from test_utility_experiments import ROWS, models  # noqa: F401  (the scripted reader fixture)

SPEC = "openai:scripted"


@pytest.fixture
def gti(tmp_path):
    return save_benchmark(ROWS, tmp_path / "utility_gti.jsonl")


def _replies(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_relevance_vs_utility_judges_each_question_in_four_conditions_and_keeps_this_runs_replies(models, gti,
                                                                                                  tmp_path):
    replies = tmp_path / "rq1.jsonl"
    replies.write_text('{"left": "from an earlier run"}\n')
    result = study.relevance_vs_utility(SPEC, gti, datasets=["nq", "marco"], n_boot=50, replies_path=replies,
                                        get_model=models)
    assert [r.source for r in result.questions] == ["nq", "marco"]
    assert result.per_question.groupby(["judgment", "form"]).size().to_dict() == {
        (j, f): 2 for j in ("relevance", "utility") for f in ("listwise-set", "listwise-rank")}
    assert len(_replies(replies)) == 8 and all("left" not in r for r in _replies(replies))
    assert result.ledger.rows and result.rows
    assert {r["notebook"] for r in result.rows} == {"10_relevance_vs_utility"}


def test_utility_factors_asks_no_order_or_requirement_unless_given_their_forms(models, gti, tmp_path):
    result = study.utility_factors([SPEC], gti, tmp_path / "rq2.jsonl", forms=["listwise-set"], positions=[1, 3],
                                   position_forms=["listwise-set"], n_boot=50, get_model=models)
    asked = {(r["factor"], str(r["level"])) for r in _replies(tmp_path / "rq2.jsonl")}
    assert asked == {("form", "question-first"), ("position", "1"), ("position", "3")}
    assert result.orders.empty and result.requirements.empty and len(result.positions) == 2 * len(ROWS)
    assert {r["notebook"] for r in result.rows} == {"11_utility_factors"}
    full = study.utility_factors([SPEC], gti, tmp_path / "rq2.jsonl", forms=["listwise-set"], positions=[1],
                                 position_forms=["listwise-set"], orders=["passages-first"],
                                 order_forms=["listwise-set"], requirements=["cot"],
                                 requirement_forms=["listwise-set"], requirement_dataset="hotpotqa", n_boot=50,
                                 get_model=models)
    assert set(full.orders["level"]) == {"question-first", "passages-first"}  # question-first reused from forms
    assert sorted(full.requirements["level"]) == ["cot", "none"]
    assert {r["factor"] for r in _replies(tmp_path / "rq2.jsonl")} == {"form", "order", "position", "requirement"}


def test_utility_for_answering_keeps_table4s_conditions_for_its_rows(models, tmp_path):
    gtu = save_benchmark(ROWS, tmp_path / "utility_gtu.jsonl")
    result = study.utility_for_answering([SPEC], gtu, utility_forms=["listwise-set"], relevance_forms=[],
                                         k_values=[2], k_curve=True, n_boot=50, get_model=models)
    assert set(result.summary["condition"]) == {"none", "dense", "ground-truth", "utility listwise-set",
                                                "1-sampling", "2-sampling"}
    assert set(result.table4["condition"]) == set(study.table4_conditions([], ["listwise-set"], [2]))
    assert "1-sampling" not in set(result.table4["condition"])  # the k curve's extra points are no Table 4 row
    assert result.parts and {r["notebook"] for r in result.rows} == {"12_utility_for_answering"}
