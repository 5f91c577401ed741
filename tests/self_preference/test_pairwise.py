"""Generation phase: pair building, which passage was used, preference rates (scripted backend
under a real CachedModel)."""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lib.self_preference import pairwise as pr
from lib.self_preference import tables as pt
from lib.self_preference.bank import load_bank
from lib.self_preference.knowledge import load_knowledge

FIX = Path(__file__).parents[1] / "fixtures" / "sp2"


@pytest.fixture(scope="module")
def bank():
    return load_bank(FIX / "bank.jsonl")


@pytest.mark.parametrize("reply,a1,a2,design,expected", [
    ("Answer: William Shakespeare;\nAnswer retrieved from which passage: 2", "William Shakespeare",
     "Christopher Marlowe", "answer", (1, "answer")),
    ("answer: christopher marlowe.", "William Shakespeare", "Christopher Marlowe", "answer", (2, "answer")),
    # nested answers: "1990s" must not count as "1990"
    ("Answer: the 1990s;", "1990", "1990s", "answer", (2, "answer")),
    ("Answer: 1990;", "1990", "1990s", "answer", (1, "answer")),
    ("Answer: Paris or Lyon", "Paris", "Lyon", "answer", (None, "unparsed")),
    ("Answer: Paris;\nAnswer retrieved from which passage: 2", "Paris", "Paris", "number", (2, "number")),
    ("It comes from passage 1.", "Paris", "Paris", "number", (1, "number")),
    ("The second passage says so.", "Paris", "Paris", "number", (2, "number")),
    ("Answer retrieved from which passage: 1 or 2", "Paris", "Paris", "number", (None, "unparsed")),
    ("Passage 1 and passage 2 agree.", "Paris", "Paris", "number", (None, "unparsed")),
    ("Answer: 2", "Paris", "Paris", "number", (2, "number")),
    ("Answer: 2", "2", "2", "number", (None, "unparsed")),
    ("Answer: 2", "Paris", "Lyon", "answer", (None, "unparsed")),
])
def test_which_passage_our_rule(reply, a1, a2, design, expected):
    assert pr.which_passage(reply, a1, a2, design, passage_rule="ours") == expected


W = "\nAnswer retrieved from which passage: "


@pytest.mark.parametrize("reply,a1,a2,design,expected", [
    ("Answer: William Shakespeare;" + W + "2", "William Shakespeare", "Christopher Marlowe", "answer", (1, "answer")),
    ("Answer: Marlowe;" + W + "1", "William Shakespeare", "Christopher Marlowe", "answer", (2, "answer")),
    # the format is required, as the authors' code requires it
    ("answer: christopher marlowe.", "William Shakespeare", "Christopher Marlowe", "answer", (None, "wrong_format")),
    ("Answer: Marlowe", "William Shakespeare", "Christopher Marlowe", "answer", (None, "wrong_format")),
    # their match is symmetric and loose: "1990" is inside "1990s", so both match and the reply is unusable
    ("Answer: 1990;" + W + "1", "1990", "1990s", "answer", (None, "unparsed")),
    ("Answer: Paris or Lyon;" + W + "1", "Paris", "Lyon", "answer", (None, "unparsed")),
    ("Answer: U.S.;" + W + "2", "the U.S.", "Canada", "answer", (1, "answer")),
    # same answer string: the which-passage part must hold exactly one of "1" and "2"
    ("Answer: Paris;" + W + "2", "Paris", "Paris", "number", (2, "number")),
    ("Answer: Paris;" + W + "Passage 1", "Paris", "Paris", "number", (1, "number")),
    ("Answer: Paris;" + W + "1 or 2", "Paris", "Paris", "number", (None, "unparsed")),
    ("Answer: Paris;" + W + "the second", "Paris", "Paris", "number", (None, "unparsed")),
])
def test_which_passage_authors_rule(reply, a1, a2, design, expected):
    assert pr.which_passage(reply, a1, a2, design) == expected


def test_answer_correct_follows_the_rule():
    reply = "Answer: the Beatles;" + W + "1"
    assert pr.answer_correct(reply, "Beatles") is True
    assert pr.answer_correct(reply, "The Rolling Stones") is False
    assert np.isnan(pr.answer_correct("Beatles", "Beatles"))  # no format: no answer part
    assert pr.answer_correct("Answer: the Beatles", "Beatles", "ours") is True
    assert pr.answer_correct("Answer: Beatles", "the Beatles", "ours") is False  # one-way, unlike theirs


