"""Echoed prompt log-probabilities (`/v1/completions` with `echo: true`), consistent with the planted
model: how the pipeline's perplexity (notebook 03), its echo probe and its likelihood scoring of
options over raw-text prompts read the simulator.

Tokens are a deterministic split: a word, or one punctuation mark, each with the white space before
it, so every token starts at a known character (`text_offset`) and a continuation that begins with
white space or punctuation starts on a token boundary. Values (nats):
- a passage the simulator wrote: every token perplexity.own_logprob + e; any other bank passage:
  perplexity.other_logprob + e; e ~ N(0, text_sd^2) drawn once per text (notebook 03);
- a rating prompt followed by "\\n###" and a score s: the score's token gets log P(s) of the planted
  rating distribution (notebook 05's next-token reading);
- a generation-phase prompt followed by "\\nAnswer:" and one passage's answer: the answer's first
  token gets log P(that passage is chosen), its other tokens 0 (notebook 06/07's summed reading);
- every other token: perplexity.filler (near-certain), so the echo probe's counting text passes.
The first token has no log-probability (nothing precedes it), as servers report it.
"""
from __future__ import annotations

import math
import re

from lib.self_preference.likelihood import ANSWER_PREFIX, SCORE_PREFIX

from .core import planted as M
from .core.roles import norm
from .replies import Replier
from .tasks import recognise

TOKEN = re.compile(r"\s*(?:\w+|[^\w\s])|\s+$")
UNLIKELY = math.log(1e-6)  # an option the planted model never gives (outside the format)
# where a raw-text reply starts after a prompt (the pipeline's own reply prefixes, after a new line)
REPLY_STARTS = (("rate", "\n" + SCORE_PREFIX), ("pair", "\n" + ANSWER_PREFIX))


def tokenize(text: str) -> list[tuple[int, str]]:
    """(character offset, token) of every token of `text`; the tokens join back to the text."""
    return [(m.start(), m.group()) for m in TOKEN.finditer(text)]


def text_logprob(replier: Replier, text: str) -> float | None:
    """The per-token log-probability of a bank passage (own or other), None for any other text
    (under the planted defect too: only the bank's passages trade places)."""
    roles, pp = replier.roles, replier.truth.perplexity
    if roles.passage(text) is None:
        return None
    own = roles.is_own(text)
    e = pp.text_sd * M.normal_draw(replier.truth.seed, "perplexity", norm(text)) if pp.text_sd else 0.0
    return min((pp.own_logprob if own else pp.other_logprob) + e, -1e-6)


def answer_prob(replier: Replier, fields: dict, said: str) -> float | None:
    """P(the passage whose answer is `said` is chosen) in a generation-phase prompt (the planted pair
    choice), None when neither passage carries that answer."""
    q1, p1, p2 = replier.pair_choice(fields)
    return {norm(p.answer): qk for p, qk in ((p2, 1 - q1), (p1, q1)) if p is not None}.get(norm(said))


def _reply_values(replier: Replier, prompt: str, toks: list) -> dict[int, float]:
    """{token index: log-probability} for the reply part of a raw-text option-scoring prompt."""
    for kind, start in REPLY_STARTS:
        cut = prompt.rfind(start)
        if cut < 0:
            continue
        task = recognise(None, prompt[:cut])
        if task.kind != kind:
            continue
        after = cut + len(start)
        reply = [i for i, (o, _) in enumerate(toks) if o >= cut]
        values = {i: 0.0 for i in reply}  # the reply's format is certain; only the option carries mass
        first = next((i for i in reply if toks[i][0] >= after), None)
        if first is None:
            return values
        if kind == "rate":
            probs = replier.rating_probs(task.fields)
            digit = toks[first][1].strip()
            ok = digit.isdigit() and 1 <= int(digit) <= len(probs)
            values[first] = math.log(max(probs[int(digit) - 1], 1e-300)) if ok else UNLIKELY
        else:
            q = answer_prob(replier, task.fields, prompt[after:])
            values[first] = math.log(max(q, 1e-300)) if q is not None else UNLIKELY
        return values
    return {}


def echo_logprobs(replier: Replier, prompt: str, top_k: int, generated: int) -> dict:
    """The legacy completions `logprobs` object of an echoed prompt (plus `generated` tokens after
    it, which the pipeline ignores): tokens, token_logprobs, text_offset, top_logprobs."""
    toks = tokenize(prompt)
    whole = text_logprob(replier, prompt)
    filler = replier.truth.perplexity.filler
    values = [whole if whole is not None else filler] * len(toks)
    for i, v in _reply_values(replier, prompt, toks).items():
        values[i] = v
    tokens = [t for _, t in toks] + [" ."] * generated
    offsets = [o for o, _ in toks] + [len(prompt)] * generated
    values = values + [filler] * generated
    if values:
        values[0] = None
    out = {"tokens": tokens, "token_logprobs": values, "text_offset": offsets, "top_logprobs": None}
    if top_k:  # each position's own token is its most likely one (aligned, as the probe checks)
        out["top_logprobs"] = [None if v is None else {t: v} for t, v in zip(tokens, values)]
    return out
