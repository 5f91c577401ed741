"""The planted model of the utility study (notebooks 09-12): the `utility:` section of a truth file and
the probability of every judgment and answer, all on the log-odds scale with the question effect.

A passage has one of three roles for its question (`lib.simulate.utility.roles`): the ground-truth evidence, a
counterfactual passage, or a distractor (every other passage: the highly / weakly relevant noisy
passages of GTI, the retrieved ones of GTU). The log-odds of judging a passage useful (relevant,
under the relevance prompts) is select[role] + position * i / (n - 1) + u, for the passage shown at
0-based place i of n and the question effect u (sd from the truth file's ICC). Pointwise: P(yes);
pairwise: Bradley-Terry on these log-odds (u cancels); listwise-set: an independent draw per passage;
listwise-rank: Plackett-Luce (a Gumbel draw per passage, sorted). An answer is right with log-odds
answer_good + u when its evidence holds a ground-truth passage, answer_bad + u when it does not; an
answer that is not right is graded (the gold's last words, share answer_keep of them, and a tail) with
probability answer_partial, else wrong (no word of the gold).
"""
from __future__ import annotations

from dataclasses import field
from typing import Literal

import numpy as np
from pydantic import field_validator

from .schema import Probability, Share, section

ROLES = ("ground_truth", "counterfactual", "distractor")
Role = Literal["ground_truth", "counterfactual", "distractor"]


@section
class Utility:
    """Planted parameters of notebooks 09-12 (docs/known_truth.md, "The truth file")."""

    select_utility: dict[Role, float] = field(default_factory=lambda: {"ground_truth": 2.0, "counterfactual": -0.5,
                                                                     "distractor": -2.5})
    select_relevance: dict[Role, float] = field(default_factory=lambda: {"ground_truth": 2.0, "counterfactual": 1.0,
                                                                       "distractor": -1.0})
    position: float = -0.6    # log-odds added to the passage shown last (0 at the first, linear between)
    answer_good: float = 1.7  # log-odds of a right answer when the evidence holds ground truth
    answer_bad: float = -1.4  # ... when it holds none (or there is no evidence)
    answer_partial: Share = 0.5  # share of the answers not right that are graded (some of the gold's words)
    answer_keep: Probability = 0.5  # share of the gold's words a graded answer keeps (`utility.answers`)

    def select(self, judgment: str) -> dict:
        """Selection log-odds by role for 'utility' or 'relevance' prompts."""
        return self.select_relevance if judgment == "relevance" else self.select_utility

    @field_validator("select_utility", "select_relevance")
    @classmethod
    def _every_role(cls, got: dict) -> dict:
        if set(got) != set(ROLES):
            raise ValueError(f"needs exactly the roles {list(ROLES)}, got {sorted(got)}")
        return got


def shown_offsets(u: Utility, n: int) -> np.ndarray:
    """Position log-odds of the n shown places (0 for a single passage)."""
    return u.position * np.arange(n) / (n - 1) if n > 1 else np.zeros(n)


def selection_logits(u: Utility, judgment: str, roles: list[str], q_effect: float = 0.0) -> np.ndarray:
    """Log-odds of judging each shown passage useful (relevant), in shown order."""
    base = np.array([u.select(judgment)[r] for r in roles], float)
    return base + shown_offsets(u, len(roles)) + q_effect


def answer_logit(u: Utility, good_evidence: bool, q_effect: float = 0.0) -> float:
    """Log-odds of a right answer."""
    return (u.answer_good if good_evidence else u.answer_bad) + q_effect
