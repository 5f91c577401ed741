"""Reward-head backend: the first logit of any AutoModelForSequenceClassification (hub id or local
folder), in padded batches. None ships offline on these machines; users online name one."""
from __future__ import annotations

from ..types import Score
from . import REWARD_HEAD


def rm_input(tokenizer, system: str, prompt: str, response: str) -> str:
    """The text a reward model scores: its chat template over the conversation when it has one."""
    if getattr(tokenizer, "chat_template", None):
        messages = ([{"role": "system", "content": system}] if system else []) + [
            {"role": "user", "content": prompt}, {"role": "assistant", "content": response}]
        return tokenizer.apply_chat_template(messages, tokenize=False)
    return f"{system}\n\n{prompt}\n{response}" if system else f"{prompt}\n{response}"


class RewardHeadBackend:
    """Backend for `CachedModel.score`: the first logit of a classification head, in batches."""

    capabilities = REWARD_HEAD

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
