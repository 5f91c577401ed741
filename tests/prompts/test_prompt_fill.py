"""One template fill for every prompt (lib.prompts.fill): same texts as str.format gave, so cache keys
stay; braces inside values and non-slot braces in templates stay literal."""
import pytest

from lib.prompts import rag_rewardbench, self_preference, utility
from lib.prompts.fill import SLOT, fill, slots

VALUES = {"question": "Who wrote Frankenstein?", "answer": "Mary Shelley", "passage": "A passage.",
          "passage_1": "One.", "passage_2": "Two.", "instruction": "Rewrite.", "claim": "A claim.",
          "number": 3, "pair": "Passage-0: x", "paras": "Passage-0: x\nPassage-1: y", "passages": "P",
          "docs": "Reference [1]", "prompt": "p", "response1": "r1", "response2": "r2", "index": 1,
          "title": "T", "text": "t"}


def _templates():
    for module in (self_preference, utility, rag_rewardbench):
        for name, value in vars(module).items():
            if name.isupper() and isinstance(value, str):
                yield f"{module.__name__}.{name}", value
            elif name.isupper() and isinstance(value, dict):
                yield from ((f"{module.__name__}.{name}[{k}]", v) for k, v in value.items() if isinstance(v, str))


@pytest.mark.parametrize("name,template", list(_templates()))
def test_fill_gives_what_str_format_gave(name, template):
    if template.count("{") != len(SLOT.findall(template)):
        pytest.skip("has literal braces: str.format cannot fill it (checked below)")
    assert fill(template, **VALUES) == template.format(**VALUES), name


def test_builders_give_the_former_texts():
    sp = self_preference
    assert sp.pointwise_rag_prompt("Q?", "P.") == sp.B1_POINTWISE_RAG.format(question="Q?", passage="P.")
    assert sp.generation_phase_prompt("Q?", "a", "b") == sp.B1_GENERATION_PHASE + sp.GENERATION_PHASE_INPUT.format(
        question="Q?", passage_1="a", passage_2="b")
    assert utility.qa_prompt("Q?", []) == utility.S234_QA_FACTOID_NO_EVIDENCE.format(question="Q?")
    msgs = utility.judgment_messages("Q?", ["a", "b"], form="listwise-set")
    assert msgs[1]["content"] == (utility.AUTHORS_LISTWISE_SET_USER + "\n" + utility.AUTHORS_LISTWISE_SET_INSTRUCT).format(
        question="Q?", number=2, paras="Passage-0: a\nPassage-1: b")


def test_values_are_not_filled_again_and_literal_braces_stay():
    # a passage quoting a slot name must reach the model as written; chained str.replace would fill it
    out = fill("Q: {question} P: {passage}", question="{passage}", passage="{question}")
    assert out == "Q: {passage} P: {question}"
    citation = rag_rewardbench.TABLE5_CITATION_SYSTEM
    assert "{From document" in citation and slots(citation) == set()
    assert fill(citation + " {question}", question="Q?") == citation + " Q?"


def test_a_slot_without_a_value_is_named():
    with pytest.raises(KeyError, match="response2"):
        fill(rag_rewardbench.TABLE6_JUDGE_USER, prompt="p", response1="r")
