"""Model backends: each turns requests into payloads and replies into results, nothing more.

Every backend declares what it can do in `capabilities` (names from CAPABILITIES); `CachedModel`
answers capability questions from that declaration and calls only declared methods. Each declared
method takes a list of items and `on_result(i, result)`, called once per item as it is done, plus an
optional progress bar. `DECLARED` holds the declarations of the built-in backends by spec prefix, so
that a warm re-run can answer capability questions without importing a backend (torch takes 4 s).
"""
from __future__ import annotations

from typing import Callable, Protocol, runtime_checkable

CAPABILITIES = frozenset({
    "generate",               # Requests -> Responses
    "loglikelihood",          # (context, continuation) -> LogLik
    "rolling_loglikelihood",  # (text, stride, max_length) -> LogLik over every token, sliding windows
    "option_logprobs",        # (context, prefix, options) -> OptionScores in one pass
    "score",                  # JSON item -> Score (a reward model's head)
    "embed",                  # text -> normalized vector
    "option_topk",            # (context, prefix, single-token options) -> TopKOptions from one generated token
    "echo_probe",             # likelihoods only after a probe of echoed prompt log-probabilities passed
    "chat",                   # takes chat messages (a chat API, or a chat template); base LMs take raw text
})

TRANSFORMERS = frozenset({"generate", "loglikelihood", "rolling_loglikelihood", "option_logprobs"})
# an OpenAI-compatible server: likelihoods only through echoed prompt log-probabilities, which some
# servers (OpenAI's chat models, llama.cpp, Ollama) refuse; that is known only when asked
OPENAI = frozenset({"generate", "loglikelihood", "option_topk", "echo_probe", "chat"})
REWARD_HEAD = frozenset({"score"})
SENTENCE_EMBED = frozenset({"embed"})
DECLARED = {"hf": TRANSFORMERS, "local": TRANSFORMERS, "openai": OPENAI}
CHAT_EMBEDDED = {"smollm2"}  # embedded models with a chat template; gemma3 is a base LM
# what only the built backend can tell: an hf: model is a chat model if its tokenizer has a template
DEFERRED = {"hf": frozenset({"chat"})}


def declared_for(spec) -> tuple[frozenset, frozenset]:
    """(capabilities declared up front, capabilities the built backend decides) for a model spec."""
    caps = DECLARED[spec.backend] | ({"chat"} if spec.backend == "local" and spec.model in CHAT_EMBEDDED else set())
    if getattr(spec, "is_base", False):  # a server declared a base LM (`;base`): raw text only
        caps = caps - {"chat"}
    return frozenset(caps), DEFERRED.get(spec.backend, frozenset())

OnResult = Callable[[int, object], None]


@runtime_checkable
class Backend(Protocol):
    """What CachedModel needs of a backend: its declared capabilities, a check that fails early with
    the fix, and one batch method per declared capability (named as the capability)."""

    capabilities: frozenset

    def check(self) -> None:
        """Load or reach the model now, so a bad spec fails before any work."""


def declared(capabilities) -> frozenset:
    """A capability declaration, checked against CAPABILITIES (a typo would silently disable a method)."""
    caps = frozenset(capabilities)
    unknown = caps - CAPABILITIES
    if unknown:
        raise ValueError(f"Unknown backend capabilities {sorted(unknown)}; choose from {sorted(CAPABILITIES)}.")
    return caps
