"""Pointwise reranking phase (v2 section 3.3): rate each passage 1..5, parse `###<number>***`.

The strict parse is the authors' (shared/papers/authors-code-notes.md): the text between the first
`###` and the first `***` after it, read as a number. The lenient forms (beyond the paper, for small
models) first blank out every phrase of the instructions that carries a number ("should have a
score of 3", "should be rated 1", "scale of 1 to 5"), so an echo of the prompt never counts.

Raw replies are kept next to the parsed score so that a parser fix re-parses without calling any
model (`score_ratings`, which `replies.reparse` applies to a run's stored ratings). A reply that never parses after all retries stays in the table as unparsed.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from lib.ask_until_parsed import ask_until_parsed
from lib.prompts import self_preference as sp

from .model_loop import for_each_model

SETTINGS = ("normal", "rag")
SCORES = (1, 2, 3, 4, 5)
_NUM = r"(\d+(?:\.\d+)?)"
_NUMBER_ONLY = re.compile(r"\s*" + _NUM + r"\s*")
# Phrases of the B.1 instructions that carry a number; blanked out of a reply before lenient parsing.
_ECHO = re.compile(r"(?:should have a score of|should be rated|can be rated|be rated|a score of|"
                   r"scale of)\s+\d(?:\s+to\s+\d)?", re.I)
ECHO_PHRASES = tuple(sorted({m.group(0).lower() for t in (sp.B1_POINTWISE_BASELINE, sp.B1_POINTWISE_RAG)
                             for m in _ECHO.finditer(t)}))
# Tried in order once the strict format fails; each still needs a clear score marker.
_LENIENT = (
    re.compile(r"###\s*" + _NUM),
    re.compile(_NUM + r"\s*\*\*\*"),
    re.compile(r"\b(?:score|rating)\s*(?:is|of|:|=)\s*\**\s*" + _NUM, re.I),
    re.compile(_NUM + r"\s*(?:/\s*5|out of 5)\b", re.I),
    re.compile(r"\b(?:passage|it|this)\s+(?:is|was)\s+rated\s+(?:a\s+|as\s+)?" + _NUM, re.I),
    re.compile(r"\bI(?:\s+would|'d)?\s+(?:rate|give)\s+(?:it|this|the passage|this passage)\s+(?:a\s+|an\s+|as\s+)?" + _NUM, re.I),
    re.compile(r"^\W*" + _NUM + r"\W*$"),
)


@dataclass(frozen=True)
class ParsedScore:
    """A parsed rating: the value (None if unparsed) and how it was found."""

    value: float | None
    how: str  # "strict", "lenient" or "unparsed"


def authors_parse(text: str | None) -> float | None:
    """The authors' parse: the text between the first `###` and the first `***` after it, as a
    number in 1..5; None when either mark is missing or the text is not such a number."""
    text = text or ""
    start = text.find("###")
    end = text.find("***", start + 3) if start >= 0 else -1
    if start < 0 or end < 0:
        return None
    found = _NUMBER_ONLY.fullmatch(text[start + 3:end])
    value = float(found.group(1)) if found else None
    return value if value is not None and 1 <= value <= 5 else None


def strip_echo(text: str) -> str:
    """The reply with every numbered phrase of the instructions blanked out."""
    out = text
    for phrase in ECHO_PHRASES:
        out = re.sub(re.escape(phrase), " ", out, flags=re.I)
    return out


def parse_score(text: str | None, strict: bool = False) -> ParsedScore:
    """Parse a 1..5 rating from a reply; strict is the authors' `###...***` parse alone."""
    if not text:
        return ParsedScore(None, "unparsed")
    value = authors_parse(text)
    if value is not None:
        return ParsedScore(value, "strict")
    if strict:
        return ParsedScore(None, "unparsed")
    cleaned = strip_echo(text).strip()
    for pattern in _LENIENT:
        for match in pattern.finditer(cleaned):
            value = float(match.group(1))
            if 1 <= value <= 5:
                return ParsedScore(value, "lenient")
    return ParsedScore(None, "unparsed")


def expected_score(top_logprobs) -> tuple[float, float]:
    """Expected rating over tokens 1..5 at the first position whose top token is a score digit.

    Returns (expected score, probability mass of the digits among the top tokens there); both NaN /
    0.0 when the backend gave no log-probabilities or no position looks like a score.
    """
    if not top_logprobs:
        return math.nan, 0.0
    for position in top_logprobs:
        if not position:
            continue
        best = max(position, key=position.get)
        if best.strip() not in {str(s) for s in SCORES}:
            continue
        probs = dict.fromkeys(SCORES, 0.0)
        for token, logprob in position.items():
            key = token.strip()
            if key in {str(s) for s in SCORES}:
                probs[int(key)] += math.exp(logprob)  # " 4" and "4" are the same score
        mass = sum(probs.values())
        return sum(s * p for s, p in probs.items()) / mass, mass
    return math.nan, 0.0


