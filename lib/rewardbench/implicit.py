"""Implicit reward: the log-probability a causal LM gives a response after the prompt.

reward = log p(response | prompt), summed over the response's tokens (`norm=sum`) or averaged per
token (`norm=mean`); with a reference model, minus the reference's value (DPO-style
log pi(y|x) - log pi_ref(y|x), each normalised by its own tokenizer's count). Everything goes
through the LLM layer's `loglikelihood`, so the embedded models run it offline and it is cached.
"""
from __future__ import annotations

from lib.rewardbench.scalar import evaluate_scalar, scalar_raw


def implicit_reward(logprob: float, n_tokens: int, norm: str = "sum",
                    ref_logprob: float | None = None, ref_n_tokens: int | None = None) -> float:
    """One reward value from policy (and optional reference) log-likelihoods."""
    def value(lp, n):
        if norm == "mean":
            return lp / max(int(n), 1)
        return lp

    reward = value(logprob, n_tokens)
    if ref_logprob is not None:
        reward -= value(ref_logprob, ref_n_tokens)
    return float(reward)


def as_context(system: str, prompt: str, fmt: str):
    """The prompt as chat messages (fmt 'chat') or as one plain text (fmt 'text')."""
    if fmt == "chat":
        return ([{"role": "system", "content": system}] if system else []) + \
               [{"role": "user", "content": prompt}]
    return f"{system}\n\n{prompt}" if system else prompt


class ImplicitReward:
    """Scalar reward model from a policy's (and optionally a reference's) log-probabilities."""

    kind = "implicit"

    def __init__(self, spec, model=None, ref_model=None):
        self.spec = spec
        self.name = spec.name
        self.norm = spec.options.get("norm", "sum")
        self.ref_spec = spec.options.get("ref")
        self._models = {spec.target: model, self.ref_spec: ref_model}

    def _model(self, model_spec: str):
        """A model of the LLM layer, loaded on first use."""
        if self._models.get(model_spec) is None:
            from lib.models import get_model
            self._models[model_spec] = get_model(model_spec)
        return self._models[model_spec]

    def _format(self, model_spec: str) -> str:
        """'chat' or 'text' for one model: the spec's `format=`, else what the model's backend declares."""
        return self.spec.options.get("format") or ("chat" if self._model(model_spec).is_chat else "text")

    def loglik(self, model_spec: str, contexts, responses, desc: str) -> list:
        """LogLik results of one model for (system, prompt) contexts and responses."""
        fmt = self._format(model_spec)
        # a text prompt ends with '## Answer:'; the response follows after one space
        pairs = [(as_context(s, p, fmt), r if fmt == "chat" else " " + r)
                 for (s, p), r in zip(contexts, responses)]
        return self._model(model_spec).loglikelihood(pairs, desc=desc) if pairs else []

    def score(self, contexts, responses, desc: str = "implicit") -> list[float]:
        """Reward of each response after its (system, prompt) context."""
        pol = self.loglik(self.spec.target, contexts, responses, desc)
        ref = (self.loglik(self.ref_spec, contexts, responses, desc + " (reference)")
               if self.ref_spec else [None] * len(pol))
        return [implicit_reward(p.logprob, p.n_tokens, self.norm,
                                None if r is None else r.logprob, None if r is None else r.n_tokens)
                for p, r in zip(pol, ref)]

    def raw(self, pairs) -> list[dict]:
        """Stored per pair (see `scalar.scalar_raw`)."""
        return scalar_raw(self, pairs)

    def evaluate(self, pairs):
        """Per-pair results (see `scalar.evaluate_scalar`)."""
        return evaluate_scalar(self, pairs)
