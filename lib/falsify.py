"""Making a passage false: swap its answer for a false one, and read the false answer a model wrote.

Shared by the self-preference passage bank and the utility study's counterfactual passages.
"""
from __future__ import annotations

import re

from lib.textmatch import matches

# Lead-ins small chat models put before the text they were asked for ("Sure! Here is ...:").
_LEAD_IN = re.compile(r"^\s*(sure|certainly|okay|ok|here|rewritten|new paragraph|passage)\b[^\n]*:\s*\n+",
                      re.IGNORECASE)


def substitute_answer(text: str, answer: str, false_answer: str) -> str:
    """Replace every occurrence of answer (case-insensitive) with false_answer."""
    if not str(answer).strip():
        raise ValueError("substitute_answer: the answer is empty, nothing to replace.")
    return re.sub(re.escape(str(answer)), lambda _m: str(false_answer), str(text), flags=re.IGNORECASE)


def false_passage(text: str, answer: str, false_answer: str) -> str | None:
    """The text with the answer swapped, or None if the swap leaves the answer or misses it."""
    out = substitute_answer(text, answer, false_answer)
    # the `substring` rule: case-insensitive, as the substitution itself is
    if matches(out, answer, rule="substring") or not matches(out, false_answer, rule="substring"):
        return None
    return out


def clean_generation(text: str) -> str:
    """Strip a chat model's lead-in line and wrapping quotes from a generated passage."""
    out = _LEAD_IN.sub("", str(text).strip(), count=1).strip()
    if len(out) > 1 and out[0] == out[-1] and out[0] in "\"'":
        out = out[1:-1].strip()
    return out


def parse_false_answer(response: str, answer: str) -> str | None:
    """The false answer in a reply to B.1 'Generate False Answer', or None when unusable
    (empty, the true answer itself, or containing it, which would leave the fact in place)."""
    for line in str(response).splitlines():
        line = line.strip().strip("*").strip()
        line = re.sub(r"^(false\s+)?answer\s*[:\-]\s*", "", line, flags=re.IGNORECASE)
        line = line.strip().strip("\"'").rstrip(".").strip()
        if not line or line.lower().startswith(("question:", "question ")):
            continue
        if not str(answer).strip() or matches(line, answer, rule="substring"):
            return None
        if len(line.split()) > max(8, 3 * len(str(answer).split())):
            return None
        return line
    return None
