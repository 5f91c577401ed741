"""The simulator's reply to one recognised task: the text in the paper's format and the per-token
log-probabilities that go with it (the choice's distribution at the token that carries it)."""
from __future__ import annotations

import math
import re
from functools import lru_cache

from . import planted as M
from .knowledge import knowledge_reply
from .rm_replies import generate_answer, own_answer_verdict
from .roles import Roles
from .tasks import Task
from .truth_file import Truth

# Replies outside the papers' formats (the planted failure rate): no digit, no "Choose", no marks.
OFF_FORMAT = {
    "rate": "This passage reads well and covers the topic in a reasonable way.",
    "pair": "Both passages discuss the question; they seem helpful overall.",
    "judge": "Both responses have merits and weaknesses worth weighing.",
}


def token(text: str, logprob: float = 0.0, top: dict | None = None, k: int = 0) -> dict:
    """One chat-shaped log-probability entry; `top` ({token: logprob}) cut to the k asked for."""
    alts = sorted((top or {text: logprob}).items(), key=lambda kv: -kv[1])[: max(k, 1)]
    return {"token": text, "logprob": float(logprob), "bytes": None,
            "top_logprobs": [{"token": t, "logprob": float(v), "bytes": None} for t, v in alts]}


def _words(text: str, k: int) -> list[dict]:
    return list(_word_entries(text, k))


@lru_cache(maxsize=4096)
def _word_entries(text: str, k: int) -> tuple[dict, ...]:
    # kept: most replies start with the same fixed words (entries are only read, never changed)
    return tuple(token(w, -0.1, k=k) for w in re.findall(r"\s*\S+", text))


