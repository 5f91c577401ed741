"""Checks on `false_answer_ours`, our own false answer on every demo item (nq, marco, triviaqa).

The passage bank swaps the answer for a false answer to make false passages (v2 paper, section 3.2);
ours is the fallback where the model's false answer is unusable. Checked here, per item:
- it differs from the answer and every alias, and neither contains the other (case-insensitive);
- it occurs in neither the human passage nor any negative (text or title), so a false passage is
  clearly false;
- substituting it for the answer in the human passage (lib.falsify.false_passage, every
  occurrence, case-insensitive) changes the passage and leaves no occurrence of the answer. The
  answer substituted is the one the loader keeps (lib.sources.item_sampling.answer_in_passage: the alias found in the
  passage when the main answer is not there, as in nq-021);
- the bank's own reply parser (parse_false_answer) would accept it as a model's false answer;
- a number stays a number: a year for a year (same digit count), and a measure keeps its unit.
Titles are checked with the negatives' texts because the title is shown with the passage.
Not checked by program: plausibility and grammar of the substituted sentence (read by us).
"""
import json
import re
from collections import Counter

import pytest

from lib.sources.item_sampling import answer_in_passage
from lib.falsify import false_passage, parse_false_answer
from tests.demo_checks import DEMO_DIR, load

SOURCES = ("nq", "marco", "triviaqa")
FIELD = "false_answer_ours"


def _golds(item: dict) -> list[str]:
    """Answer and aliases, blanks dropped."""
    return [s for s in [item["answer"], *item["aliases"]] if s.strip()]


def _number_form_problems(answer: str, false: str) -> list[str]:
    """A year stays a year (same digit count); a measure keeps its unit words. Only answers that
    start with a number count (not names like 'Sputnik 1')."""
    if not re.match(r"\d[\d,.]*(\s|$)", answer):
        return []
    if not re.match(r"\d[\d,.]*(\s|$)", false):
        return [f"answer {answer!r} is a number, false answer {false!r} is not"]
    if answer.isdigit() and not (false.isdigit() and len(false) == len(answer)):
        return [f"{false!r} is not a {len(answer)}-digit number like {answer!r}"]
    unit = [w for w in answer.split() if not re.search(r"\d", w)]
    if unit != [w for w in false.split() if not re.search(r"\d", w)]:
        return [f"{false!r} does not keep the unit {' '.join(unit)!r}"]
    return []


def problems(item: dict) -> list[str]:
    """Every broken rule of the item's false answer, as readable messages (empty when fine)."""
    false = item.get(FIELD)
    if not isinstance(false, str) or not false.strip():
        return [f"{FIELD} missing or empty"]
    low = false.lower()
    out = []
    for gold in _golds(item):
        if low in gold.lower() or gold.lower() in low:
            out.append(f"{false!r} and answer/alias {gold!r}: one contains the other")
    if low in item["human_passage"].lower():
        out.append(f"{false!r} already occurs in the human passage")
    for j, neg in enumerate(item["negatives"]):
        if low in (neg["title"] + "\n" + neg["text"]).lower():
            out.append(f"{false!r} occurs in negatives[{j}]")
    kept = answer_in_passage(item["human_passage"], item["answer"], item["aliases"])
    if kept is None:
        out.append("no answer or alias in the human passage to substitute")
    else:
        made = false_passage(item["human_passage"], kept, false)
        if made is None or made == item["human_passage"]:
            out.append(f"substituting {false!r} for {kept!r} leaves the answer or changes nothing")
        for ans in {item["answer"], kept}:
            if parse_false_answer(false, ans) is None:
                out.append(f"the bank's parser rejects {false!r} as a false answer to {ans!r}")
        out += _number_form_problems(kept, false)
    return out


ITEMS = [it for src in SOURCES for it in load(DEMO_DIR / f"{src}.jsonl")]


def test_all_three_files_are_read():
    assert {it["source"] for it in ITEMS} == set(SOURCES)
    assert len(ITEMS) >= 130


@pytest.mark.parametrize("item", ITEMS, ids=[it["id"] for it in ITEMS])
def test_false_answer_obeys_the_rules(item):
    assert problems(item) == []


def shared_non_numbers(false_answers: list[str]) -> list[str]:
    """False answers (lower-cased) given to more than one item that are not plain numbers."""
    counts = Counter(fa.lower() for fa in false_answers)
    return [fa for fa, n in counts.items() if n > 1 and not re.fullmatch(r"[\d,.]+", fa)]


def test_no_copy_pasted_false_answers():
    """Two items may share a false answer only when it is a number (a year, a count)."""
    assert shared_non_numbers([it[FIELD] for it in ITEMS]) == []


BROKEN = {  # rule broken -> (change to a good item, words the message must contain)
    "equals answer": (lambda it: {FIELD: it["answer"].upper()}, "contains"),
    "contains answer": (lambda it: {FIELD: "old " + it["answer"]}, "contains"),
    "inside an alias": (lambda it: {"aliases": ["Big " + it[FIELD]]}, "contains"),
    "in human passage": (lambda it: {"human_passage": it["human_passage"] + " Not " + it[FIELD].upper()},
                         "human passage"),
    "in a negative": (lambda it: {"negatives": it["negatives"][:1] + [
        {"title": "x", "text": "see " + it[FIELD]}]}, "negatives[1]"),
    "empty": (lambda it: {FIELD: "  "}, "missing or empty"),
    "too long": (lambda it: {FIELD: " ".join(["word"] * 12)}, "parser rejects"),
    "year to name": (lambda it: {"answer": "1989", "aliases": [],
                                 "human_passage": "It fell in 1989.", FIELD: "Paris"}, "not"),
    "year to 3 digits": (lambda it: {"answer": "1989", "aliases": [],
                                     "human_passage": "It fell in 1989.", FIELD: "212"}, "4-digit"),
    "unit dropped": (lambda it: {"answer": "8,849 metres", "aliases": [],
                                 "human_passage": "It is 8,849 metres tall.", FIELD: "8,760 feet"}, "unit"),
    "no answer in passage": (lambda it: {"human_passage": "Nothing to see here."}, "no answer"),
}


@pytest.mark.parametrize("rule", sorted(BROKEN))
def test_checks_catch_a_broken_copy(rule, tmp_path):
    """A good item, broken one way and read back from a file, is flagged for that rule."""
    good = next(it for it in ITEMS if it["id"] == "nq-013")
    assert problems(good) == []
    change, words = BROKEN[rule]
    path = tmp_path / "broken.jsonl"
    path.write_text(json.dumps({**good, **change(good)}, ensure_ascii=False) + "\n", encoding="utf-8")
    found = problems(load(path)[0])
    assert any(words in msg for msg in found), found


def test_copy_paste_check_flags_a_shared_name_not_a_shared_year():
    assert shared_non_numbers(["Adelaide", "adelaide", "1991", "1991", "Perth"]) == ["adelaide"]
