"""Which task a prompt is, recognised by the fixed text of our prompt templates (lib.prompts), and
its fields (question, passages, responses) cut out at the templates' own joins."""
from __future__ import annotations

from dataclasses import dataclass, field

from lib.prompts import rag_rewardbench as RB
from lib.prompts import self_preference as SP

# the fixed text around each slot, taken from the templates themselves (never retyped here)
def _between(template: str, before: str | None, after: str) -> str:
    """The fixed text of `template` between slot `before` (None: its start) and slot `after`."""
    rest = template if before is None else template.split("{" + before + "}", 1)[1]
    return rest.split("{" + after + "}", 1)[0]


_RAG_HEAD, _RAG_MID = _between(SP.B1_POINTWISE_RAG, None, "question"), _between(SP.B1_POINTWISE_RAG, "question", "passage")
_BASELINE_MID = _between(SP.POINTWISE_BASELINE_INPUT, None, "passage")
_REWRITE_MID = _between(SP.REWRITE_INPUT, "instruction", "passage")
_JUDGE_HEAD = _between(RB.TABLE6_JUDGE_USER, None, "prompt")
_JUDGE_R1 = _between(RB.TABLE6_JUDGE_USER, "prompt", "response1")
_JUDGE_R2 = _between(RB.TABLE6_JUDGE_USER, "response1", "response2")
_JUDGE_TAIL = RB.TABLE6_JUDGE_USER.split("{response2}")[1]
_GEN_Q = _between(SP.GENERATION_PHASE_INPUT, None, "question")
_GEN_P1 = _between(SP.GENERATION_PHASE_INPUT, "question", "passage_1")
_GEN_P2 = _between(SP.GENERATION_PHASE_INPUT, "passage_1", "passage_2")


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
    from .rm_tasks import recognise_answer  # notebook 15's answers with evidence

    answer = recognise_answer(messages, text)
    if answer is not None:
        return answer
    for kind, instruction in (("rewrite", SP.B1_GENERATE_NORMAL_PASSAGES), ("long", SP.B1_GENERATE_LONG_PASSAGES)):
        rest = _after(text, instruction + _REWRITE_MID)
        if rest is not None:
            return Task(kind, {"passage": rest})
    for kind, template in (("false_answer", SP.B1_GENERATE_FALSE_ANSWER), ("gen_by_qa", SP.B1_GENERATE_GEN_BY_QA_PASSAGES)):
        rest, mid = _after(text, _between(template, None, "question")), _between(template, "question", "answer")
        if rest is not None and mid in rest:
            question, answer = rest.rsplit(mid, 1)
            return Task(kind, {"question": question, "answer": answer})
    rest = _after(text, SP.B1_POINTWISE_BASELINE + _BASELINE_MID)
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
    from .utility_tasks import recognise as utility_task  # notebooks 09-12 (imports this module)
    return utility_task(messages, prompt) or Task("unknown", {"text": text[:200]})


def _judge(text: str) -> Task:
    """Table 6's user prompt: prompt, response 1, response 2 (cut at the template's fixed joins)."""
    rest = _after(text, _JUDGE_HEAD)
    if rest is None or _JUDGE_R1 not in rest or _JUDGE_R2 not in rest or not rest.endswith(_JUDGE_TAIL):
        return Task("unknown", {"text": text[:200]})
    rest = rest[: -len(_JUDGE_TAIL)]
    prompt, responses = rest.split(_JUDGE_R1, 1)
    r1, r2 = responses.rsplit(_JUDGE_R2, 1)
    return Task("judge", {"prompt": prompt, "response1": r1, "response2": r2})
