"""RAG-RewardBench under the planted model: notebook 13's judge verdicts on the run's pairs, and
notebook 15's answers with evidence (right with the planted accuracy for good or bad evidence, recorded
as the simulator's own with whether they are right) and the judge's verdicts between two of its own
answers (the planted RM accuracy and position bias)."""
from __future__ import annotations

import json
import math
import threading

from lib.textmatch import squad_normalize, word_normalize

from ..core import planted as M
from ..core.replies import token, words
from ..core.roles import norm
from .length import length_term, word_count
from .tasks import split_generation

NO_ANSWER = "the references do not say"  # the wrong answer when an item's false answer shares a gold token


class AnswerBook:
    """The answers the simulator wrote for notebook 15: (item id, text) -> right or wrong."""

    def __init__(self, run_dir):
        self.run_dir, self.right, self._lock = run_dir, {}, threading.Lock()

    def record(self, item_id: str, text: str, right: bool) -> None:
        """Remember one generated answer (and append it to the run's simulator_answers.jsonl)."""
        with self._lock:
            self.right[(item_id, norm(text))] = right
            if self.run_dir is not None:
                with open(self.run_dir / "simulator_answers.jsonl", "a", encoding="utf-8") as f:
                    f.write(json.dumps({"item_id": item_id, "right": right, "text": text}, ensure_ascii=False) + "\n")

    def lookup(self, item_id: str, text: str) -> bool | None:
        """Whether an answer the simulator wrote for this item is right (None: not one of its answers)."""
        return self.right.get((item_id, norm(text)))


def book_of(roles) -> AnswerBook:
    """The run's answer book, shared by every served model (one model answers, another judges)."""
    with roles._lock:
        if not hasattr(roles, "answer_book"):
            roles.answer_book = AnswerBook(roles.run_dir)
        return roles.answer_book


def _tokens(text: str) -> set:
    return set(squad_normalize(text).split()) | set(word_normalize(text).split())


def wrong_answer(item: dict, tag: str = "") -> str:
    """A wrong answer sharing no token with the gold answer or its aliases, nor with the reply's
    fixed words and tag (so the reply's recall is 0)."""
    gold = set().union(*[_tokens(a) for a in [item["answer"], *(item.get("aliases") or [])]])
    for cand in (str(item.get("false_answer_ours") or ""), NO_ANSWER, "unknown"):
        if cand.strip() and not (_tokens(f"Answer: {cand}. (draft {tag})") & gold):
            return cand
    return "unknown"


def good_evidence(roles, item: dict, docs: str) -> bool:
    """Good evidence: the item's true (human) passage is among the references and none of the
    run's false passages of that item is."""
    shown = norm(docs)
    if norm(item.get("human_passage", "")) not in shown:
        return False
    roles.refresh()
    false = [t for t, p in roles.bank.items() if p.item_id == item["id"] and not p.true]
    return not any(t in shown for t in false)


def answer_probability(truth, good: bool, u: float = 0.0) -> float:
    """P(the answer states the gold answer) given the evidence and the question effect u."""
    a = truth.answers
    return float(M.sigmoid(M.logit(a.good if good else a.bad) + u))


def generate_answer(replier, f: dict, key: tuple, k: int):
    """(text, log-probability entries) of one sampled answer with evidence."""
    truth, roles = replier.truth, replier.roles
    item = roles.item_of_question(f["question"])
    if item is None:
        text = f"Answer: {NO_ANSWER}."
        return text, words(text, k)
    u = M.question_effect(truth, "answer:" + item["id"], truth.question_sd)
    right = M.unit_draw(truth.seed, "answer", *key) < answer_probability(truth, good_evidence(roles, item, f["docs"]), u)
    # a per-sample tag keeps every sample's text distinct, so no two knockout comparisons are one
    # request (a repeated request would repeat its verdict, and the draws would not be independent)
    tag = "".join(chr(97 + int(M.unit_draw(truth.seed, "tag", i, *key) * 26)) for i in range(6))
    text = f"Answer: {item['answer'] if right else wrong_answer(item, tag)}. (draft {tag})"
    book_of(roles).record(item["id"], text, right)
    return text, words(text, k)


def choose_probability(truth, right: tuple) -> float:
    """P(the judge names response 1) of two own answers, right = (response 1 right, response 2 right):
    the planted accuracy of `answers.judge_category` toward the right one, position toward the first."""
    rb = truth.rewardbench
    if right[0] == right[1]:
        return float(M.sigmoid(rb.position))
    acc = M.logit(rb.accuracy.get(truth.answers.judge_category, 0.75))
    return float(M.sigmoid(acc + rb.position if right[0] else -acc + rb.position))


def own_answer_verdict(replier, f: dict, key: tuple, k: int):
    """The verdict between two of the simulator's own answers (notebook 15's knockout), or None when
    the prompt or either response is not one of them."""
    fields = split_generation(f["prompt"])
    item = replier.roles.item_of_question(fields["question"]) if fields else None
    if item is None:
        return None
    book = book_of(replier.roles)
    right = (book.lookup(item["id"], f["response1"]), book.lookup(item["id"], f["response2"]))
    if None in right:
        return None
    q1 = choose_probability(replier.truth, right)
    choice = 1 if M.unit_draw(replier.truth.seed, "judge", *key) < q1 else 2
    lp = {" 1": math.log(max(q1, 1e-300)), " 2": math.log(max(1 - q1, 1e-300))}
    return f"Choose {choice}", [token("Choose", 0.0, k=k), token(f" {choice}", lp[f" {choice}"], lp, k)]


def judge_reply(replier, f: dict, key: tuple, k: int):
    """Notebook 13's verdict on one judge prompt: the planted accuracy of the pair's category, the
    position bias and the length term toward the run's chosen response (two identical responses, as
    a content-free input shows: the position bias alone; any other pair the run's data does not hold:
    a fair coin)."""
    found = replier.roles.rm_pair(f["response1"], f["response2"])
    if found is None and (own := own_answer_verdict(replier, f, key, k)) is not None:
        return own  # notebook 15's knockout between two of its own answers
    truth = replier.truth
    if found is None and norm(f["response1"]) == norm(f["response2"]):
        # two identical responses (a content-free input): nothing to prefer but the position shown first
        category, chosen_first, q_chosen = "", True, float(M.sigmoid(truth.rewardbench.position))
    elif found is None:  # a pair the run's data does not hold: no planted preference, a fair coin
        category, chosen_first, q_chosen = "", True, 0.5
    else:
        # the question effect is the question's: a question's pairs (one per category) share it
        category, question, chosen_first = found
        u = M.question_effect(truth, "rm:" + question, truth.question_sd)
        chosen, rejected = (f["response1"], f["response2"]) if chosen_first else (f["response2"], f["response1"])
        lean = length_term(truth, word_count(chosen) - word_count(rejected))  # planted toward the longer one
        q_chosen = float(M.sigmoid(M.judge_logit(truth, category, chosen_first, u) + lean))
    q1 = q_chosen if chosen_first else 1 - q_chosen
    choice = 1 if M.unit_draw(truth.seed, "judge", *key) < q1 else 2
    lp = {" 1": math.log(max(q1, 1e-300)), " 2": math.log(max(1 - q1, 1e-300))}
    return f"Choose {choice}", [token("Choose", 0.0, k=k), token(f" {choice}", lp[f" {choice}"], lp, k)]
