"""The simulator's answers to notebook 12's QA prompts and its own scores of them, for 12's truth.

An answer is the gold answer (P(right) from the planted model), else with probability
`utility.answer_partial` a graded answer (`graded_answer`: the gold's last words, the planted share
`utility.answer_keep` of them, and a tail no gold holds), else a wrong one that shares no word with
any gold. The graded answer shares some but not all tokens with the gold, so 12's answer metrics are
tested between 0 and 1.

The scores are the metrics as the utility paper names them (section 3, "GTU evaluation"), typed here
from their definitions rather than called from the pipeline, so a defect in the pipeline's metric
moves its estimate and not the truth: token F1 after SQuAD's normalisation (lower case, punctuation
and the articles a / an / the dropped), best over the gold and its aliases, for the factoid datasets;
MS MARCO's ROUGE-L (LCS precision and recall, each the best over the references, combined with
beta = 1.2) over lower-cased alphanumeric tokens (rouge-score's tokenizer, the pipeline's stated
choice in place of the official script's spaCy) for MS MARCO. Both definitions are shared assumptions
(docs/known_truth.md); tests/simulate/test_answer_scores.py pins them to worked examples and to the
paper's naming."""
from __future__ import annotations

import re
import string
from collections import Counter

WRONG_ANSWER = "I cannot tell from what I have read."
GRADED_TAIL = "or thereabouts"  # words a graded answer adds: it is never the whole gold
ROUGE_BETA = 1.2
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def graded_answer(gold: str, keep: float) -> str:
    """The gold's last round(keep * n) words (at least one, at most n - 1 when n > 1; the last, since an
    answer's leading article scores nothing), then the tail."""
    words = str(gold).split()
    if not words:
        return GRADED_TAIL
    k = min(max(1, round(keep * len(words))), max(1, len(words) - 1))
    return " ".join(words[len(words) - k:] + [GRADED_TAIL])


def squad_tokens(text: str) -> list[str]:
    """SQuAD's normalisation, then white-space tokens."""
    text = "".join(ch for ch in str(text).lower() if ch not in string.punctuation)
    return _ARTICLES.sub(" ", text).split()


def token_f1(prediction: str, golds: list[str]) -> float:
    """Best token F1 over the golds (an empty prediction or gold scores 1 only against an empty one)."""
    pred = squad_tokens(prediction)
    best = 0.0
    for gold in golds:
        ref = squad_tokens(gold)
        if not pred or not ref:
            best = max(best, float(pred == ref))
            continue
        same = sum((Counter(pred) & Counter(ref)).values())
        if same:
            p, r = same / len(pred), same / len(ref)
            best = max(best, 2 * p * r / (p + r))
    return best


def rouge_tokens(text: str) -> list[str]:
    """Lower-cased runs of a-z and 0-9 (every other character separates)."""
    return _NON_ALNUM.sub(" ", str(text).lower()).split()


def lcs(a: list[str], b: list[str]) -> int:
    """Length of the longest common subsequence."""
    row = [0] * (len(b) + 1)
    for x in a:
        prev = 0
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], prev + 1 if x == y else max(row[j], row[j - 1])
    return row[-1]


def rouge_l(prediction: str, references: list[str], beta: float = ROUGE_BETA) -> float:
    """MS MARCO's ROUGE-L: (1 + b^2) P R / (R + b^2 P), P and R each the best over the references."""
    pred = rouge_tokens(prediction)
    precs, recs = [0.0], [0.0]
    for ref in references or [""]:
        toks = rouge_tokens(ref)
        if pred and toks:
            common = lcs(toks, pred)
            precs.append(common / len(pred))
            recs.append(common / len(toks))
    p, r = max(precs), max(recs)
    return (1 + beta ** 2) * p * r / (r + beta ** 2 * p) if p and r else 0.0


def answer_score(text: str, answer: str, aliases: list[str], source: str) -> float:
    """12's per-question score (0-1) of an answer: ROUGE-L for MS MARCO, token F1 for the others."""
    golds = [answer] + [a for a in aliases if a]
    return rouge_l(text, golds) if source == "marco" else token_f1(text, golds)
