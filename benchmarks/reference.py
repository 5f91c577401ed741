"""The pre-issue-11 scoring method, kept only as the benchmark's "before" and the tests' reference."""
from __future__ import annotations

import torch


@torch.inference_mode()
def full_vocab_span_logprobs(model, seqs: list[list[int]], starts: list[int], pad: int) -> list[float]:
    """Same result as lib.models.backends.transformers_lm.span_logprobs the old way: the model's full logits,
    then a float32 log-softmax over the whole vocabulary at every position of the batch, then gather."""
    ids = torch.full((len(seqs), max(map(len, seqs))), pad, dtype=torch.long)
    mask = torch.zeros_like(ids)
    for r, s in enumerate(seqs):
        ids[r, :len(s)] = torch.tensor(s)
        mask[r, :len(s)] = 1
    logp = torch.log_softmax(model(input_ids=ids, attention_mask=mask).logits.float(), dim=-1)
    out = []
    for r, (s, start) in enumerate(zip(seqs, starts)):
        targets = ids[r, start:len(s)]
        out.append(float(logp[r, start - 1:len(s) - 1].gather(-1, targets[:, None]).sum()))
    return out
