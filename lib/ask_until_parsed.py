"""Ask, parse, and ask again: the one loop every judging experiment uses to get a parseable reply.

A reply that does not parse is asked again with a new sample index (`sample=1..k`) at
`retry_temperature` (a greedy retry would only repeat the reply); whatever never parses stays in the
results with `value=None` and all its replies, so tables can count it instead of dropping it.
"""
from __future__ import annotations

from typing import Callable, Sequence


def ask_until_parsed(model, prompts: Sequence, parse: Callable[[int, str], object], k_retries: int = 2,
                     max_tokens: int = 16, temperature: float = 0.0, retry_temperature: float = 0.7,
                     logprobs: int | None = None, desc: str = "", chat: bool | None = None,
                     ledger=None, key: tuple | None = None) -> list[dict]:
    """Ask every prompt (text or message list) of a CachedModel; re-ask the unparsed ones up to
    `k_retries` times.

    `parse(index, text)` returns a value or None. Returns one dict per prompt: `responses` (every
    reply, in order), `value` (None if none parsed), `attempts`, and the first reply's `top_logprobs`.
    Every try is booked in the model layer's ledger, and in `ledger` under `key` when given.
    """
    results = [{"responses": [], "value": None, "attempts": 0, "top_logprobs": None} for _ in prompts]
    todo = list(range(len(prompts)))
    for attempt in range(k_retries + 1):
        if not todo:
            break
        temp = temperature if attempt == 0 else retry_temperature
        extra = {"logprobs": logprobs} if (logprobs and attempt == 0) else {}
        requests = [model.request(prompts[i], chat=chat, max_tokens=max_tokens, temperature=temp,
                                  sample=attempt, **extra) for i in todo]
        outs = model.generate(requests, desc=f"{desc} try {attempt}" if desc else None, ledger=ledger, key=key)
        still = []
        for i, out in zip(todo, outs):
            res = results[i]
            res["responses"].append(out.text)
            res["attempts"] = attempt + 1
            if attempt == 0:
                res["top_logprobs"] = getattr(out, "top_logprobs", None)
            value = parse(i, out.text)
            if value is None:
                still.append(i)
            else:
                res["value"] = value
        todo = still
    return results
