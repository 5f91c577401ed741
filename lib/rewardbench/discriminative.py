"""Discriminative reward model: any AutoModelForSequenceClassification with one output, by hub id
or local folder. None ships offline on these machines; users online name one, e.g.
`rm:Skywork/Skywork-Reward-Llama-3.1-8B-v0.2`. Scores run in padded batches and go through the
model layer's cache (`CachedModel.score`), so a re-run scores nothing again.
"""
from __future__ import annotations

from dataclasses import dataclass

from lib.rewardbench.scalar import evaluate_scalar, scalar_raw


def rm_input(tokenizer, system: str, prompt: str, response: str) -> str:
    """The text a reward model scores: its chat template over the conversation when it has one."""
    if getattr(tokenizer, "chat_template", None):
        messages = ([{"role": "system", "content": system}] if system else []) + [
            {"role": "user", "content": prompt}, {"role": "assistant", "content": response}]
        return tokenizer.apply_chat_template(messages, tokenize=False)
    return f"{system}\n\n{prompt}\n{response}" if system else f"{prompt}\n{response}"


@dataclass
class Score:
    """One reward-head score, in the form the results cache stores."""

    score: float
    n_tokens: int = 0

    def to_json(self) -> dict:
        """What the cache stores."""
        return {"score": self.score, "n_tokens": self.n_tokens}


class RewardHeadBackend:
    """Backend for `CachedModel.score`: the first logit of a classification head, in batches."""

    def __init__(self, target: str, max_length: int = 4096, batch_size: int = 8):
        self.target, self.max_length, self.batch_size = target, max_length, batch_size
        self._loaded = None

    def load(self):
        """(tokenizer, model) on CPU in eval mode, loaded once."""
        if self._loaded is None:
            from transformers import AutoModelForSequenceClassification, AutoTokenizer
            try:
                tok = AutoTokenizer.from_pretrained(self.target)
                model = AutoModelForSequenceClassification.from_pretrained(self.target, dtype="auto")
            except OSError as err:
                raise OSError(f"reward model {self.target!r} could not be loaded ({err}). It needs "
                              "the model files: network access to the hub, or a local folder "
                              "saved with save_pretrained. No discriminative RM ships offline.") from err
            model.eval()
            tok.truncation_side = "left"  # long RAG prompts lose old references, never the response
            tok.padding_side = "right"
            if tok.pad_token is None:
                tok.pad_token = tok.eos_token
            self._loaded = (tok, model)
        return self._loaded

    def check(self) -> None:
        """Load now, so a missing model fails before any work."""
        self.load()

    def score(self, items: list[dict], on_result, progress=None) -> None:
        """Score {'system', 'prompt', 'response'} items, longest first, in padded batches."""
        import torch
        tok, model = self.load()
        texts = [rm_input(tok, it["system"], it["prompt"], it["response"]) for it in items]
        order = sorted(range(len(items)), key=lambda i: -len(texts[i]))
        with torch.no_grad():
            for start in range(0, len(order), self.batch_size):
                chunk = order[start:start + self.batch_size]
                enc = tok([texts[i] for i in chunk], return_tensors="pt", padding=True, truncation=True,
                          max_length=self.max_length)
                logits = model(**enc).logits[:, 0].tolist()
                for row, i in enumerate(chunk):
                    on_result(i, Score(float(logits[row]), int(enc["attention_mask"][row].sum())))
                    if progress is not None:
                        progress.update(1)


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
        """The cached scoring model (a CachedModel over RewardHeadBackend), built on first use."""
        if self._model is None:
            from lib.models import CachedModel
            from lib.models.specs import ModelSpec

            backend = RewardHeadBackend(self.spec.target, self.max_length)
            self._model = CachedModel(ModelSpec("hf", self.spec.target), factory=lambda: backend)
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
