"""Per-question metrics of section 2.4: P / R / F1 for sets, NDCG@k and MRR@k for rankings.

Labels are binary (1 = ground-truth evidence; HotpotQA has two or more). Each function scores one
readable judgment; `lib.utility.evaluate` averages them, computes the paper's set F1 from the averaged
P and R, and counts failed judgments beside the metrics.
"""
from __future__ import annotations

import math


def set_prf(selected: list[int], labels: list[int]) -> dict[str, float]:
    """Precision, recall, F1 of a selected index set against binary labels (empty set -> P = 0)."""
    chosen = set(selected)
    relevant = {i for i, y in enumerate(labels) if y}
    hits = len(chosen & relevant)
    precision = hits / len(chosen) if chosen else 0.0
    recall = hits / len(relevant) if relevant else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"P": precision, "R": recall, "F1": f1}


def ndcg_at(ranking: list[int], labels: list[int], k: int) -> float:
    """NDCG@k with binary gains and log2(rank + 1) discount; 0 when no passage is relevant."""
    dcg = sum(labels[i] / math.log2(r + 2) for r, i in enumerate(ranking[:k]))
    ideal = sorted(labels, reverse=True)[:k]
    idcg = sum(g / math.log2(r + 2) for r, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def mrr_at(ranking: list[int], labels: list[int], k: int) -> float:
    """Reciprocal rank of the first relevant passage within the top k, else 0."""
    for r, i in enumerate(ranking[:k]):
        if labels[i]:
            return 1.0 / (r + 1)
    return 0.0


def rank_metrics(ranking: list[int], labels: list[int]) -> dict[str, float]:
    """The paper's ranking columns: NDCG@1, NDCG@5, MRR@5."""
    return {"NDCG@1": ndcg_at(ranking, labels, 1), "NDCG@5": ndcg_at(ranking, labels, 5),
            "MRR@5": mrr_at(ranking, labels, 5)}
