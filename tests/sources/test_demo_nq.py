"""Checks on the in-house NQ-style demo set, data/demo/nq.jsonl.

Passages are checked for length in words against 80-130: NQ passages in DPR format are 100-word
windows of Wikipedia (v1 paper, Table 2: 100 (0) words), so ours aim at about 100.
"""
import re

import pytest

from tests.demo_checks import DEMO_DIR, item_ids, leak_is_caught, load
from tests.demo_checks import answer_names as _names
from tests.demo_checks import words as _words

DEMO_FILE = DEMO_DIR / "nq.jsonl"
FIELDS = {"id", "source", "question", "answer", "aliases", "title", "human_passage", "query_type",
          "negatives", "false_answer_ours"}
MIN_ITEMS = 40
MIN_NEGATIVES = 3
MIN_WORDS, MAX_WORDS = 80, 130


ITEMS = load(DEMO_FILE)
IDS = item_ids(ITEMS)


def test_enough_items_and_unique_ids():
    assert len(ITEMS) >= MIN_ITEMS
    assert len(set(IDS)) == len(IDS), "duplicate ids"
    assert len({it["question"] for it in ITEMS}) == len(ITEMS), "duplicate questions"


@pytest.mark.parametrize("item", ITEMS, ids=IDS)
def test_fields_exact_and_filled(item):
    assert set(item) == FIELDS
    assert re.fullmatch(r"nq-\d{3}", item["id"])
    assert item["source"] == "nq"
    assert item["query_type"] == ""
    for key in ("question", "answer", "title", "human_passage", "false_answer_ours"):
        assert isinstance(item[key], str) and item[key].strip(), key
    assert isinstance(item["aliases"], list)
    assert all(isinstance(a, str) and a.strip() for a in item["aliases"])


@pytest.mark.parametrize("item", ITEMS, ids=IDS)
def test_question_looks_like_a_search_query(item):
    q = item["question"]
    assert q == q.lower() and not q.rstrip().endswith("?")
    assert 3 <= _words(q) <= 15


@pytest.mark.parametrize("item", ITEMS, ids=IDS)
def test_human_passage_holds_answer_and_has_nq_length(item):
    text = item["human_passage"].lower()
    assert any(name in text for name in _names(item)), "answer missing from human_passage"
    assert MIN_WORDS <= _words(item["human_passage"]) <= MAX_WORDS
    assert "\n" not in item["human_passage"], "one paragraph expected"


@pytest.mark.parametrize("item", ITEMS, ids=IDS)
def test_negatives_on_topic_but_without_answer(item):
    negs = item["negatives"]
    assert len(negs) >= MIN_NEGATIVES
    texts = [n["text"] for n in negs]
    assert len(set(texts + [item["human_passage"]])) == len(texts) + 1, "repeated passage"
    for j, neg in enumerate(negs):
        assert set(neg) == {"title", "text"}
        assert neg["title"].strip() and neg["text"].strip()
        assert MIN_WORDS <= _words(neg["text"]) <= MAX_WORDS, f"negative {j} length"
        low = (neg["title"] + " " + neg["text"]).lower()
        leaked = [name for name in _names(item) if name in low]
        assert not leaked, f"negative {j} contains {leaked}"


def test_answer_check_catches_a_leak(tmp_path):
    """The substring rule must flag a negative that repeats the answer, in any case."""
    assert leak_is_caught(ITEMS[0], tmp_path)


def test_project_loader_reads_the_file():
    """lib.sources.parse_demo accepts the file with every item intact."""
    from lib import sources as data
    df = data.parse_demo(DEMO_FILE)
    assert len(df) == len(ITEMS)
    assert list(df["id"]) == IDS
