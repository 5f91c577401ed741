"""The simulator's replies to the utility study's prompts, in the formats the authors' prompts ask for
('My judgment: yes/no', 'My choice: Passage-k', 'My selection: [...]', 'My rank: [i]>[j]>...'),
drawn from the planted model (`core.utility_model`), with the planted format-failure rate on judgments
and log-probabilities that carry the choice's distribution at the token that states it."""
from __future__ import annotations

import math

import numpy as np

from ..core import planted as M
from ..core import utility_model as UM
from ..core.replies import token, words
from ..core.roles import norm
from ..core.tasks import Task
from ..core.truth_file import Truth
from .answers import WRONG_ANSWER, graded_answer
from .roles import EVIDENCE_LEAD, UtilityRoles

# A judgment outside every format: no yes / no, no passage id, no number, no "none".
OFF_FORMAT = "The passages discuss the topic from several angles."


def _lp(p: float) -> float:
    return math.log(min(max(p, 1e-300), 1.0))


class UtilityReplier:
    """Answers the utility study's recognised tasks under one truth file, over one run's data."""

    def __init__(self, truth: Truth, roles):
        self.truth, self.u = truth, truth.utility
        self.roles = UtilityRoles(roles)

    def q_effect(self, question: str) -> float:
        """The question's random effect, shared by every judgment and answer of it."""
        return M.question_effect(self.truth, "utility:" + norm(question), self.truth.question_sd)

    def reply(self, task: Task, key: tuple, k: int) -> tuple[str, list[dict]]:
        """(text, log-probability entries) of one utility task."""
        f = task.fields
        self.roles.refresh()  # once per request: every look-up below reads what it found
        if task.kind == "utility_evidence":  # 09: fake evidence for the claim (never the true answer)
            text = f"{EVIDENCE_LEAD} {f['claim'].strip()}"  # its lead: the simulator knows its own evidence
            return text, words(text, k)
        if task.kind == "utility_answer":
            return self._answer(f, key, k)
        if M.format_fails(self.truth, task.kind, *key):
            return OFF_FORMAT, words(OFF_FORMAT, k)
        roles = [self.roles.role(f["question"], p, check=False) for p in f["passages"]]
        logits = UM.selection_logits(self.u, f["judgment"], roles, self.q_effect(f["question"]))
        return getattr(self, "_" + f["form"].replace("-", "_"))(f, logits, key, k)

    def _draw(self, key, *what) -> float:
        return M.unit_draw(self.truth.seed, "utility", *key, *what)

    def _pointwise(self, f, logits, key, k):
        p = float(M.sigmoid(logits[0]))
        yes = self._draw(key) < p
        lps = {" yes": _lp(p), " no": _lp(1 - p)}
        said = " yes" if yes else " no"
        head = "Brief reasoning: the passage was weighed against the question.\nMy judgment:"
        return head + said, words(head, k) + [token(said, lps[said], lps, k)]

    def _pairwise(self, f, logits, key, k):
        p0 = float(M.sigmoid(logits[0] - logits[1]))  # Bradley-Terry: the question effect cancels
        choice = "0" if self._draw(key) < p0 else "1"
        lps = {"0": _lp(p0), "1": _lp(1 - p0)}
        return f"My choice: Passage-{choice}", words("My choice: Passage-", k) + [token(choice, lps[choice], lps, k)]

    def _lead(self, f, from_truth: bool) -> str:
        """The answer line the listwise prompts ask for first (the gold one when ground truth was chosen)."""
        answer = self.roles.answer(f["question"], check=False) if from_truth else ""
        return f"Answer: {answer or 'not stated in the passages'}\n"

    def _listwise_set(self, f, logits, key, k):
        probs = M.sigmoid(logits)
        picked = [i for i, p in enumerate(probs) if self._draw(key, i) < p]
        gt = any(self.roles.role(f["question"], f["passages"][i], check=False) == "ground_truth" for i in picked)
        head = self._lead(f, gt) + "My selection: ["
        entries = words(head, k)
        for i in picked:  # each id carries its passage's planted selection probability
            entries.append(token(f"Passage-{i}", _lp(float(probs[i])), {f"Passage-{i}": _lp(float(probs[i]))}, k))
        text = head + ", ".join(f"Passage-{i}" for i in picked) + "]"
        return text, entries + [token("]", 0.0, k=k)]

    def _listwise_rank(self, f, logits, key, k):
        gumbel = [-math.log(-math.log(min(max(self._draw(key, i), 1e-12), 1 - 1e-12))) for i in range(len(logits))]
        order = [int(i) for i in np.argsort(-(np.asarray(logits) + gumbel), kind="stable")]
        first = np.exp(logits - np.max(logits))
        first = first / first.sum()  # Plackett-Luce: the first place's distribution
        lps = {f"[{i}]": _lp(float(q)) for i, q in enumerate(first)}
        gt = self.roles.role(f["question"], f["passages"][order[0]], check=False) == "ground_truth"
        head = self._lead(f, gt) + "My rank: "
        text = head + ">".join(f"[{i}]" for i in order)
        entries = words(head, k) + [token(f"[{order[0]}]", lps[f"[{order[0]}]"], lps, k)]
        return text, entries + [token(f">[{i}]", -0.1, k=k) for i in order[1:]]

    def _answer(self, f, key, k):
        good = any(self.roles.role(f["question"], p, check=False) == "ground_truth" for p in f["passages"])
        p = float(M.sigmoid(UM.answer_logit(self.u, good, self.q_effect(f["question"]))))
        gold = self.roles.answer(f["question"], check=False)
        if gold and self._draw(key, "answer") < p:
            text = gold
        elif gold and self._draw(key, "graded") < self.u.answer_partial:  # some of the gold's words
            text = graded_answer(gold, self.u.answer_keep)
        else:
            text = WRONG_ANSWER
        return text, words(text, k)
