"""The planted model: the probability of each reply, and a seeded draw of it. The server (what the
pipeline sees) and `truth` (what the pipeline should find) both use these functions, so the truth
is what the planted parameters imply, never what the pipeline measured."""
from __future__ import annotations

import hashlib
import math
from functools import lru_cache

import numpy as np

from .truth_file import Truth

SCORES = np.arange(1, 6)


def unit_draw(*key) -> float:
    """A uniform number in [0, 1) fixed by the key (seed, task, prompt, sample): same key, same draw."""
    digest = hashlib.sha256("\x1f".join(map(str, key)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2 ** 64


@lru_cache(maxsize=2 ** 18)
def normal_draw(*key) -> float:
    """A standard normal number fixed by the key (inverse CDF of `unit_draw`). Kept: a question's
    effect is drawn again for every judgment of it, and scipy's inverse CDF was about a fifth of the
    simulator's time per request."""
    from scipy.stats import norm

    return float(norm.ppf(min(max(unit_draw(*key), 1e-12), 1 - 1e-12)))


def question_effect(truth: Truth, question: str, sd: float) -> float:
    """The question-level random effect shared by every judgment of one question (sd `sd`)."""
    return sd * normal_draw(truth.seed, "question", question) if sd else 0.0


def passage_effect(truth: Truth, text: str) -> float:
    """05's passage effect on the latent rating: one draw per (normalised) passage text."""
    sd = truth.pointwise.passage_sd
    return sd * normal_draw(truth.seed, "rating passage", text) if sd else 0.0


def sigmoid(x):
    """Logistic function."""
    return 1 / (1 + np.exp(-np.asarray(x, float)))


def logit(p: float) -> float:
    """Inverse of `sigmoid`."""
    return math.log(p / (1 - p))


# ---------------------------------------------------------------- notebook 05: ratings

def rating_probs(mu: float, spread: float) -> np.ndarray:
    """P(score = 1..5) for a passage whose latent rating is mu."""
    w = -((SCORES - mu) ** 2) / (2 * spread ** 2)
    p = np.exp(w - w.max())
    return p / p.sum()


def rating_mu(truth: Truth, own: bool, true: bool, u: float = 0.0) -> float:
    """Latent rating of a passage: base + planted shifts + the question effect u."""
    pw = truth.pointwise
    return pw.base + pw.own_shift * own + pw.true_shift * true + u


# ---------------------------------------------------------------- notebook 06: pairwise choices

def pair_logit(truth: Truth, own: tuple, true: tuple, u: float = 0.0, styled: tuple = (False, False),
               u_position: float = 0.0, u_factual: float = 0.0) -> float:
    """Log-odds of choosing passage 1 of two. The question's three effects (`pair_effects`): u leans
    toward whichever passage is the model's own, u_position toward the first, u_factual toward the
    true one, so every term varies between questions and a question's judgments are clustered."""
    pw = truth.pairwise
    lean = own[0] - own[1]
    return (pw.position + u_position + (pw.self + u) * lean + (pw.factual + u_factual) * (true[0] - true[1])
            + pw.style * (styled[0] - styled[1]))


def pair_effects(truth: Truth, question: str) -> tuple[float, float, float]:
    """(own-lean, position, factual) effects of one question, independent draws of sd question_sd."""
    sd = truth.question_sd
    return (question_effect(truth, question, sd), question_effect(truth, "position:" + question, sd),
            question_effect(truth, "factual:" + question, sd))


def pair_sd(truth: Truth, own: tuple, true: tuple) -> float:
    """sd of the question's whole effect on one pair's log-odds (u lean + u_position + u_factual (true1 -
    true2): a sum of independent normals), so a truth integrates one normal."""
    return truth.question_sd * math.sqrt(1 + (own[0] - own[1]) ** 2 + (true[0] - true[1]) ** 2)


# ---------------------------------------------------------------- notebook 13: judge verdicts

def judge_logit(truth: Truth, category: str, chosen_first: bool, u: float = 0.0) -> float:
    """Log-odds that the judge names the chosen response (u: the pair's difficulty)."""
    rb = truth.rewardbench
    acc = rb.accuracy.get(category, 0.75)
    return logit(acc) + (rb.position if chosen_first else -rb.position) + u


def categorical(probs, draw: float) -> int:
    """Index drawn from `probs` with the uniform number `draw`."""
    return int(np.searchsorted(np.cumsum(probs), draw * float(np.sum(probs)), side="right"))


def format_fails(truth: Truth, *key) -> bool:
    """Whether this reply leaves the paper's format (its own draw, independent of the choice)."""
    return unit_draw(truth.seed, "format", *key) < truth.format_failure
