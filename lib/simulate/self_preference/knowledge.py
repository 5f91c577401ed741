"""Notebook 04's knowledge probe under the planted model: a reply is the item's answer with the
planted probability (per dataset, a question effect shared by the question's 5 samples), else a
wrong answer that shares no text with it."""
from __future__ import annotations

from ..core import planted as M
from ..core.truth_file import Truth

# wrong answers to fall back on when the item's written false answer overlaps the true one
_FALLBACK_WRONG = ("Valparaiso", "Ulaanbaatar", "1492")


def p_correct(truth: Truth, dataset: str, v: float = 0.0) -> float:
    """P(one probe reply is right) for a question of `dataset` with question effect v (log-odds)."""
    acc = truth.knowledge.accuracy.get(dataset, 0.5)
    return float(M.sigmoid(M.logit(acc) + v))


def question_knowledge(truth: Truth, item_id: str) -> float:
    """The question effect v of one item (shared by its samples)."""
    return M.question_effect(truth, "knowledge:" + str(item_id), truth.knowledge.question_sd)


def _apart(a: str, b: str) -> bool:
    """Neither text contains the other and they share no word (case-insensitive): a wrong answer
    that no answer-matching rule accepts."""
    a, b = a.lower().strip(), b.lower().strip()
    return bool(a) and a not in b and b not in a and not set(a.split()) & set(b.split())


def wrong_answer(item: dict) -> str:
    """A wrong answer to the item: its written false answer where that is apart from the true one."""
    answer = str(item.get("answer") or "")
    for cand in (str(item.get("false_answer_ours") or ""), *_FALLBACK_WRONG):
        if _apart(cand, answer):
            return cand
    return "no idea"


def knowledge_reply(truth: Truth, item: dict | None, key: tuple) -> str:
    """The probe reply: right with the planted probability (the request's key, which holds the
    sample's seed, fixes the draw), wrong otherwise; an unknown question gets a non-answer."""
    if item is None:
        return "I do not know"
    q = p_correct(truth, str(item.get("source", "")), question_knowledge(truth, item["id"]))
    right = M.unit_draw(truth.seed, "knowledge", *key) < q
    return str(item["answer"]) if right else wrong_answer(item)
