"""Reading log-probabilities that OpenAI-compatible servers send: is an echoed prompt scored right
(present, aligned, plausible), and which options does one generated token's top-k list cover."""
from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass

# A text whose tokens, after the first few, are nearly certain for any language model: aligned
# prompt log-probabilities are close to 0 there, and a shift by one position makes them very low.
PROBE_TEXT = ", ".join(str(i) for i in range(1, 31))
PROBE_FROM = len(", ".join(str(i) for i in range(1, 9)))  # judge only after "1, ..., 8" (established)
PLAUSIBLE_MEAN = -1.0  # nats per token on the predictable part; measured near -0.05 on SmolLM2 via llama.cpp

TOPK_METHOD = "top-k log-probabilities of one generated token"
LIKELIHOOD_METHOD = "likelihood of the options (echoed or computed prompt log-probabilities)"


def echo_problem(prompt: str, logprobs: dict | None) -> str | None:
    """Why the echoed prompt log-probabilities of `prompt` cannot be used, or None when they are
    present, aligned (position i scores token i) and plausible on the probe text."""
    lp = logprobs or {}
    tokens, values, offsets = lp.get("tokens"), lp.get("token_logprobs"), lp.get("text_offset")
    if not tokens or not values or not offsets or all(v is None for v in values):
        return ("the server returns no prompt log-probabilities with echo=true (llama.cpp's own server "
                "never does; llama-cpp-python needs --logits_all true; vLLM and OpenAI's legacy models do)")
    inside = [i for i, o in enumerate(offsets) if o < len(prompt)]
    if any(v is not None and v > 1e-4 for v in (values[i] for i in inside)):
        return "the echoed prompt log-probabilities include positive values, so they are not log-probabilities"
    top = lp.get("top_logprobs")
    if top and len(top) >= len(inside):
        # the most likely token at each position should be that position's own token (aligned),
        # not the token after it (shifted by one: each token scored with the next token's distribution)
        best = [max(d, key=d.get) if d else None for d in (top[i] for i in inside)]
        same = sum(b == tokens[i] for b, i in zip(best, inside))
        after = sum(b == tokens[i + 1] for b, i in zip(best, inside) if i + 1 < len(tokens))
        if after > same and after >= len(inside) / 2:
            return (f"the echoed prompt log-probabilities are shifted by one position: the top token at "
                    f"position i is token i+1 at {after} of {len(inside)} probe positions (token i at {same}), "
                    "so each token is scored with the distribution that predicts the next one "
                    "(llama-cpp-python's echo does this)")
    judged = [values[i] for i in inside if offsets[i] >= PROBE_FROM and values[i] is not None]
    if not judged:
        return "the echo covers too little of the probe text to check it"
    mean = sum(judged) / len(judged)
    if mean < PLAUSIBLE_MEAN:
        return (f"the echoed prompt log-probabilities are implausible: mean {mean:.2f} nats per token on the "
                f"predictable part of a counting sequence (n = {len(judged)} tokens; aligned values are "
                f"near 0, limit {PLAUSIBLE_MEAN}), so they are misaligned or wrong")
    return None


def echoed_span(logprobs: dict, start: int, end: int) -> tuple[float, int]:
    """(sum, count) of echoed token log-probabilities whose text starts in [start, end)."""
    vals = [v for o, v in zip(logprobs["text_offset"], logprobs["token_logprobs"]) if start <= o < end and v is not None]
    return float(sum(vals)), len(vals)


@dataclass
class TopKOptions:
    """Options read off one generated token's top-k list: log-probabilities (NaN when an option is
    outside the top k, which means unavailable, not zero probability), and why any are missing."""

    logprobs: list
    available: list
    k: int
    reason: str = ""
    method: str = TOPK_METHOD
    tokens_in: int = 0
    cached: bool = False

    def to_json(self) -> dict:
        """What the cache stores (NaN kept as None, which JSON can hold)."""
        d = asdict(self)
        d.pop("cached")
        d["logprobs"] = [None if (v is None or math.isnan(v)) else v for v in self.logprobs]
        return d

    @classmethod
    def from_json(cls, d: dict, cached: bool) -> "TopKOptions":
        """Back from the cache (None becomes NaN again)."""
        d = dict(d, logprobs=[math.nan if v is None else v for v in d["logprobs"]])
        return cls(**d, cached=cached)


def split_common_prefix(prefix: str, options: list[str]) -> tuple[str, list[str]]:
    """Move the options' shared leading text into the prefix ("Choose 1" / "Choose 2" -> prefix
    "Choose", options " 1" / " 2"), so that only the token that tells them apart is read."""
    if len(options) < 2:
        return prefix, list(options)
    common = os.path.commonprefix(list(options))
    # keep a space with the option (tokenizers attach it to the next word) and never empty an option
    cut = common.rstrip(" ") if common else ""
    cut = cut[:min(len(cut), min(map(len, options)) - 1)]
    return prefix + cut, [o[len(cut):] for o in options]


def options_from_top(top: dict | None, options: list[str], k: int, reason: str = "") -> TopKOptions:
    """TopKOptions from one position's {token: logprob}; an option that is not one of its tokens
    (outside the top k, or more than one token) is unavailable."""
    top = top or {}
    lps = [float(top[o]) if o in top else math.nan for o in options]
    avail = [o in top for o in options]
    if not reason and not all(avail):
        reason = (f"{sum(not a for a in avail)} of {len(options)} options are not among the top {k} tokens "
                  "(or are not single tokens)")
    return TopKOptions(lps, avail, k, reason)


def top_after_prefix(entries: list, prefix: str) -> tuple[dict | None, str]:
    """The top-k dict at the position right after a generated reply spells `prefix` exactly, from
    chat-shaped logprobs entries; (None, reason) when the greedy reply does not start with it."""
    text = ""
    for e in entries:
        if text == prefix:
            return {t["token"]: t["logprob"] for t in (e.get("top_logprobs") or [])}, ""
        text += e.get("token", "")
        if not prefix.startswith(text):
            break
    return None, (f"the greedy reply does not begin with {prefix!r} at a token boundary (it began "
                  f"{text!r}), so the options after it are unavailable")