def test_which_passage_number_fallback_is_opt_in():
    reply = "Answer: unknown;\nAnswer retrieved from which passage: 2"
    assert pr.which_passage(reply, "Paris", "Lyon", "answer", passage_rule="ours") == (None, "unparsed")
    assert pr.which_passage(reply, "Paris", "Lyon", "answer", fallback_number=True,
                            passage_rule="ours") == (2, "number_fallback")
    with pytest.raises(ValueError, match="passage_rule"):
        pr.which_passage(reply, "Paris", "Lyon", "answer", passage_rule="other")


def test_build_pairs_counts_orders_and_bad_input(bank):
    pairs = pr.build_pairs(bank, "smollm2")
    # 4 items x 2 other authors x 4 combos x 2 orders
    assert len(pairs) == 4 * 2 * 4 * 2
    assert pairs["b_author"].drop_duplicates().tolist() == ["human", "gemma3"]
    # marco-1 has no smollm2 passage: kept, marked missing
    assert (pairs.loc[pairs["item_id"] == "marco-1", "status"] == "missing_passage").all()
    # nq-3's false answer equals its answer: asymmetric combos cannot be told apart
    nq3 = pairs[pairs["item_id"] == "nq-3"]
    assert set(nq3.loc[nq3["combo"].isin(["TF", "FT"]), "status"]) == {"same_answer"}
    assert set(nq3.loc[nq3["combo"].isin(["TT", "FF"]), "status"]) == {"ok"}
    ok = pairs[pairs["status"] == "ok"]
    assert set(ok.loc[ok["combo"].isin(["TF", "FT"]), "design"]) == {"answer"}
    assert set(ok.loc[ok["combo"].isin(["TT", "FF"]), "design"]) == {"number"}
    # the order swap round-trips: A sits first in a_first rows and second in b_first rows
    for (_, g) in ok.groupby(["item_id", "b_author", "combo"]):
        af, bf = g.set_index("order").loc["a_first"], g.set_index("order").loc["b_first"]
        assert af["text_1"] == bf["text_2"] and af["text_2"] == bf["text_1"]
        assert af["author_1"] == "smollm2" and bf["author_2"] == "smollm2"
    tf = ok[(ok["combo"] == "TF") & (ok["order"] == "a_first") & (ok["item_id"] == "nq-1")].iloc[0]
    assert tf["ans_1"] == "William Shakespeare" and tf["ans_2"] == "Christopher Marlowe"
    assert "Marlowe" in tf["text_2"] and "Shakespeare" in tf["text_1"]


def test_evaluator_without_passages_is_counted_not_crashed(bank):
    pairs = pr.build_pairs(bank, "gpt-4o-mini", other_authors=["human"])
    assert len(pairs) == 4 * 4 * 2 and (pairs["status"] == "missing_passage").all()
    scored = pr.score_pairs(pairs.assign(responses=[[] for _ in range(len(pairs))]))
    table = pt.preference_table(scored.assign(evaluator="gpt-4o-mini"), ["evaluator"])
    assert table["n_missing"].iloc[0] == len(pairs) and table["n_valid"].iloc[0] == 0
    assert np.isnan(table["self_rate"].iloc[0])


@pytest.fixture
def first_reader(scripted_model):
    """Factory: a scripted reader that always uses passage 1 (answers with passage 1's text)."""
    def reply(text, request):
        p1 = request.messages[-1]["content"].split("Passage 1:")[1].split("Passage 2:")[0]
        return f"Answer: {p1.strip()};\nAnswer retrieved from which passage: 1"
    return lambda: scripted_model(reply)


