"""Which study's task a prompt is: each study's recogniser in turn (RAG-RewardBench's judge and answer
prompts, the self-preference prompts, the utility prompts), else an unknown task."""
from __future__ import annotations

from .core.tasks import Task
from .rewardbench import tasks as rewardbench
from .self_preference import tasks as self_preference
from .utility import tasks as utility


def recognise(messages: list[dict] | None, prompt: str | None = None) -> Task:
    """The task of one request (chat messages, or a raw prompt)."""
    text = (messages[-1]["content"] if messages else prompt) or ""
    if rewardbench.is_judge(messages, text):
        return rewardbench.judge(text)
    found = rewardbench.recognise_answer(messages, text) or self_preference.recognise(text)
    return found or utility.recognise(messages, prompt) or Task("unknown", {"text": text[:200]})