def expected_score_loglik(model, prompts: list[str], chat: bool | None = None) -> list[tuple[float, float]]:
    """Expected rating from the log-likelihood of each reply `###1***` .. `###5***` (beyond the paper).

    The five replies are renormalized among themselves; the second value is their total probability
    (how much the model wanted to answer in the format at all). Needs a backend with loglikelihood.
    """
    req = [model.request(p, chat=chat, max_tokens=1) for p in prompts]
    contexts = [r.messages if r.messages is not None else r.prompt for r in req]
    pairs = [(ctx, f"###{s}***") for ctx in contexts for s in SCORES]
    lls = model.loglikelihood(pairs, desc="pointwise expected score") if pairs else []
    out = []
    for i in range(len(prompts)):
        lp = np.array([ll.logprob for ll in lls[i * len(SCORES):(i + 1) * len(SCORES)]])
        top = lp.max()
        w = np.exp(lp - top)
        out.append((float((w * np.array(SCORES)).sum() / w.sum()), float(np.exp(top) * w.sum())))
    return out


def pointwise_prompt(setting: str, question: str, passage: str) -> str:
    """The appendix B.1 baseline ('normal') or RAG prompt, filled in."""
    if setting == "normal":
        return sp.pointwise_baseline_prompt(passage)
    if setting == "rag":
        return sp.pointwise_rag_prompt(question, passage)
    raise ValueError(f"Unknown pointwise setting {setting!r}; use one of {SETTINGS}.")


def rate_passages(model, evaluator: str, passages: pd.DataFrame, settings=SETTINGS,
                  k_retries: int = 2, max_tokens: int = 16, temperature: float = 0.0,
                  retry_temperature: float = 0.7, logprobs: int | None = 5,
                  strict: bool = False, chat: bool | None = None,
                  expected_from: str = "top_logprobs") -> pd.DataFrame:
    """Rate every bank row under every setting; one output row per (passage, setting).

    `expected_from`: 'top_logprobs' (from the first reply's top tokens, free but often missing),
    'loglik' (five scored continuations per prompt, always defined) or 'none'.

    Columns added: evaluator, setting, score (NaN if unparsed), parse_how, parsed, attempts,
    responses, expected_score, digit_mass.
    """
    rows, prompts = [], []
    for setting in settings:
        for rec in passages.to_dict("records"):
            rows.append({**rec, "evaluator": evaluator, "setting": setting})
            prompts.append(pointwise_prompt(setting, rec["question"], rec["text"]))
    results = ask_until_parsed(
        model, prompts, lambda _i, t: parse_score(t, strict).value, k_retries=k_retries,
        max_tokens=max_tokens, temperature=temperature, retry_temperature=retry_temperature,
        logprobs=logprobs, desc=f"pointwise {evaluator}", chat=chat)
    if expected_from == "loglik":
        expected = expected_score_loglik(model, prompts, chat)
    elif expected_from == "top_logprobs":
        expected = [expected_score(res["top_logprobs"]) for res in results]
    elif expected_from == "none":
        expected = [(math.nan, 0.0)] * len(prompts)
    else:
        raise ValueError(f"expected_from={expected_from!r}; use 'top_logprobs', 'loglik' or 'none'.")
    for row, res, (exp_score, mass) in zip(rows, results, expected):
        row["responses"] = res["responses"]
        row["attempts"] = res["attempts"]
        row["expected_score"], row["digit_mass"] = exp_score, mass
    out = pd.DataFrame(rows)
    return score_ratings(out, strict) if len(out) else _empty_ratings(passages)


def score_ratings(ratings: pd.DataFrame, strict: bool = False) -> pd.DataFrame:
    """Recompute score / parse_how / parsed from the stored replies (no model call)."""
    ratings = ratings.copy()
    found = [_first_parse(r, strict) for r in ratings["responses"]]
    ratings["score"] = [p.value if p.value is not None else np.nan for p in found]
    ratings["parse_how"] = [p.how for p in found]
    ratings["parsed"] = ratings["score"].notna()
    return ratings


def _first_parse(responses, strict: bool) -> ParsedScore:
    for text in responses or []:
        parsed = parse_score(text, strict)
        if parsed.value is not None:
            return parsed
    return ParsedScore(None, "unparsed")


def _empty_ratings(passages: pd.DataFrame) -> pd.DataFrame:
    cols = list(passages.columns) + ["evaluator", "setting", "responses", "attempts", "expected_score",
                                     "digit_mass", "score", "parse_how", "parsed"]
    return pd.DataFrame(columns=cols)


def rate_evaluators(passages: pd.DataFrame, evaluators: list[str], author_names: dict | None = None,
                    **rate_kw) -> pd.DataFrame:
    """Every evaluator rates every passage (rate_passages), in one table."""
    return for_each_model(evaluators, author_names, lambda model, name, _: rate_passages(model, name, passages, **rate_kw))
