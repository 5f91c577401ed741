"""The truth file's `perplexity:` and `knowledge:` sections (docs/known_truth.md): the planted prompt
log-probabilities of the simulator's echo (notebook 03) and its knowledge of each dataset's answers
(notebooks 04 and 07)."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Perplexity:
    """Echoed prompt log-probabilities: every token of a passage the simulator wrote gets
    own_logprob + e, of any other bank passage other_logprob + e (nats), with e ~ N(0, text_sd^2)
    drawn once per text; every other prompt token gets `filler` (a near-certain token)."""

    own_logprob: float = -2.0
    other_logprob: float = -2.5
    text_sd: float = 0.3
    filler: float = -0.05


@dataclass(frozen=True)
class Knowledge:
    """Notebook 04: each probe reply is right with probability sigmoid(logit(accuracy[dataset]) + v),
    v ~ N(0, question_sd^2) per question (log-odds), independently across the 5 samples given v."""

    accuracy: dict = field(default_factory=lambda: {"nq": 0.6, "marco": 0.45, "triviaqa": 0.75})
    question_sd: float = 1.5


def check_sections(perplexity: Perplexity, knowledge: Knowledge, path, error) -> None:
    """Ranges of both sections; `error` is the truth file's error type."""
    if perplexity.text_sd < 0 or perplexity.filler > 0:
        raise error(f"{path}: perplexity.text_sd must be >= 0 and perplexity.filler <= 0.")
    for name in ("own_logprob", "other_logprob"):
        # log-probabilities: 4 sd below 0 (the echo clamps the rare draw above it just below 0)
        if getattr(perplexity, name) + 4 * perplexity.text_sd >= 0:
            raise error(f"{path}: perplexity.{name} + 4 * text_sd must be < 0 (a log-probability), "
                        f"got {getattr(perplexity, name)} with text_sd {perplexity.text_sd}.")
    if knowledge.question_sd < 0:
        raise error(f"{path}: knowledge.question_sd must be >= 0.")
    for dataset, p in knowledge.accuracy.items():
        if not 0 < p < 1:
            raise error(f"{path}: knowledge.accuracy.{dataset} must be in (0, 1), got {p}.")
