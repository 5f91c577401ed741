"""Checks on the in-house HotpotQA-style demo set, data/demo/hotpotqa.jsonl.

Two-hop bridge or comparison questions written by us, each with two supporting passages (the
ground-truth evidence, 60-120 words each) and three or more same-topic distractors (50-130 words) that
never contain the answer or an alias.
"""
import re

import pytest

from tests.demo_checks import DEMO_DIR, item_ids, leak_is_caught, load
from tests.demo_checks import answer_names as _names
from tests.demo_checks import words as _words

DEMO_FILE = DEMO_DIR / "hotpotqa.jsonl"
FIELDS = {"id", "source", "question", "answer", "aliases", "title", "human_passage", "query_type",
          "negatives", "supporting_passages"}
MIN_ITEMS, MIN_NEGATIVES = 30, 3
SUP_WORDS, NEG_WORDS = (60, 120), (50, 130)


ITEMS = load(DEMO_FILE)
IDS = item_ids(ITEMS)


def test_enough_items_unique_and_both_kinds():
    assert len(ITEMS) >= MIN_ITEMS
    assert len(set(IDS)) == len(IDS) and len({it["question"] for it in ITEMS}) == len(ITEMS)
    assert {it["query_type"] for it in ITEMS} == {"bridge", "comparison"}


@pytest.mark.parametrize("item", ITEMS, ids=IDS)
def test_fields_exact_and_filled(item):
    assert set(item) == FIELDS
    assert re.fullmatch(r"hotpotqa-\d{3}", item["id"]) and item["source"] == "hotpotqa"
    for key in ("question", "answer", "title", "human_passage"):
        assert isinstance(item[key], str) and item[key].strip(), key
    assert item["question"].endswith("?")
    assert all(isinstance(a, str) and a.strip() for a in item["aliases"])


@pytest.mark.parametrize("item", ITEMS, ids=IDS)
def test_two_supporting_passages_carry_the_answer(item):
    sup = item["supporting_passages"]
    assert len(sup) >= 2 and all(set(s) == {"title", "text"} for s in sup)
    assert item["human_passage"] == sup[0]["text"] and item["title"] == sup[0]["title"]
    assert any(n in s["text"].lower() for s in sup for n in _names(item)), "answer in no supporting passage"
    for s in sup:
        assert SUP_WORDS[0] <= _words(s["text"]) <= SUP_WORDS[1], s["title"]
        assert "\n" not in s["text"]
    if item["query_type"] == "comparison":
        # both compared entities are named in the question, the answer among them
        assert item["answer"].lower().removeprefix("the ") in item["question"].lower()


@pytest.mark.parametrize("item", ITEMS, ids=IDS)
def test_distractors_on_topic_but_without_answer(item):
    negs = item["negatives"]
    assert len(negs) >= MIN_NEGATIVES
    texts = [n["text"] for n in negs] + [s["text"] for s in item["supporting_passages"]]
    assert len(set(texts)) == len(texts), "repeated passage"
    for j, neg in enumerate(negs):
        assert set(neg) == {"title", "text"} and neg["title"].strip()
        assert NEG_WORDS[0] <= _words(neg["text"]) <= NEG_WORDS[1], f"negative {j} length"
        low = (neg["title"] + " " + neg["text"]).lower()
        assert not [n for n in _names(item) if n in low], f"negative {j} leaks the answer"


def test_answer_check_catches_a_leak(tmp_path):
    assert leak_is_caught(ITEMS[0], tmp_path)


def test_project_loader_reads_the_file():
    from lib.sources.hotpotqa import COLUMNS, load_hotpotqa
    df = load_hotpotqa()
    assert list(df.columns) == COLUMNS and list(df["id"]) == IDS
    assert all(len(s) >= 2 for s in df["supporting_passages"])
    assert len(load_hotpotqa(n=5, seed=1)) == 5
