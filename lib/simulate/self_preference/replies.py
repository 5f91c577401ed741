"""The simulator's replies to the self-preference study's prompts: notebook 02's generated passages
(recorded as its own), 04's knowledge probe, 05's ratings and 06/08's generation-phase choices, in the
paper's formats with the per-token log-probabilities of the choice."""
from __future__ import annotations

import math
import re

from ..core import planted as M
from ..core.replies import token, words
from ..core.labels import simulator_false_answer
from ..core.roles import Roles, norm
from ..core.truth_file import Truth
from .knowledge import knowledge_reply
from .style_length import length_lean


class SelfPreferenceReplier:
    """Answers the self-preference study's recognised tasks under one truth file, over one run's data."""

    def __init__(self, truth: Truth, roles: Roles):
        self.truth, self.roles = truth, roles

    # ------------------------------------------------------------ generation (notebook 02)
    def _rewrite(self, f, key, k, longer=False):
        it = self.roles.item_of_passage(f["passage"])
        sentences = re.split(r"(?<=[.!?])\s+", f["passage"].strip())
        body = " ".join(sentences[1:] + sentences[:1])  # our "style": the first sentence moved last
        text = "In plain words: " + body + (" To say it once more, in other words: " + body if longer else "")
        if it is not None:
            self.roles.record_own(text, it["id"], "long" if longer else "normal")
        return text, words(text, k)

    def _long(self, f, key, k):
        return self._rewrite(f, key, k, longer=True)

    def _gen_by_qa(self, f, key, k):
        it = self.roles.item_of_question(f["question"])
        lead = (it or {}).get("human_passage", "").split(". ")[0]
        text = f"In plain words: asked '{f['question']}', the answer is {f['answer']}. {lead}."
        if it is not None:
            self.roles.record_own(text, it["id"], "qa")
        return text, words(text, k)

    def _false_answer(self, f, key, k):
        # the same rule decides which bank passages state a false answer (`labels.stated_answer`)
        text = f"Answer: {simulator_false_answer(self.roles.item_of_question(f['question']) or {}, f['answer'])}"
        return text, words(text, k)

    def _knowledge(self, f, key, k):
        text = knowledge_reply(self.truth, self.roles.item_of_question(f["question"]), key)
        return text, words(text, k)

    # ------------------------------------------------------------ judgments
    def rating_probs(self, f):
        """P(score = 1..5) of one rating prompt's passage (its role, the question effect)."""
        p = self.roles.passage(f["passage"])
        true = p.true if p is not None else True
        item = p.item_id if p is not None else (f["question"] or f["passage"][:80])
        u = M.question_effect(self.truth, item, self.truth.pointwise.question_sd)
        u += M.passage_effect(self.truth, norm(f["passage"]))
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
        u, u_position, u_factual = M.pair_effects(self.truth, f["question"])
        styled = (self.roles.is_styled(f["passage_1"]), self.roles.is_styled(f["passage_2"]))
        x = M.pair_logit(self.truth, own, true, u, styled, u_position, u_factual)
        x += length_lean(self.truth, styled, f["passage_1"], f["passage_2"])  # 08's pairs only
        return float(M.sigmoid(x)), p1, p2

    def _pair(self, f, key, k):
        q1, p1, p2 = self.pair_choice(f)
        choice = 1 if M.unit_draw(self.truth.seed, "pair", *key) < q1 else 2
        chosen = p1 if choice == 1 else p2
        it = self.roles.item_of_question(f["question"]) or {}
        answer = chosen.answer if chosen else str(it.get("answer", ""))
        lp = {" 1": math.log(max(q1, 1e-300)), " 2": math.log(max(1 - q1, 1e-300))}
        text = f"Answer: {answer};\n\nAnswer retrieved from which passage: {choice}"
        entries = words(f"Answer: {answer};\n\nAnswer retrieved from which passage:", k)
        return text, entries + [token(f" {choice}", lp[f" {choice}"], lp, k)]
