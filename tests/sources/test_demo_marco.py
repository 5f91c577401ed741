"""The in-house MS MARCO-style demo set (data/demo/marco.jsonl): layout, answers and distractors.

Word range: 40-90 words for the human passage and for every negative. MS MARCO passages in the
self-preference study average 68.5 words (sd 25.6, v1 Table 2); 40-90 keeps the demo within about
one sd of that, and keeps the negatives close in length to the positive so length is not a cue.
"""
import re
from pathlib import Path

import pytest

from tests.demo_checks import DEMO_DIR, item_ids, load
from tests.demo_checks import answer_names as needles
from tests.demo_checks import words as n_words

DEMO_FILE = DEMO_DIR / "marco.jsonl"
FIELDS = {"id", "source", "question", "answer", "aliases", "title", "human_passage", "query_type",
          "negatives", "false_answer_ours"}
QUERY_TYPES = {"PERSON", "ENTITY", "LOCATION", "NUMERIC", "DESCRIPTION"}
# v1 of the self-preference paper keeps only these MS MARCO query types (section 3.1).
KEPT_TYPES = {"PERSON", "ENTITY", "LOCATION"}
MIN_ITEMS, MIN_KEPT, MIN_NEGATIVES = 42, 30, 3
MIN_WORDS, MAX_WORDS = 40, 90


def load_items(path: Path = DEMO_FILE) -> list[dict]:
    """Every JSON object of the demo file, one per non-empty line."""
    return load(path)


def leaks(item: dict, text: str) -> list[str]:
    """Answer strings (answer or alias) found in `text`, case-insensitive substring match."""
    low = text.lower()
    return [n for n in needles(item) if n in low]


ITEMS = load_items()
IDS = item_ids(ITEMS)


def test_file_size_ids_and_query_type_mix():
    assert len(ITEMS) >= MIN_ITEMS
    ids = [it["id"] for it in ITEMS]
    assert len(ids) == len(set(ids)), "duplicate ids"
    kept = sum(it["query_type"] in KEPT_TYPES for it in ITEMS)
    assert kept >= MIN_KEPT, f"only {kept} PERSON/ENTITY/LOCATION items"
    questions = [it["question"] for it in ITEMS]
    assert len(questions) == len(set(questions)), "duplicate questions"


@pytest.mark.parametrize("item", ITEMS, ids=IDS)
def test_item_layout(item):
    assert set(item) == FIELDS
    assert re.fullmatch(r"marco-\d{3}", item["id"])
    assert item["source"] == "marco"
    assert item["query_type"] in QUERY_TYPES
    for field in ("question", "answer", "title", "human_passage", "false_answer_ours"):
        assert isinstance(item[field], str) and item[field].strip(), f"{field} is empty"
    assert isinstance(item["aliases"], list) and all(isinstance(a, str) and a.strip()
                                                     for a in item["aliases"])
    # Bing-log style: lower-case queries
    assert item["question"] == item["question"].lower()


@pytest.mark.parametrize("item", ITEMS, ids=IDS)
def test_human_passage_holds_answer_and_fits_length(item):
    assert item["answer"].lower() in item["human_passage"].lower()
    assert MIN_WORDS <= n_words(item["human_passage"]) <= MAX_WORDS


@pytest.mark.parametrize("item", ITEMS, ids=IDS)
def test_negatives_are_answer_free_and_fit_length(item):
    negs = item["negatives"]
    assert isinstance(negs, list) and len(negs) >= MIN_NEGATIVES
    texts = [n["text"] for n in negs]
    assert len(set(texts)) == len(texts) and item["human_passage"] not in texts
    for j, neg in enumerate(negs):
        assert set(neg) == {"title", "text"}
        assert neg["title"].strip() and neg["text"].strip()
        # the title is shown with the passage, so it must not give the answer away either
        assert not leaks(item, neg["text"] + " " + neg["title"]), f"negatives[{j}] leaks the answer"
        assert MIN_WORDS <= n_words(neg["text"]) <= MAX_WORDS, f"negatives[{j}] length"


def test_leak_check_catches_a_planted_answer_and_alias():
    item = {"answer": "Canberra", "aliases": ["ACT capital", " "]}
    assert leaks(item, "The seat of government moved to CANBERRA in 1927.") == ["canberra"]
    assert leaks(item, "Often called the act capital by locals.") == ["act capital"]
    assert leaks(item, "Sydney and Melbourne were rivals.") == []


def test_file_loads_through_project_loader():
    from lib.sources import ITEM_COLUMNS, parse_demo
    frame = parse_demo(DEMO_FILE)
    assert list(frame.columns) == ITEM_COLUMNS
    assert len(frame) == len(ITEMS)
    assert set(frame["source"]) == {"marco"}
