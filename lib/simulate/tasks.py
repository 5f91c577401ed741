"""Which study's task a prompt is: each study's recogniser in turn (RAG-RewardBench's judge and answer
prompts, the self-preference prompts, the utility prompts), else an unknown task."""
from __future__ import annotations

from .core.formats import asks_format
from .core.tasks import Task
from .rewardbench import tasks as rewardbench
from .self_preference import tasks as self_preference
from .utility import tasks as utility


def recognise(messages: list[dict] | None, prompt: str | None = None) -> Task:
    """The task of one request (chat messages, or a raw prompt), with whether it asks for the paper's
    reply format (the simulator follows the instruction it is given, not the template it expects)."""
    text = (messages[-1]["content"] if messages else prompt) or ""
    if rewardbench.is_judge(messages, text):
        task = rewardbench.judge(text)
    else:
        found = rewardbench.recognise_answer(messages, text) or self_preference.recognise(text)
        task = found or utility.recognise(messages, prompt) or Task("unknown", {"text": text[:200]})
    task.asked = asks_format(task.kind, "\n".join(m.get("content") or "" for m in messages) if messages else text)
    return task
