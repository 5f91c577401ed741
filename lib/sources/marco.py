"""MS MARCO v2.1, in its row layout or the official files' column layout."""
from __future__ import annotations

import pandas as pd

from lib.records import DataError, as_list, field

from .common import items_frame, records

# v1 of the paper keeps only these MS MARCO query types (section 3.1).
MARCO_V1_QUERY_TYPES = ("PERSON", "ENTITY", "LOCATION")
MARCO_NO_ANSWER = "no answer present."


def _marco_passages(value, label, i) -> list[dict]:
    """MS MARCO passages as a list of {is_selected, passage_text, url}, from either layout
    (list of objects in the JSON files, object of lists in `datasets`)."""
    if isinstance(value, dict):
        texts = as_list(field(value, "passage_text", label, i))
        sel = as_list(field(value, "is_selected", label, i))
        urls = as_list(value.get("url")) or [""] * len(texts)
        return [{"is_selected": s, "passage_text": t, "url": u} for s, t, u in zip(sel, texts, urls)]
    return [{"is_selected": field(p, "is_selected", label, f"{i} passage {j}"),
             "passage_text": field(p, "passage_text", label, f"{i} passage {j}"),
             "url": p.get("url", "")} for j, p in enumerate(as_list(value))]


def _columns_to_records(data: dict) -> list[dict]:
    """The official v2.1 JSON files store columns ({'query': {'0': ...}, ...}); make rows."""
    keys = list(next(iter(data.values())).keys())
    return [{col: data[col].get(k) for col in data} for k in keys]


def parse_marco(source, query_types=MARCO_V1_QUERY_TYPES) -> pd.DataFrame:
    """MS MARCO v2.1 (query, query_type, passages[is_selected, passage_text], answers); the human
    passage is the first selected one. `query_types=None` keeps every type."""
    recs, label = records(source)
    if isinstance(recs, dict):
        if "query" not in recs:
            raise DataError(f"{label}: unknown MS MARCO layout; expected rows or v2.1 columns with "
                            "'query', 'query_type', 'passages', 'answers'.")
        recs = _columns_to_records(recs)
    wanted = {t.upper() for t in query_types} if query_types else None
    rows = []
    for i, rec in enumerate(recs):
        qtype = str(field(rec, "query_type", label, i)).upper()
        if wanted is not None and qtype not in wanted:
            continue
        passages = _marco_passages(field(rec, "passages", label, i), label, i)
        chosen = next((p for p in passages if int(p["is_selected"]) == 1), None)
        answers = [a for a in as_list(field(rec, "answers", label, i))
                   if str(a).strip().lower() != MARCO_NO_ANSWER]
        rows.append({
            "id": str(rec.get("query_id", f"marco-{i}")), "source": "marco",
            "question": str(field(rec, "query", label, i)),
            "answer": str(answers[0]) if answers else "", "aliases": [str(a) for a in answers[1:]],
            "title": str(chosen.get("url", "")) if chosen else "",
            "human_passage": str(chosen["passage_text"]) if chosen else "",
            "query_type": qtype,
            "negatives": [{"title": str(p.get("url", "")), "text": str(p["passage_text"])}
                          for p in passages if int(p["is_selected"]) != 1],
        })
    return items_frame(rows)
