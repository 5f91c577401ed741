"""The passage bank's columns and the knowledge levels, shared by the bank, release and tables."""
from __future__ import annotations

BANK_COLUMNS = ["item_id", "dataset", "question", "answer", "false_answer", "author", "factuality",
                "style", "text", "false_by"]
KNOWLEDGE_LEVELS = ("none", "partial", "full")


def bank_row(item_id, dataset, q, a, fa, author, fact, style, text, false_by="") -> dict:
    """One bank row in BANK_COLUMNS order."""
    return dict(zip(BANK_COLUMNS, [str(item_id), dataset, str(q), str(a), str(fa), author, fact,
                                   style, "" if text is None else str(text), false_by]))
