"""Checks on the in-house TriviaQA-style demo set (data/demo/triviaqa.jsonl).

Passage length range: TriviaQA evidence documents are long, so human passages must have
150-250 words (the task brief) and negatives, which must look alike, 130-260 words.
"""
import json

import pytest

from tests.demo_checks import DEMO_DIR, load as _load
from tests.demo_checks import answer_names as _answer_terms
from tests.demo_checks import words as _words

DEMO_FILE = DEMO_DIR / "triviaqa.jsonl"
FIELDS = ["id", "source", "question", "answer", "aliases", "title", "human_passage",
          "query_type", "negatives", "false_answer_ours"]
HUMAN_WORDS = (150, 250)
NEGATIVE_WORDS = (130, 260)
MIN_ITEMS = 40
MIN_NEGATIVES = 3


@pytest.fixture(scope="module")
def items():
    assert DEMO_FILE.exists(), f"missing {DEMO_FILE}"
    return _load(DEMO_FILE)


def test_enough_items(items):
    assert len(items) >= MIN_ITEMS


def test_ids_unique_and_well_formed(items):
    ids = [it["id"] for it in items]
    assert len(ids) == len(set(ids)), "duplicate ids"
    assert all(i.startswith("triviaqa-") for i in ids)


def test_exact_fields_and_types(items):
    for it in items:
        assert list(it) == FIELDS, f"{it.get('id')}: fields {list(it)}"
        assert it["source"] == "triviaqa", it["id"]
        assert it["query_type"] == "", it["id"]
        assert isinstance(it["aliases"], list), it["id"]
        assert all(isinstance(a, str) and a.strip() for a in it["aliases"]), it["id"]


def test_required_fields_non_empty(items):
    for it in items:
        for key in ["question", "answer", "title", "human_passage", "false_answer_ours"]:
            assert isinstance(it[key], str) and it[key].strip(), f"{it['id']}: empty {key}"
        for neg in it["negatives"]:
            assert set(neg) == {"title", "text"}, it["id"]
            assert neg["title"].strip() and neg["text"].strip(), f"{it['id']}: empty negative"


def test_questions_look_like_trivia(items):
    for it in items:
        q = it["question"]
        assert q[0].isupper(), f"{it['id']}: question not capitalised"
        assert _words(q) >= 5, f"{it['id']}: question too short"


def test_answer_in_human_passage(items):
    # The brief asks for the answer string itself, verbatim (case-insensitive), which implies the
    # weaker "answer or an alias" rule as well.
    for it in items:
        assert it["answer"].lower() in it["human_passage"].lower(), f"{it['id']}: answer missing"


def test_negatives_never_contain_answer_or_alias(items):
    for it in items:
        terms = _answer_terms(it)
        for k, neg in enumerate(it["negatives"]):
            blob = (neg["title"] + " " + neg["text"]).lower()
            hits = [t for t in terms if t in blob]
            assert not hits, f"{it['id']} negative {k}: contains {hits}"


def test_enough_distinct_negatives(items):
    for it in items:
        texts = [n["text"] for n in it["negatives"]]
        assert len(texts) >= MIN_NEGATIVES, f"{it['id']}: {len(texts)} negatives"
        assert len(set(texts)) == len(texts), f"{it['id']}: repeated negative"
        assert it["human_passage"] not in texts, f"{it['id']}: negative equals human passage"


def test_passage_lengths_in_range(items):
    lo, hi = HUMAN_WORDS
    nlo, nhi = NEGATIVE_WORDS
    for it in items:
        n = _words(it["human_passage"])
        assert lo <= n <= hi, f"{it['id']}: human_passage has {n} words, want {lo}-{hi}"
        for k, neg in enumerate(it["negatives"]):
            m = _words(neg["text"])
            assert nlo <= m <= nhi, f"{it['id']} negative {k}: {m} words, want {nlo}-{nhi}"


def test_answers_distinct(items):
    answers = [it["answer"].lower() for it in items]
    assert len(answers) == len(set(answers)), "two items share an answer"


def test_checks_can_fail(tmp_path):
    bad = {"id": "triviaqa-x", "source": "triviaqa", "question": "Which city is it?",
           "answer": "Lima", "aliases": [], "title": "t", "human_passage": "no match here",
           "query_type": "", "negatives": [{"title": "n", "text": "Lima is here"}]}
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(bad) + "\n", encoding="utf-8")
    rows = _load(path)
    with pytest.raises(AssertionError):
        test_answer_in_human_passage(rows)
    with pytest.raises(AssertionError):
        test_negatives_never_contain_answer_or_alias(rows)
    with pytest.raises(AssertionError):
        test_enough_distinct_negatives(rows)
    with pytest.raises(AssertionError):
        test_passage_lengths_in_range(rows)
