"""TriviaQA: the `datasets` rc layout, the original JSON, or a flat layout."""
from __future__ import annotations

import pandas as pd

from lib.records import DataError, as_list, field

from .common import items_frame, records


def _evidence_window(text: str, needles: list[str], width: int) -> str:
    """About `width` words of evidence around the first mention of any answer string."""
    low = text.lower()
    hits = [low.find(n.lower()) for n in needles if n and low.find(n.lower()) >= 0]
    if not hits:
        return " ".join(text.split()[:width])
    start_word = len(text[:min(hits)].split())
    words = text.split()
    lo = max(0, start_word - width // 3)
    return " ".join(words[lo:lo + width])


def parse_triviaqa(source, window_words: int = 200) -> pd.DataFrame:
    """TriviaQA: question, answer value and aliases, evidence text. Accepts the `datasets` rc
    layout (answer{value, aliases}, entity_pages.wiki_context, search_results.search_context), the
    original JSON ({'Data': [...]} with Question/Answer and inline evidence) and a flat
    layout (question, answer, aliases, evidence). The human passage is a window of evidence."""
    recs, label = records(source)
    if isinstance(recs, dict):
        recs = field(recs, "Data", label, "top level")
    rows = []
    for i, rec in enumerate(recs):
        question = rec.get("question", rec.get("Question")) if isinstance(rec, dict) else None
        if question is None:
            field(rec, "question", label, i)
        ans = rec.get("answer", rec.get("Answer"))
        if ans is None:
            field(rec, "answer", label, i)
        if isinstance(ans, dict):
            value = ans.get("value", ans.get("Value"))
            if value is None:
                raise DataError(f"{label}, item {i}: field 'answer' has no 'value'.")
            aliases = as_list(ans.get("aliases", ans.get("Aliases")))
        else:
            value, aliases = ans, as_list(rec.get("aliases"))
        evidence, title = [], ""
        for key, sub, tkey in (("entity_pages", "wiki_context", "title"),
                               ("search_results", "search_context", "title"),
                               ("EntityPages", "Text", "Title"), ("SearchResults", "Text", "Title")):
            block = rec.get(key)
            if isinstance(block, dict):
                evidence += [str(t) for t in as_list(block.get(sub)) if t]
                title = title or next(iter(as_list(block.get(tkey))), "")
            elif isinstance(block, list):
                evidence += [str(b.get(sub, "")) for b in block if b.get(sub)]
                title = title or next((b.get(tkey, "") for b in block), "")
        if isinstance(rec.get("evidence"), str):
            evidence.append(rec["evidence"])
        needles = [str(value)] + [str(a) for a in aliases]
        doc = next((e for e in evidence if any(n.lower() in e.lower() for n in needles if n)),
                   evidence[0] if evidence else "")
        rows.append({
            "id": str(rec.get("question_id", rec.get("QuestionId", f"triviaqa-{i}"))),
            "source": "triviaqa", "question": str(question), "answer": str(value),
            "aliases": [a for a in map(str, aliases) if a != str(value)], "title": str(title),
            "human_passage": _evidence_window(doc, needles, window_words) if doc else "",
            "query_type": "", "negatives": [],
        })
    return items_frame(rows)
