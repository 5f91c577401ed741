"""The truth file's `perplexity:` and `knowledge:` sections (docs/known_truth.md): the planted prompt
log-probabilities of the simulator's echo (notebook 03) and its knowledge of each dataset's answers
(notebooks 04 and 07)."""
from __future__ import annotations

from dataclasses import field

from pydantic import model_validator

from .schema import Probability, Sd, section


@section
class Perplexity:
    """Echoed prompt log-probabilities: every token of a passage the simulator wrote gets
    own_logprob + e, of any other bank passage other_logprob + e (nats), with e ~ N(0, text_sd^2)
    drawn once per text; every other prompt token gets `filler` (a near-certain token)."""

    own_logprob: float = -2.0
    other_logprob: float = -2.5
    text_sd: Sd = 0.3
    filler: float = -0.05

    @model_validator(mode="after")
    def _log_probabilities(self):
        # log-probabilities: 4 sd below 0 (the echo clamps the rare draw above it just below 0)
        if self.filler > 0:
            raise ValueError(f"filler must be <= 0 (a log-probability), got {self.filler}")
        for name in ("own_logprob", "other_logprob"):
            if getattr(self, name) + 4 * self.text_sd >= 0:
                raise ValueError(f"{name} + 4 * text_sd must be < 0 (a log-probability), "
                                 f"got {getattr(self, name)} with text_sd {self.text_sd}")
        return self


@section
class Knowledge:
    """Notebook 04: each probe reply is right with probability sigmoid(logit(accuracy[dataset]) + v),
    v ~ N(0, question_sd^2) per question (log-odds), independently across the 5 samples given v."""

    accuracy: dict[str, Probability] = field(default_factory=lambda: {"nq": 0.6, "marco": 0.45, "triviaqa": 0.75})
    question_sd: Sd = 1.5

