"""Natural Questions in the DPR layout (Tevatron's spelling accepted too)."""
from __future__ import annotations

import pandas as pd

from lib.records import DataError, as_list, field

from .common import items_frame, records


def parse_nq(source) -> pd.DataFrame:
    """NQ in the DPR layout (question, answers, positive_ctxs[title, text]); Tevatron's
    query / positive_passages spelling is accepted too. The human passage is the first positive."""
    recs, label = records(source)
    if isinstance(recs, dict):
        raise DataError(f"{label}: expected a list of NQ items (DPR layout), got a JSON object.")
    rows = []
    for i, rec in enumerate(recs):
        question = rec.get("question", rec.get("query")) if isinstance(rec, dict) else None
        if question is None:
            field(rec, "question", label, i)
        answers = as_list(field(rec, "answers", label, i))
        pos_key = "positive_ctxs" if "positive_ctxs" in rec else "positive_passages"
        positives = as_list(field(rec, pos_key if pos_key in rec else "positive_ctxs", label, i))
        neg_key = next((k for k in ("hard_negative_ctxs", "negative_ctxs", "negative_passages")
                        if rec.get(k)), None)
        first = positives[0] if positives else {}
        rows.append({
            "id": str(rec.get("id", f"nq-{i}")), "source": "nq", "question": str(question),
            "answer": str(answers[0]) if answers else "", "aliases": [str(a) for a in answers[1:]],
            "title": str(first.get("title", "")), "human_passage": str(first.get("text", "")),
            "query_type": "",
            "negatives": [{"title": str(n.get("title", "")), "text": str(n.get("text", ""))}
                          for n in as_list(rec.get(neg_key)) if neg_key],
        })
    return items_frame(rows)
