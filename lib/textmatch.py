r"""Answer matching: every rule the project uses to decide whether a text carries an answer, by name.

Call sites name their rule (`matches(text, answer, rule="authors")`), and each notebook says which it
uses. The rules:

- `authors`: the self-preference study's published rule (see shared/papers/authors-code-notes.md).
  Both strings are lower-cased and cut into a *set* of pieces with the authors' regular expression
  `\s|(?<!\d)[,.](?!\d)`: on white space, and on a comma or period only when NEITHER neighbour is a
  digit ("1,000", "3.5", "3," and ",5" stay whole; "U.S." falls apart; "march 3, 2011" gives
  {"march", "3,", "2011"}). The match holds when either set is a subset of the other, or either
  string is a substring of the other. It is symmetric and deliberately loose: an empty string matches
  everything, as in the authors' code. `semicolons=True` (their generation-phase variant) also cuts
  on ";".
- `authors_cased`: the same without lower-casing; the authors scored their second NQ knowledge run
  (`nq_knowledge_scale_of_5_1000_openai.json`) this way (its recorded answer sets keep capitals).
- `squad`: SQuAD normalization (lower case, punctuation and articles removed, white space squeezed)
  and exact equality; `squad_f1` gives the token F1 of the same normalization.
- `whole_word`: the normalized answer occurs as whole words in the normalized text (punctuation
  becomes a space, case is ignored, articles are kept).
- `substring`: the answer occurs in the text, ignoring case.
- `substring_or_words`: `substring`, else every word of the answer occurs somewhere in the text (the
  self-preference paper's verification of rewritten passages, its footnote 2).
"""
from __future__ import annotations

import re
import string
from collections import Counter
from functools import lru_cache
from typing import Callable, Iterable

# The authors' split: white space, and a comma or period with no digit on EITHER side.
_AUTHORS_SPLIT = re.compile(r"\s|(?<!\d)[,.](?!\d)")
_AUTHORS_SPLIT_SEMI = re.compile(r"\s|;|(?<!\d)[,.](?!\d)")
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_SQUAD_PUNCT = set(string.punctuation)
_NON_ALNUM = re.compile(r"[^0-9a-z]+")
_WORD = re.compile(r"[0-9a-z]+")


def authors_pieces(text: str, semicolons: bool = False, lower: bool = True) -> set[str]:
    """The set of pieces the authors' rule compares (empty pieces kept, as theirs are)."""
    pattern = _AUTHORS_SPLIT_SEMI if semicolons else _AUTHORS_SPLIT
    text = str(text)
    return set(pattern.split(text.lower() if lower else text))


def authors_match(text: str, answer: str, semicolons: bool = False, lower: bool = True) -> bool:
    """The self-preference authors' symmetric match between a text and an answer."""
    a, b = (str(text).lower(), str(answer).lower()) if lower else (str(text), str(answer))
    pa, pb = authors_pieces(a, semicolons, lower), authors_pieces(b, semicolons, lower)
    return pa <= pb or pb <= pa or a in b or b in a


def authors_cased_match(text: str, answer: str) -> bool:
    """The authors' match without lower-casing (how their `_1000_openai` NQ run was scored)."""
    return authors_match(text, answer, lower=False)


def squad_normalize(text: str) -> str:
    """SQuAD normalization: lower case, drop punctuation and articles, squeeze white space."""
    text = "".join(ch for ch in str(text or "").lower() if ch not in _SQUAD_PUNCT)
    return " ".join(_ARTICLES.sub(" ", text).split())


def squad_match(text: str, answer: str) -> bool:
    """SQuAD exact match: the normalized strings are equal."""
    return squad_normalize(text) == squad_normalize(answer)


def squad_em(prediction: str, golds: Iterable[str]) -> float:
    """1.0 when the normalized prediction equals any normalized gold answer, else 0.0."""
    return float(any(squad_match(prediction, g) for g in golds))


def squad_f1(prediction: str, golds: Iterable[str]) -> float:
    """Best SQuAD token F1 over the gold answers (both empty counts as 1.0)."""
    pred = squad_normalize(prediction).split()
    best = 0.0
    for gold in golds:
        ref = squad_normalize(gold).split()
        if not pred or not ref:
            best = max(best, float(pred == ref))
            continue
        common = sum((Counter(pred) & Counter(ref)).values())
        if common:
            p, r = common / len(pred), common / len(ref)
            best = max(best, 2 * p * r / (p + r))
    return best


def word_normalize(text: str) -> str:
    """Lower case, every run of non-alphanumerics to one space: the form whole-word matching uses."""
    return _word_normalize(text if isinstance(text, str) else str(text or ""))


@lru_cache(maxsize=2 ** 16)
def _word_normalize(text: str) -> str:
    # kept: one passage is matched against many answers (09 checks each question's top 100 of one
    # corpus: at Table 1's 9,391 questions, the same few hundred passages a million times)
    return " ".join(_NON_ALNUM.sub(" ", text.lower()).split())


def whole_word_match(text: str, answer: str) -> bool:
    """The normalized answer occurs as whole words in the normalized text; an empty answer never does."""
    needle = word_normalize(answer)
    return bool(needle) and f" {needle} " in f" {word_normalize(text)} "


def substring_match(text: str, answer: str) -> bool:
    """Case-insensitive substring; an empty answer never matches."""
    answer = str(answer or "").strip().lower()
    return bool(answer) and answer in str(text or "").lower()


def substring_or_words_match(text: str, answer: str) -> bool:
    """Substring, else every word of the answer occurs in the text (paper's footnote 2)."""
    if substring_match(text, answer):
        return True
    words = _WORD.findall(str(answer or "").lower())
    return bool(words) and set(words) <= set(_WORD.findall(str(text or "").lower()))


RULES: dict[str, Callable[[str, str], bool]] = {
    "authors": authors_match,
    "authors_cased": authors_cased_match,
    "squad": squad_match,
    "whole_word": whole_word_match,
    "substring": substring_match,
    "substring_or_words": substring_or_words_match,
}


def check_rule(rule: str) -> str:
    """The rule name, or a ValueError listing the rules."""
    if rule not in RULES:
        raise ValueError(f"Unknown answer-matching rule {rule!r}: choose one of {sorted(RULES)}.")
    return rule


def matches(text: str, answer: str, rule: str = "authors", aliases: Iterable[str] = ()) -> bool:
    """True when the text carries the answer or any alias under the named rule."""
    fn = RULES[check_rule(rule)]
    return any(fn(text, cand) for cand in [answer, *(aliases or ())] if cand is not None)


def first_match(text: str, candidates: Iterable[str], rule: str = "substring") -> str | None:
    """The first candidate the text carries under the named rule, or None."""
    fn = RULES[check_rule(rule)]
    for cand in candidates:
        if cand is not None and fn(text, cand):
            return str(cand)
    return None
