"""RAG-RewardBench's prompts recognised by the fixed text of their templates, cut at the templates' own
joins: notebook 13's judge prompt (Table 6: prompt, response 1, response 2) and notebook 15's generation
prompt (Table 5: the references block and the question)."""
from __future__ import annotations

from lib.prompts import rag_rewardbench as RB

from ..core.tasks import Task, after, between

_HEAD = between(RB.TABLE5_GENERATION_USER, None, "docs")
_MID = between(RB.TABLE5_GENERATION_USER, "docs", "question")
_TAIL = RB.TABLE5_GENERATION_USER.split("{question}", 1)[1]
_SYSTEMS = (RB.TABLE5_GENERATION_SYSTEM, RB.TABLE5_CITATION_SYSTEM)
_JUDGE_HEAD = between(RB.TABLE6_JUDGE_USER, None, "prompt")
_JUDGE_R1 = between(RB.TABLE6_JUDGE_USER, "prompt", "response1")
_JUDGE_R2 = between(RB.TABLE6_JUDGE_USER, "response1", "response2")
_JUDGE_TAIL = RB.TABLE6_JUDGE_USER.split("{response2}")[1]


def is_judge(messages: list[dict] | None, text: str) -> bool:
    """Whether the request carries Table 6's judge system prompt (in its messages, or a raw prompt's start)."""
    system = " ".join(m["content"] for m in messages or [] if m.get("role") == "system")
    return system.startswith(RB.TABLE6_JUDGE_SYSTEM) or (not messages and text.startswith(RB.TABLE6_JUDGE_SYSTEM))


def judge(text: str) -> Task:
    """Table 6's user prompt: prompt, response 1, response 2 (cut at the template's fixed joins)."""
    rest = after(text, _JUDGE_HEAD)
    if rest is None or _JUDGE_R1 not in rest or _JUDGE_R2 not in rest or not rest.endswith(_JUDGE_TAIL):
        return Task("unknown", {"text": text[:200]})
    rest = rest[: -len(_JUDGE_TAIL)]
    prompt, responses = rest.split(_JUDGE_R1, 1)
    r1, r2 = responses.rsplit(_JUDGE_R2, 1)
    return Task("judge", {"prompt": prompt, "response1": r1, "response2": r2})


def split_generation(text: str) -> dict | None:
    """{'docs', 'question'} of a Table 5 user prompt, or None when `text` is not one."""
    if not (text.startswith(_HEAD) and text.endswith(_TAIL) and _MID in text):
        return None
    docs, question = text[len(_HEAD): len(text) - len(_TAIL)].rsplit(_MID, 1)
    return {"docs": docs, "question": question}


def recognise_answer(messages: list[dict] | None, text: str) -> Task | None:
    """An 'answer' task (a RAG answer with evidence, notebook 15) when the request is Table 5's prompt."""
    system = " ".join(m["content"] for m in messages or [] if m.get("role") == "system")
    if messages and system not in _SYSTEMS:
        return None
    fields = split_generation(text)
    return Task("answer", fields) if fields is not None else None
