"""Prompts of the utility study: the authors' templates character for character against the notes
file, the paper's counterfactual prompt verbatim, and our relevance / order / requirement variants."""
import re

import pytest

from lib.prompts import utility as U
from tests.papers import paper_path


def _squash(text):
    return re.sub(r"\s+", " ", text.replace("\u2019", "'")).strip()


def _quoted_in_notes():
    """Every double-quoted string inside backticks in the notes, with \\n read as a newline."""
    text = paper_path("authors-code-notes.md").read_text(encoding="utf-8")
    return {m.replace("\\n", "\n") for m in re.findall(r'`"(.*?)"`', text)} | \
        {m.replace("\\n", "\n") for m in re.findall(r'"((?:[^"\\]|\\.)*)"', text)}


AUTHORS = {name: getattr(U, name) for name in dir(U) if name.startswith("AUTHORS_")}


@pytest.mark.parametrize("name", sorted(AUTHORS))
def test_every_authors_template_is_in_the_notes_verbatim(name):
    assert AUTHORS[name] in _quoted_in_notes(), f"{name} differs from authors-code-notes.md"


def test_the_check_can_fail():
    assert AUTHORS["AUTHORS_LISTWISE_RANK_USER"].replace("all  following", "all following") not in _quoted_in_notes()


def test_messages_are_assembled_as_the_scripts_assemble_them():
    m = U.judgment_messages("who?", ["pa", "pb", "pc"], "utility", "listwise-set")
    assert m[0] == {"role": "system", "content": U.AUTHORS_LISTWISE_SET_SYSTEM + "" + "\n"
                    + U.AUTHORS_LISTWISE_SET_INSTRUCT}
    assert m[1]["content"] == ("Given a question: who?. Please select the passage(s) with utility in answering "
                               "the question from the following 3 passages: \nPassage-0: pa\nPassage-1: pb\n"
                               "Passage-2: pc \n" + "\n" + U.AUTHORS_LISTWISE_SET_INSTRUCT)
    pair = U.judgment_messages("q", ["a", "b"], "utility", "pairwise")[1]["content"]
    assert pair.startswith("Given a question: q, two passages: \nPassage-0: a\nPassage-1: b \n\n")
    rank = U.judgment_messages("q", ["a", "b"], "utility", "listwise-rank")
    assert rank[0]["content"] == U.AUTHORS_LISTWISE_RANK_SYSTEM
    assert "\n[0]: a\n[1]: b \n" in rank[1]["content"]
    point = U.judgment_messages("q", ["a"], "utility", "pointwise")[1]["content"]
    assert point == "Given a question: q, a passage: a \n\n" + U.AUTHORS_POINTWISE_INSTRUCT


def test_relevance_swaps_the_word_in_templates_only():
    m = U.judgment_messages("what is utility", ["utility text"], "relevance", "pointwise")
    text = m[0]["content"] + m[1]["content"]
    assert "relevance" in text and text.count("utility") == 2   # only the question and the passage keep it


def test_passages_first_and_requirements():
    swapped = U.judgment_messages("who wrote it", ["alpha", "beta"], "utility", "listwise-set",
                                  order="passages-first")[1]["content"]
    assert swapped.index("Passage-1: beta") < swapped.index("who wrote it")
    req = U.judgment_messages("q", ["a"], "utility", "pointwise", requirement="requirement")
    assert U.AUTHORS_REQUIREMENT in req[0]["content"] and U.AUTHORS_REQUIREMENT in req[1]["content"]
    with pytest.raises(ValueError, match="requirement"):
        U.judgment_messages("q", ["a"], "utility", "pointwise", requirement="nope")


def test_braces_in_passages_are_left_alone():
    m = U.judgment_messages("q {paras}", ["x {number} y"], "utility", "pointwise")
    assert "q {paras}" in m[1]["content"] and "x {number} y" in m[1]["content"]


def test_counterfactual_prompt_is_verbatim():
    paper = _squash(paper_path("utility-judgments.txt").read_text(encoding="utf-8"))
    assert _squash(U.S224_GENERATE_COUNTERFACTUAL_EVIDENCE) in paper
    assert U.S4_REQUIREMENTS["cot"].rstrip(".") in paper


def test_qa_prompts():
    assert "Passage-0: ev" in U.qa_prompt("q?", ["ev"], factoid=True)
    assert "passages" not in U.qa_prompt("q?", [], factoid=False)
    assert U.counterfactual_evidence_prompt("Paris is in Spain").endswith("Claim: Paris is in Spain Evidence:")
    assert U.as_text([{"content": "s"}, {"content": "u"}]) == "s\n\nu"