@pytest.mark.parametrize("rule,items", [("authors", ["nq-1"]), ("ours", ["nq-1", "nq-2"])])
def test_always_first_reader_gives_full_order_and_half_self_preference(bank, rule, items, first_reader):
    pairs = pr.build_pairs(bank, "smollm2", items=items)
    model = first_reader()
    scored = pr.ask_evaluator(model, "smollm2", pairs, k_retries=0, passage_rule=rule)
    assert len(model.backend.requests) == (scored["status"] == "ok").sum()
    # The reply quotes all of passage 1, so only the order decides; answer-design rows must resolve
    # by the answer string, number-design rows by the number.
    assert scored["valid"].all()
    assert set(scored.loc[scored["design"] == "answer", "method"]) == {"answer"}
    table = pt.preference_table(scored, ["evaluator", "b_author"])
    assert (table["order_rate"] == 1.0).all()
    assert (table["self_rate"] == 0.5).all()
    assert (table["fact_rate"] == 0.5).all()
    assert (table["self_debiased"] == 0.5).all()
    if len(items) < 2:  # one question is one unit: nothing to test
        assert table["order_p"].isna().all() and (table["order_n_items"] == 1).all()
    else:  # every pair of the two questions says "first": two questions can do no better than p = 2/4
        assert (table["order_p_holm"] >= table["order_p"]).all() and (table["order_p"] > 0.3).all()
    assert (table["n_valid"] == len(items) * 4 * 2).all()


def test_authors_rule_finds_nested_answers_unusable_and_counts_them(bank, first_reader):
    # nq-2: true answer "1990", false "1990s". The authors' symmetric match holds for both, so a reply
    # quoting a passage with "1990s" cannot be told apart: unusable, counted, never guessed.
    pairs = pr.build_pairs(bank, "smollm2", items=["nq-2"], other_authors=["human"])
    scored = pr.ask_evaluator(first_reader(), "smollm2", pairs, k_retries=0)
    bad = scored[~scored["valid"]]
    assert len(bad) and (bad["design"] == "answer").all() and set(bad["method"]) == {"unparsed"}
    assert all("1990s" in t for t in bad["text_1"])
    table = pt.preference_table(scored, ["evaluator"])
    assert table["n_unparsed"].iloc[0] == len(bad)


def test_factual_and_self_rates_follow_the_caption():
    # Four hand-made valid pairs: asymmetric ones decide the factual preference.
    rows = pd.DataFrame({
        "order": ["a_first", "b_first", "a_first", "b_first"],
        "a_fact": ["true", "true", "false", "true"], "b_fact": ["false", "false", "true", "true"],
        "design": ["answer", "answer", "answer", "number"], "status": ["ok"] * 4,
        "ans_1": ["T", "F", "F", "T"], "ans_2": ["F", "T", "T", "T"], "answer": ["T"] * 4,
        "responses": [["Answer: T;" + W + "2"], ["Answer: F;" + W + "2"], ["Answer: T;" + W + "1"],
                      ["Answer: T;" + W + "passage 2"]],
    })
    scored = pr.score_pairs(rows)
    assert scored["choice"].tolist() == [1, 1, 2, 2]
    assert scored["chose_a"].tolist() == [True, False, False, True]
    assert scored["chose_first"].tolist() == [True, True, False, False]
    assert scored["chose_true"].iloc[:3].tolist() == [True, False, True]
    assert pd.isna(scored["chose_true"].iloc[3])
    # debiased self preference: mean of a_first rate (1/2) and b_first rate (1/2)
    assert pr.debiased_rate(scored, "chose_a") == pytest.approx(0.5)


def test_knowledge_table_levels(bank, first_reader):
    pairs = pr.build_pairs(bank, "smollm2", other_authors=["human"])
    scored = pr.ask_evaluator(first_reader(), "smollm2", pairs, k_retries=0)
    table = pt.knowledge_table(scored, load_knowledge(FIX / "knowledge.jsonl"))
    nq = table[table["dataset"] == "nq"].set_index("level")
    assert nq.loc["full", "n_items"] == 1 and nq.loc["none", "n_items"] == 1
    # nq-3 (partial) has only same-answer asymmetric pairs: no factual cell
    assert nq.loc["partial", "fact_n"] == 0
    assert nq.loc["overall", "fact_n"] == nq.loc["full", "fact_n"] + nq.loc["none", "fact_n"]
    assert nq.loc["full", "fact_rate"] == 0.5


def test_tables_of_no_pairs_are_empty_not_errors():
    empty = pr.score_pairs(pr.build_pairs(pd.DataFrame(columns=["item_id", "dataset", "question", "answer",
                                                                 "false_answer", "author", "factuality",
                                                                 "style", "text"]), "smollm2")
                           .assign(responses=[]))
    table = pt.preference_table(empty.assign(evaluator=[]), ["evaluator", "b_author"])
    assert table.empty and "self_rate" in table.columns
    assert pt.table3_wide(table).empty


