"""The request and response records that every backend speaks."""
from __future__ import annotations

from dataclasses import dataclass, field, fields


@dataclass(frozen=True)
class Request:
    """One generation request: chat `messages` (chat template) or raw `prompt` text (base models)."""

    messages: tuple | list | None = None
    prompt: str | None = None
    max_tokens: int = 256
    temperature: float = 0.0
    top_p: float = 1.0
    seed: int = 0
    sample: int = 0  # index of a repeated sample of the same prompt; part of the cache key
    logprobs: int = 0  # how many top log-probabilities per generated token (0 = none)
    stop: tuple | list | None = None

    def __post_init__(self):
        if (self.messages is None) == (self.prompt is None):
            raise ValueError("A Request needs exactly one of `messages` (chat) or `prompt` (raw text).")
        if self.messages is not None:
            for m in self.messages:
                if not isinstance(m, dict) or "role" not in m or "content" not in m:
                    raise ValueError(f"Each chat message needs 'role' and 'content'; got {m!r}.")

    def as_dict(self) -> dict:
        """Plain-JSON form (used for the cache key and for payloads)."""
        # the fields one by one, not dataclasses.asdict: its deep copy cost 0.1 ms per request at
        # hundreds of requests per second; the two containers are copied below all the same
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d["messages"] = [dict(m) for m in self.messages] if self.messages is not None else None
        d["stop"] = list(self.stop) if self.stop else None
        return d


@dataclass
class Response:
    """A model's reply; `top_logprobs` is one {token: logprob} dict per generated token, or None."""

    text: str
    top_logprobs: list | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    finish_reason: str | None = None
    cached: bool = False
    extra: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        """What the cache stores (everything but the `cached` flag); the cache pickles it, so no deep copy."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "cached"}


@dataclass
class LogLik:
    """Log-probability of a continuation given a context: total and token count."""

    logprob: float
    n_tokens: int
    cached: bool = False

    @property
    def mean(self) -> float:
        """Length-normalized log-probability (per token)."""
        return self.logprob / max(self.n_tokens, 1)

    def to_json(self) -> dict:
        """What the cache stores."""
        return {"logprob": self.logprob, "n_tokens": self.n_tokens}


@dataclass
class OptionScores:
    """log P(option | context) for each option of one judgment, and each option's token count."""

    logprobs: list
    option_tokens: list
    tokens_in: int = 0
    cached: bool = False

    def to_json(self) -> dict:
        """What the cache stores (everything but the `cached` flag); the cache pickles it, so no deep copy."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "cached"}


@dataclass
class Score:
    """One number from a scoring head (a reward model's first logit) and the tokens it read."""

    score: float
    n_tokens: int = 0

    def to_json(self) -> dict:
        """What the cache stores."""
        return {"score": self.score, "n_tokens": self.n_tokens}
