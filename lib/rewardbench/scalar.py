"""Pair bookkeeping shared by reward models that give each response a number."""
from __future__ import annotations

import pandas as pd


def scalar_outcome(chosen: float, rejected: float) -> dict:
    """Correct only when the chosen response scores strictly higher; a tie is wrong and counted."""
    return {"correct": float(chosen > rejected), "p_rejected": float(rejected > chosen),
            "tie": float(chosen == rejected), "rm_chosen": chosen, "rm_rejected": rejected}


def scalar_raw(rm, pairs: pd.DataFrame) -> list[dict]:
    """What a scalar reward model gave each pair: {'id', 'score_chosen', 'score_rejected'}."""
    rows = pairs.to_dict("records")
    contexts = [(r.get("system", ""), r["prompt"]) for r in rows]
    scores = rm.score(contexts + contexts, [r["chosen"] for r in rows] + [r["rejected"] for r in rows],
                      desc=f"{rm.name} on {len(rows)} pairs")
    n = len(rows)
    return [{"id": r["id"], "score_chosen": c, "score_rejected": j}
            for r, c, j in zip(rows, scores[:n], scores[n:])]


def scalar_from_raw(raw: dict) -> dict:
    """One pair's result row from its stored scores."""
    return {"id": raw["id"], **scalar_outcome(raw["score_chosen"], raw["score_rejected"])}


def evaluate_scalar(rm, pairs: pd.DataFrame) -> pd.DataFrame:
    """Per-pair results of a scalar reward model: its two scores and whether chosen won."""
    return pd.DataFrame([scalar_from_raw(r) for r in scalar_raw(rm, pairs)])