class Replier:
    """Answers recognised tasks under one truth file, over one run's data."""

    def __init__(self, truth: Truth, roles: Roles):
        self.truth, self.roles = truth, roles
        from .utility_replies import UtilityReplier  # notebooks 09-12 (imports this module)
        self.utility = UtilityReplier(truth, roles)

    def reply(self, task: Task, key: tuple, k: int) -> tuple[str, list[dict]]:
        """(text, log-probability entries) for one request; `key` fixes its random draws."""
        if task.kind.startswith("utility_"):
            return self.utility.reply(task, key, k)
        fn = getattr(self, "_" + task.kind, None)
        if fn is None:
            text = "I am not sure what is being asked here."
            return text, _words(text, k)
        if task.kind in OFF_FORMAT and M.format_fails(self.truth, task.kind, *key):
            return OFF_FORMAT[task.kind], _words(OFF_FORMAT[task.kind], k)
        return fn(task.fields, key, k)

    # ------------------------------------------------------------ generation (notebook 02)
    def _rewrite(self, f, key, k, longer=False):
        it = self.roles.item_of_passage(f["passage"])
        sentences = re.split(r"(?<=[.!?])\s+", f["passage"].strip())
        body = " ".join(sentences[1:] + sentences[:1])  # our "style": the first sentence moved last
        text = "In plain words: " + body + (" To say it once more, in other words: " + body if longer else "")
        if it is not None:
            self.roles.record_own(text, it["id"], "long" if longer else "normal")
        return text, _words(text, k)

    def _long(self, f, key, k):
        return self._rewrite(f, key, k, longer=True)

    def _gen_by_qa(self, f, key, k):
        it = self.roles.item_of_question(f["question"])
        lead = (it or {}).get("human_passage", "").split(". ")[0]
        text = f"In plain words: asked '{f['question']}', the answer is {f['answer']}. {lead}."
        if it is not None:
            self.roles.record_own(text, it["id"], "qa")
        return text, _words(text, k)

    def _false_answer(self, f, key, k):
        it = self.roles.item_of_question(f["question"]) or {}
        fa = str(it.get("false_answer_ours") or "").strip()
        if not fa or f["answer"].lower() in fa.lower():
            fa = str(int(f["answer"]) + 7) if f["answer"].strip().isdigit() else "Valparaiso"
        text = f"Answer: {fa}"
        return text, _words(text, k)

    def _knowledge(self, f, key, k):
        text = knowledge_reply(self.truth, self.roles.item_of_question(f["question"]), key)
        return text, _words(text, k)

    # ------------------------------------------------------------ judgments
    def rating_probs(self, f):
        """P(score = 1..5) of one rating prompt's passage (its role, the question effect)."""
        p = self.roles.passage(f["passage"])
        true = p.true if p is not None else True
        item = p.item_id if p is not None else (f["question"] or f["passage"][:80])
        u = M.question_effect(self.truth, item, self.truth.pointwise.question_sd)
        return M.rating_probs(M.rating_mu(self.truth, self.roles.is_own(f["passage"]), true, u),
                              self.truth.pointwise.spread)

    def _rate(self, f, key, k):
        probs = self.rating_probs(f)
        s = M.categorical(probs, M.unit_draw(self.truth.seed, "rate", *key)) + 1
        lps = {str(i + 1): math.log(max(q, 1e-300)) for i, q in enumerate(probs)}
        return f"###{s}***", [token("###", 0.0, k=k), token(str(s), lps[str(s)], lps, k), token("***", 0.0, k=k)]

    def pair_choice(self, f) -> tuple:
        """(P(passage 1 chosen), role of passage 1, role of passage 2) of one generation-phase prompt."""
        p1, p2 = self.roles.passage(f["passage_1"]), self.roles.passage(f["passage_2"])
        own = (self.roles.is_own(f["passage_1"]), self.roles.is_own(f["passage_2"]))
        true = (p1.true if p1 else True, p2.true if p2 else True)
        u = M.question_effect(self.truth, f["question"], self.truth.question_sd)
        styled = (self.roles.is_styled(f["passage_1"]), self.roles.is_styled(f["passage_2"]))
        return float(M.sigmoid(M.pair_logit(self.truth, own, true, u, styled))), p1, p2

    def _pair(self, f, key, k):
        q1, p1, p2 = self.pair_choice(f)
        choice = 1 if M.unit_draw(self.truth.seed, "pair", *key) < q1 else 2
        chosen = p1 if choice == 1 else p2
        it = self.roles.item_of_question(f["question"]) or {}
        answer = chosen.answer if chosen else str(it.get("answer", ""))
        lp = {" 1": math.log(max(q1, 1e-300)), " 2": math.log(max(1 - q1, 1e-300))}
        text = f"Answer: {answer};\n\nAnswer retrieved from which passage: {choice}"
        entries = _words(f"Answer: {answer};\n\nAnswer retrieved from which passage:", k)
        return text, entries + [token(f" {choice}", lp[f" {choice}"], lp, k)]

    def _answer(self, f, key, k):  # notebook 15 (rm_replies.py)
        return generate_answer(self, f, key, k)

    def _judge(self, f, key, k):
        found = self.roles.rm_pair(f["response1"], f["response2"])
        if found is None and (own := own_answer_verdict(self, f, key, k)) is not None:
            return own  # notebook 15's knockout between two of its own answers (rm_replies.py)
        if found is None:  # a pair the run's data does not hold: no planted preference, a fair coin
            category, pair_id, chosen_first, q_chosen = "", f["prompt"][:80], True, 0.5
        else:
            category, pair_id, chosen_first = found
            u = M.question_effect(self.truth, "rm:" + pair_id, self.truth.question_sd)
            q_chosen = float(M.sigmoid(M.judge_logit(self.truth, category, chosen_first, u)))
        q1 = q_chosen if chosen_first else 1 - q_chosen
        choice = 1 if M.unit_draw(self.truth.seed, "judge", *key) < q1 else 2
        lp = {" 1": math.log(max(q1, 1e-300)), " 2": math.log(max(1 - q1, 1e-300))}
        return f"Choose {choice}", [token("Choose", 0.0, k=k), token(f" {choice}", lp[f" {choice}"], lp, k)]
