"""Discriminative reward model: any AutoModelForSequenceClassification with one output, by hub id
or local folder. None ships offline on these machines; users online name one, e.g.
`rm:Skywork/Skywork-Reward-Llama-3.1-8B-v0.2`. The reward head is a backend of the model layer
(lib/models/backends/reward_head.py) reached through `CachedModel.score`, so a re-run scores nothing
again and builds no backend.
"""
from __future__ import annotations

from lib.rewardbench.scalar import evaluate_scalar, scalar_raw


class DiscriminativeRM:
    """Scalar reward from a sequence-classification head (first logit), cached per input."""

    kind = "rm"

    def __init__(self, spec, model=None):
        self.spec = spec
        self.name = spec.name
        self.max_length = int(spec.options.get("max_length", 4096))
        self._model = model

    @property
    def model(self):
        """The cached scoring model (a CachedModel over the reward-head backend)."""
        if self._model is None:
            from lib.models import reward_head_model

            self._model = reward_head_model(self.spec.target, self.max_length)
        return self._model

    def score(self, contexts, responses, desc: str = "rm") -> list[float]:
        """First logit of the classification head for each (system, prompt) + response."""
        items = [{"system": s, "prompt": p, "response": r, "max_length": self.max_length}
                 for (s, p), r in zip(contexts, responses)]
        return self.model.score(items, desc=desc) if items else []

    def raw(self, pairs) -> list[dict]:
        """Stored per pair (see `scalar.scalar_raw`)."""
        return scalar_raw(self, pairs)

    def evaluate(self, pairs):
        """Per-pair results (see `scalar.evaluate_scalar`)."""
        return evaluate_scalar(self, pairs)
