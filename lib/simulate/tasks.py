"""Which task a prompt is, recognised by the fixed text of our prompt templates (lib.prompts), and
its fields (question, passages, responses) cut out at the templates' own joins."""
from __future__ import annotations

from dataclasses import dataclass, field

from lib.prompts import rag_rewardbench as RB
from lib.prompts import self_preference as SP

# the fixed text around each slot, taken from the templates themselves (never retyped here)
_RAG_HEAD, _RAG_MID = SP.B1_POINTWISE_RAG.split("{question}")[0], "\n\nPassage: "
_JUDGE_HEAD = RB.TABLE6_JUDGE_USER.split("{prompt}")[0]
_JUDGE_R1 = RB.TABLE6_JUDGE_USER.split("{prompt}")[1].split("{response1}")[0]
_JUDGE_R2 = RB.TABLE6_JUDGE_USER.split("{response1}")[1].split("{response2}")[0]
_JUDGE_TAIL = RB.TABLE6_JUDGE_USER.split("{response2}")[1]
_GEN_Q, _GEN_P1, _GEN_P2 = "\n\nQuestion: ", "\n\nPassage 1: ", "\n\nPassage 2: "


@dataclass
class Task:
    """A recognised prompt: its kind and the fields the simulator needs."""

    kind: str
    fields: dict = field(default_factory=dict)


def _after(text: str, head: str) -> str | None:
    return text[len(head):] if text.startswith(head) else None


def recognise(messages: list[dict] | None, prompt: str | None = None) -> Task:
    """The task of one request (chat messages, or a raw prompt)."""
    system = " ".join(m["content"] for m in messages or [] if m.get("role") == "system")
    text = (messages[-1]["content"] if messages else prompt) or ""
    if system.startswith(RB.TABLE6_JUDGE_SYSTEM) or (not messages and text.startswith(RB.TABLE6_JUDGE_SYSTEM)):
        return _judge(text)
    for kind, instruction in (("rewrite", SP.B1_GENERATE_NORMAL_PASSAGES), ("long", SP.B1_GENERATE_LONG_PASSAGES)):
        rest = _after(text, instruction + "\n\n")
        if rest is not None:
            return Task(kind, {"passage": rest})
    for kind, template in (("false_answer", SP.B1_GENERATE_FALSE_ANSWER), ("gen_by_qa", SP.B1_GENERATE_GEN_BY_QA_PASSAGES)):
        head = template.split("{question}")[0]
        rest = _after(text, head)
        if rest is not None and "\nAnswer: " in rest:
            question, answer = rest.rsplit("\nAnswer: ", 1)
            return Task(kind, {"question": question, "answer": answer})
    rest = _after(text, SP.B1_POINTWISE_BASELINE + "\n\nPassage: ")
    if rest is not None:
        return Task("rate", {"setting": "normal", "question": None, "passage": rest})
    rest = _after(text, _RAG_HEAD)
    if rest is not None and _RAG_MID in rest:
        question, passage = rest.split(_RAG_MID, 1)
        return Task("rate", {"setting": "rag", "question": question, "passage": passage})
    rest = _after(text, SP.B1_GENERATION_PHASE + _GEN_Q)
    if rest is not None and _GEN_P1 in rest and _GEN_P2 in rest:
        question, both = rest.split(_GEN_P1, 1)
        p1, p2 = both.rsplit(_GEN_P2, 1)
        return Task("pair", {"question": question, "passage_1": p1, "passage_2": p2})
    if text.endswith(SP.KNOWLEDGE_PROBE_SUFFIX):
        return Task("knowledge", {"question": text[: -len(SP.KNOWLEDGE_PROBE_SUFFIX)]})
    return Task("unknown", {"text": text[:200]})


def _judge(text: str) -> Task:
    """Table 6's user prompt: prompt, response 1, response 2 (cut at the template's fixed joins)."""
    rest = _after(text, _JUDGE_HEAD)
    if rest is None or _JUDGE_R1 not in rest or _JUDGE_R2 not in rest or not rest.endswith(_JUDGE_TAIL):
        return Task("unknown", {"text": text[:200]})
    rest = rest[: -len(_JUDGE_TAIL)]
    prompt, responses = rest.split(_JUDGE_R1, 1)
    r1, r2 = responses.rsplit(_JUDGE_R2, 1)
    return Task("judge", {"prompt": prompt, "response1": r1, "response2": r2})
