"""Answer quality (section 2.4, GTU).

Factoid (NQ, HotpotQA, TriviaQA): EM and F1 with SQuAD normalization (`lib.textmatch`, rule "squad"),
best over the answer and its aliases, averaged over questions.
Non-factoid (MS MARCO), as the MS MARCO evaluation computes them: ROUGE-L with beta = 1.2
(F = (1 + b^2) P R / (R + b^2 P) from the LCS precision and recall, best P and best R over the
references) averaged over questions, and BLEU-1..4 at corpus level (sacrebleu, lower-cased) against
every reference answer of each question (the `references` column: the answer and its aliases; a
question with fewer references than another is padded with none, which sacrebleu skips). Where we
differ from the official script: tokens come from rouge-score / sacrebleu's tokenizers, not spaCy, and
sacrebleu's BLEU, not pycocoevalcap's (brevity penalty from the closest reference length in both, but
smoothing differs on tiny corpora). Labelled extras: "ROUGE-L F1 (sentence)" and
"BLEU-n (sentence mean)" (sentence-level BLEU with effective order, averaged).
"""
from __future__ import annotations

import re

import pandas as pd
from rouge_score import rouge_scorer
from sacrebleu.metrics import BLEU

from lib.textmatch import squad_em, squad_f1

ROUGE_BETA = 1.2
_ROUGE = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)
FACTOID_METRICS = ["EM", "F1"]
MARCO_METRICS = ["ROUGE-L", "BLEU-1", "BLEU-2", "BLEU-3", "BLEU-4"]
MARCO_EXTRAS = ["ROUGE-L F1 (sentence)"] + [f"BLEU-{n} (sentence mean)" for n in range(1, 5)]


def rouge_l_beta(prediction: str, references: list[str], beta: float = ROUGE_BETA) -> float:
    """MS MARCO ROUGE-L: LCS precision and recall, each the best over references, combined with beta."""
    precs, recs = [], []
    for ref in references or [""]:
        s = _ROUGE.score(ref or "", prediction or "")["rougeL"]
        precs.append(s.precision)
        recs.append(s.recall)
    p, r = max(precs), max(recs)
    return (1 + beta ** 2) * p * r / (r + beta ** 2 * p) if p and r else 0.0


def rouge_l_f1(prediction: str, reference: str) -> float:
    """Sentence ROUGE-L F1 (rouge-score), the labelled extra."""
    return _ROUGE.score(reference or "", prediction or "")["rougeL"].fmeasure


def bleu_n(prediction: str, references: list[str] | str, n: int) -> float:
    """Sentence BLEU-n (cumulative up to n-grams, effective order) against every reference (or one
    string), 0-1 scale: the labelled extra."""
    refs = [references] if isinstance(references, str) else list(references)
    metric = BLEU(max_ngram_order=n, effective_order=True, lowercase=True)
    return metric.sentence_score(prediction or "", [r or "" for r in refs] or [""]).score / 100.0


def reference_streams(references: list[list[str]]) -> list[list[str | None]]:
    """Per-question reference lists -> sacrebleu's reference streams (stream k holds every
    question's k-th reference; None where a question has fewer)."""
    width = max((len(r) for r in references), default=1) or 1
    return [[(r[k] or "") if k < len(r) else None for r in references] for k in range(width)]


def corpus_bleu_n(predictions: list[str], references: list[list[str]], n: int) -> float:
    """Corpus BLEU-n (sacrebleu, lower-cased) over all answers of a group, every reference of each
    question counted, 0-1 scale."""
    metric = BLEU(max_ngram_order=n, lowercase=True)
    refs = [[r] if isinstance(r, str) else list(r) for r in references]
    return metric.corpus_score([p or "" for p in predictions], reference_streams(refs)).score / 100


def clean_answer(text: str) -> str:
    """First non-empty line of a reply without a leading 'Answer:' (models often echo it)."""
    for line in (text or "").strip().splitlines():
        line = re.sub(r"^\s*answer\s*:\s*", "", line, flags=re.I).strip()
        if line:
            return line
    return ""


def score_answer(prediction: str, answer: str, aliases: list[str], factoid: bool) -> dict[str, float]:
    """Per-question scores: EM / F1 (factoid, rule "squad") or ROUGE-L (beta 1.2) and the extras."""
    golds = [answer] + list(aliases or [])
    if factoid:
        return {"EM": squad_em(prediction, golds), "F1": squad_f1(prediction, golds)}
    scores = {"ROUGE-L": rouge_l_beta(prediction, golds), "ROUGE-L F1 (sentence)": rouge_l_f1(prediction, answer)}
    scores.update({f"BLEU-{n} (sentence mean)": bleu_n(prediction, golds, n) for n in range(1, 5)})
    return scores


def corpus_scores(df: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Corpus BLEU-1..4 (x100) per group of non-factoid answers (columns prediction and references,
    the list of every reference answer; `answer` alone where no references column exists)."""
    recs = []
    for keys, g in df.groupby(by, sort=False):
        keys = keys if isinstance(keys, tuple) else (keys,)
        refs = g["references"].tolist() if "references" in g else [[a] for a in g["answer"]]
        recs.append({**dict(zip(by, keys)), **{f"BLEU-{n}": 100 * corpus_bleu_n(
            g["prediction"].tolist(), refs, n) for n in range(1, 5)}})
    return pd.DataFrame(recs, columns=by + [f"BLEU-{n}" for n in range(1, 5)])
