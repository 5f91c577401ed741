"""The utility study samples MS MARCO itself: every query type, no answer-in-passage check, never the
self-preference study's notebook-01 items."""
import json
from pathlib import Path

import pandas as pd

from lib import sources
from lib.utility import items as U

SP1 = Path(__file__).parents[1] / "fixtures" / "sp1"


def _marco_file(tmp_path):
    recs = json.loads((SP1 / "marco_v21.json").read_text())
    # a non-factoid DESCRIPTION question whose answer is not a verbatim span of its passage
    recs.append({"query_id": 77, "query": "why do leaves change color in autumn", "query_type": "DESCRIPTION",
                 "passages": [{"is_selected": 1, "passage_text": "Chlorophyll breaks down as days shorten."}],
                 "answers": ["Because chlorophyll breaks down and other pigments show."]})
    path = tmp_path / "marco.json"
    path.write_text(json.dumps(recs))
    return path


def test_marco_is_sampled_from_every_query_type_without_the_verbatim_answer_filter(tmp_path):
    path = _marco_file(tmp_path)
    items = U.loaders(["marco"], {"marco": str(path)})["marco"]()
    # NUMERIC and DESCRIPTION stay, and so does PERSON, whose answer is not in its passage;
    # the LOCATION question ("No Answer Present.") has no answer and goes
    assert sorted(items["query_type"]) == ["DESCRIPTION", "ENTITY", "NUMERIC", "PERSON"]
    # the self-preference sampling (notebook 01) would keep neither of the two new types
    sp_items, _ = sources.prepare_items(["marco"], None, 0, {"marco": str(path)})
    assert set(sp_items["query_type"]) <= {"PERSON", "ENTITY", "LOCATION"}
    assert "77" not in set(sp_items["id"]) and "77" in set(items["id"])


def test_run_items_never_supply_marco_questions(tmp_path):
    path = _marco_file(tmp_path)
    run_items = pd.DataFrame([{"id": "sp-marco-1", "source": "marco", "question": "who invented the telephone",
                               "answer": "Alexander Graham Bell", "human_passage": "x"},
                              {"id": "nq-9", "source": "nq", "question": "q", "answer": "a", "human_passage": "p"}])
    assert U.run_items_for_utility(run_items)["source"].tolist() == ["nq"]
    items, corpus, prov = U.utility_items(["marco"], 0, 0, {"marco": str(path)}, run_items=run_items)
    assert prov["questions from"].tolist() == ["dataset"] and "sp-marco-1" not in set(items["id"])
    assert len(items) == 4 and len(corpus) == 4


def test_released_gti_and_gtu_are_used_as_given_without_a_model(tmp_path):
    rel = Path(__file__).parents[1] / "fixtures" / "utility" / "release.jsonl"
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"question": "who wrote the novel moby dick", "answers": ["Herman Melville"]}) + "\n"
                       + json.dumps({"question": "what is the boiling point of water", "answer": "100 degrees"}) + "\n")
    # a chat model nobody can reach: the released files need no model call
    gti, gtu, report = U.benchmark_sets("openai:none@http://127.0.0.1:9/v1", None, None, gti_release=str(rel),
                                        gtu_release=str(rel), release_dataset="nq", answers_path=str(answers))
    assert report == {} and len(gti) == len(gtu) == 2 and gti[0].answer == "Herman Melville"


def test_a_count_past_the_data_is_drawn_with_replacement_as_distinct_questions():
    """`--size paper` asks 09 for the paper's counts: past the demo data, copies with their own id and
    question (tagged), the passages untouched (GTU retrieval must still find the ground truth)."""
    items, _, prov = U.utility_items(["hotpotqa", "marco"], 0, 0, sizes={"marco": 120}, replace=True)
    marco = items[items["source"] == "marco"]
    assert len(marco) == 120 and prov.set_index("dataset").loc["marco", "questions"] == 120
    assert marco["id"].is_unique and marco["question"].is_unique
    copies = marco[marco["id"].str.contains("~u")]
    assert len(copies) == 120 - marco["id"].str.split("~").str[0].nunique()
    base = marco.set_index("id")
    for _, c in copies.iterrows():
        first = base.loc[c["id"].split("~")[0]]
        assert c["question"].startswith(first["question"] + " [copy u") and c["human_passage"] == first["human_passage"]
    assert (items["source"] == "hotpotqa").sum() == 32  # no size asked: n_items (0: all), no copies


def test_without_replacement_or_within_the_data_nothing_changes():
    plain, _, _ = U.utility_items(["marco"], 0, 0)
    asked, _, _ = U.utility_items(["marco"], 0, 0, sizes={"marco": 120})  # the default: no drawing
    assert asked.equals(plain) and len(plain) == 45
    few, _, _ = U.utility_items(["marco"], 10, 0, replace=True)
    assert few.equals(U.utility_items(["marco"], 10, 0)[0]) and not few["id"].str.contains("~").any()


def test_09_draws_past_01s_copies_from_the_dataset_with_distinct_copies():
    """01's items drawn with replacement hold copies (`<id>~b`, passage tagged): 09 draws NQ from the
    dataset instead, so every ground truth is a corpus passage, and its own mark (`~u...`) keeps its
    copies' ids and questions distinct."""
    run_items, _ = sources.prepare_items(["nq"], 60, 0, replace=True)
    assert run_items["id"].str.contains("~").any()
    items, corpus, prov = U.utility_items(["nq"], 0, 0, run_items=run_items, sizes={"nq": 200}, replace=True)
    assert prov.loc[0, "questions from"] == "dataset (notebook 01's items are copies)" and len(items) == 200
    assert items["id"].is_unique and items["question"].is_unique
    assert items["id"].str.contains("~u").any() and not items["id"].str.contains("~b").any()
    assert set(items["human_passage"]) <= set(corpus["human_passage"])
