"""Notebook 15's generation prompt (RAG-RewardBench Table 5) recognised by the fixed text of its
template, cut at the template's own joins: the references block and the question."""
from __future__ import annotations

from lib.prompts import rag_rewardbench as RB

from .tasks import Task, _between

_HEAD = _between(RB.TABLE5_GENERATION_USER, None, "docs")
_MID = _between(RB.TABLE5_GENERATION_USER, "docs", "question")
_TAIL = RB.TABLE5_GENERATION_USER.split("{question}", 1)[1]
_SYSTEMS = (RB.TABLE5_GENERATION_SYSTEM, RB.TABLE5_CITATION_SYSTEM)


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