def test_release_layout_false_pairs_share_the_evaluators_false_answer():
    # In the study's release each model's false answer is also substituted into the human passage.
    release = load_bank(FIX / "nq-both-true.json")
    pairs = pr.build_pairs(release, "gpt")
    assert pairs["b_author"].drop_duplicates().tolist() == ["human", "llama"]
    ff_h = pairs[(pairs["combo"] == "FF") & (pairs["b_author"] == "human")].iloc[0]
    assert ff_h["ans_1"] == ff_h["ans_2"] == "Edgar Degas" and ff_h["design"] == "number"
    assert "Degas" in ff_h["text_2"]
    # gpt's and llama's own false passages carry different false answers: decided by the string
    ff_l = pairs[(pairs["combo"] == "FF") & (pairs["b_author"] == "llama")].iloc[0]
    assert {ff_l["ans_1"], ff_l["ans_2"]} == {"Edgar Degas", "Paul Cezanne"} and ff_l["design"] == "answer"
    assert (pairs["status"] == "ok").all()


def test_style_pairs_compare_styled_with_normal_passages(bank):
    qa = pr.style_pairs(bank, "qa", "human")
    assert len(qa) and set(qa["b_author"]) == {"human"}
    assert set(qa["a_author"]) == set(bank.loc[bank["style"] == "qa", "author"])
    long = pr.style_pairs(bank, "long")
    assert len(long) and (long["a_author"] == long["b_author"]).all()
    assert pr.style_pairs(bank, "no-such-style").empty


def test_author_name_maps_release_names():
    from lib.models.specs import author_name

    assert author_name("openai:gpt-3.5-turbo") == "gpt-3.5-turbo"
    assert author_name("openai:gpt-3.5-turbo", {"gpt-3.5-turbo": "gpt"}) == "gpt"


def _cell(evaluator, dataset, b_author, self_rate, n_valid=10, p=0.5):
    return {"evaluator": evaluator, "dataset": dataset, "b_author": b_author, "self_rate": self_rate,
            "order_rate": 0.5, "fact_rate": 0.8, "n_valid": n_valid, "self_p_holm": p, "order_p_holm": p,
            "fact_p_holm": p}


def test_table3_margins_as_the_paper_computes_them():
    cells = pd.DataFrame([_cell("A", "nq", "human", 0.40, n_valid=100), _cell("A", "nq", "B", 0.50, n_valid=2),
                          _cell("B", "nq", "human", 0.60), _cell("B", "nq", "A", 0.20)])
    m = pt.table3_margins(cells)
    agg = m[m["b_author"] == "Aggregated"].set_index("evaluator")["self_rate"]
    # unweighted mean of the row's cells, whatever their n (pooled would give ~0.40 for A)
    assert agg["A"] == pytest.approx(0.45) and agg["B"] == pytest.approx(0.40)
    avg = m[m["evaluator"] == "Average"].set_index("b_author")["self_rate"]
    assert avg["human"] == pytest.approx(0.50)  # mean over the evaluator x dataset rows
    assert avg["A"] == pytest.approx(0.20) and avg["B"] == pytest.approx(0.50)
    assert avg["Aggregated"] == pytest.approx(0.425)
    wide = pt.table3_wide(cells, m)
    assert wide["evaluator"].tolist() == ["A", "B", "Average"]
    assert wide.iloc[-1]["Aggregated"] == "42.5 / 50.0 / 80.0"


def test_holm_runs_over_the_cells_only(bank, first_reader):
    pairs = pr.build_pairs(bank, "smollm2", items=["nq-1", "nq-2"])
    scored = pr.ask_evaluator(first_reader(), "smollm2", pairs, k_retries=0)
    cells = pt.preference_table(scored, ["dataset", "evaluator", "b_author"])
    from lib import stats
    assert cells["order_p_holm"].tolist() == pytest.approx(list(stats.holm(cells["order_p"].tolist())))
    pooled = pt.preference_table(scored, ["dataset", "evaluator"])
    wide = pt.table3_wide(cells, pt.table3_margins(cells), pooled)
    assert pt.POOLED in wide.columns and pt.AGGREGATED in wide.columns
