"""Perplexity of texts under a causal LM: batched, sliding window with a stride, cached per text."""
from __future__ import annotations

import math

from tqdm.auto import tqdm

from . import cache
from .cache_keys import make_key
from .specs import SpecError, parse_spec

DEFAULT_MODEL = "hf:gpt2"  # the paper's choice, for users online; offline use "local:gemma3"


def _windows(ids: list[int], max_length: int, stride: int):
    """(input ids, number of leading positions to ignore) per window, as in the HF perplexity recipe:
    each window scores only tokens not scored by the previous one, with up to max_length context."""
    out, prev_end = [], 0
    for begin in range(0, len(ids), stride):
        end = min(begin + max_length, len(ids))
        out.append((ids[begin:end], (end - begin) - (end - prev_end)))
        prev_end = end
        if end == len(ids):
            break
    return out


def perplexity(texts: list[str], model: str = DEFAULT_MODEL, stride: int = 512, max_length: int | None = None,
               batch_size: int = 8, desc: str = "perplexity") -> list[float]:
    """exp(mean token negative log-likelihood) of each text; cached per (model, text, window)."""
    spec = parse_spec(model)
    if spec.backend == "openai":
        raise SpecError(f"Perplexity needs the model's own token probabilities; use an hf: or local: model, "
                        f"not {model!r}.")
    store = cache.results_cache()
    results: list[float | None] = [None] * len(texts)
    keys = []
    for i, t in enumerate(texts):
        if not isinstance(t, str) or not t.strip():
            raise ValueError(f"Text {i} is empty; perplexity is undefined for an empty passage.")
        keys.append(make_key("perplexity", spec.key, {"text": t, "stride": stride, "max_length": max_length}))
        hit = store.get(keys[-1])
        if hit is not None:
            results[i] = hit
    missing = [i for i, r in enumerate(results) if r is None]
    cache.count(hits=len(texts) - len(missing))
    if not missing:
        return results
    # imported here so a fully cached (warm) run never pays for torch
    from .backends.transformers_lm import load, span_logprobs

    lm, tok = load(spec)
    ctx = max_length or min(getattr(lm.config, "max_position_embeddings", 1024) or 1024, 1024)
    step = min(stride, ctx)
    # every window of every missing text, scored in padded batches
    jobs = []
    for i in missing:
        ids = tok(texts[i], add_special_tokens=True)["input_ids"]
        if len(ids) < 2:
            raise ValueError(f"Text {i} has fewer than two tokens; perplexity is undefined.")
        for w_ids, skip in _windows(ids, ctx, step):
            jobs.append((i, w_ids, skip))
    jobs.sort(key=lambda j: len(j[1]))
    nll = {i: 0.0 for i in missing}
    n_tok = {i: 0 for i in missing}
    pad = tok.pad_token_id if tok.pad_token_id is not None else 0
    with tqdm(total=len(jobs), desc=desc, leave=False) as bar:
        for start in range(0, len(jobs), batch_size):
            chunk = jobs[start:start + batch_size]
            # positions 0..len-2 predict tokens 1..len-1; the first `skip` targets were scored before
            sums = span_logprobs(lm, [w for _, w, _ in chunk], [max(skip, 1) for _, _, skip in chunk], pad)
            for (i, w, skip), lp in zip(chunk, sums):
                nll[i] -= lp
                n_tok[i] += len(w) - max(skip, 1)
            bar.update(len(chunk))
    for i in missing:
        results[i] = math.exp(nll[i] / n_tok[i])
        store.set(keys[i], results[i])
        cache.count(misses=1, tokens_in=n_tok[i])
    return results
