"""The self-preference study's prompts (lib.prompts.self_preference) recognised by the fixed text of
their templates, their fields cut out at the templates' own joins: notebook 02's generation prompts,
04's knowledge probe, 05's ratings and 06/08's generation-phase pairs."""
from __future__ import annotations

from lib.prompts import self_preference as SP

from ..core.tasks import Task, after, between

_RAG_HEAD, _RAG_MID = between(SP.B1_POINTWISE_RAG, None, "question"), between(SP.B1_POINTWISE_RAG, "question", "passage")
_BASELINE_MID = between(SP.POINTWISE_BASELINE_INPUT, None, "passage")
_REWRITE_MID = between(SP.REWRITE_INPUT, "instruction", "passage")
_GEN_Q = between(SP.GENERATION_PHASE_INPUT, None, "question")
_GEN_P1 = between(SP.GENERATION_PHASE_INPUT, "question", "passage_1")
_GEN_P2 = between(SP.GENERATION_PHASE_INPUT, "passage_1", "passage_2")


def recognise(text: str) -> Task | None:
    """The self-preference task of one prompt's last message, or None when it is not one."""
    for kind, instruction in (("rewrite", SP.B1_GENERATE_NORMAL_PASSAGES), ("long", SP.B1_GENERATE_LONG_PASSAGES)):
        rest = after(text, instruction + _REWRITE_MID)
        if rest is not None:
            return Task(kind, {"passage": rest})
    for kind, template in (("false_answer", SP.B1_GENERATE_FALSE_ANSWER), ("gen_by_qa", SP.B1_GENERATE_GEN_BY_QA_PASSAGES)):
        rest, mid = after(text, between(template, None, "question")), between(template, "question", "answer")
        if rest is not None and mid in rest:
            question, answer = rest.rsplit(mid, 1)
            return Task(kind, {"question": question, "answer": answer})
    rest = after(text, SP.B1_POINTWISE_BASELINE + _BASELINE_MID)
    if rest is not None:
        return Task("rate", {"setting": "normal", "question": None, "passage": rest})
    rest = after(text, _RAG_HEAD)
    if rest is not None and _RAG_MID in rest:
        question, passage = rest.split(_RAG_MID, 1)
        return Task("rate", {"setting": "rag", "question": question, "passage": passage})
    rest = after(text, SP.B1_GENERATION_PHASE + _GEN_Q)
    if rest is not None and _GEN_P1 in rest and _GEN_P2 in rest:
        question, both = rest.split(_GEN_P1, 1)
        p1, p2 = both.rsplit(_GEN_P2, 1)
        return Task("pair", {"question": question, "passage_1": p1, "passage_2": p2})
    if text.endswith(SP.KNOWLEDGE_PROBE_SUFFIX):
        return Task("knowledge", {"question": text[: -len(SP.KNOWLEDGE_PROBE_SUFFIX)]})
    return None
