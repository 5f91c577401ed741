"""The simulator's reply to one recognised task, by study: the text in the paper's format and the
per-token log-probabilities that go with it (the choice's distribution at the token that carries it),
or the planted format failure's off-format text."""
from __future__ import annotations

from .core import planted as M
from .core.replies import words
from .core.roles import Roles
from .core.tasks import Task
from .core.truth_file import Truth
from .rewardbench.replies import generate_answer, judge_reply
from .self_preference.replies import SelfPreferenceReplier
from .utility.replies import UtilityReplier

# Replies outside the papers' formats (the planted failure rate): no digit, no "Choose", no marks.
OFF_FORMAT = {
    "rate": "This passage reads well and covers the topic in a reasonable way.",
    "pair": "Both passages discuss the question; they seem helpful overall.",
    "judge": "Both responses have merits and weaknesses worth weighing.",
}


class Replier(SelfPreferenceReplier):
    """Answers recognised tasks of every study under one truth file, over one run's data."""

    def __init__(self, truth: Truth, roles: Roles):
        super().__init__(truth, roles)
        self.utility = UtilityReplier(truth, roles)

    def reply(self, task: Task, key: tuple, k: int) -> tuple[str, list[dict]]:
        """(text, log-probability entries) for one request; `key` fixes its random draws."""
        if task.kind.startswith("utility_"):
            return self.utility.reply(task, key, k)
        fn = getattr(self, "_" + task.kind, None)
        if fn is None:
            text = "I am not sure what is being asked here."
            return text, words(text, k)
        # a prompt that does not ask for the paper's format gets none; else the planted failure rate
        if task.kind in OFF_FORMAT and (not task.asked or M.format_fails(self.truth, task.kind, *key)):
            return OFF_FORMAT[task.kind], words(OFF_FORMAT[task.kind], k)
        return fn(task.fields, key, k)

    def _answer(self, f, key, k):  # notebook 15
        return generate_answer(self, f, key, k)

    def _judge(self, f, key, k):  # notebook 13, and 15's knockout
        return judge_reply(self, f, key, k)
