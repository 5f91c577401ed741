"""The in-house demo files (data/demo/<source>.jsonl), in our item layout."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from lib import paths
from lib.records import DataError, field, read_records

from .common import ITEM_COLUMNS, SOURCES, items_frame


def demo_path(source: str) -> Path:
    """Path of one demo file (data/demo/<source>.jsonl)."""
    if source not in SOURCES:
        raise DataError(f"Unknown demo source {source!r}; choose one of {SOURCES}.")
    return paths.DEMO / f"{source}.jsonl"


def parse_demo(path) -> pd.DataFrame:
    """Items of one demo-layout JSONL file, every field checked."""
    path = Path(path)
    recs = read_records(path)
    rows = []
    for i, rec in enumerate(recs, 1):
        where = f"line {i} ({rec.get('id', '?') if isinstance(rec, dict) else '?'})"
        row = {c: field(rec, c, path, where) for c in ITEM_COLUMNS
               if c not in ("query_type", "title", "false_answer_ours")}
        row["false_answer_ours"] = rec.get("false_answer_ours", "") or ""
        row["title"] = rec.get("title", "")
        row["query_type"] = rec.get("query_type", "") or ""
        if not isinstance(row["aliases"], list) or not isinstance(row["negatives"], list):
            raise DataError(f"{path}, item {where}: 'aliases' and 'negatives' must be lists.")
        for j, neg in enumerate(row["negatives"]):
            if not isinstance(neg, dict) or "text" not in neg:
                raise DataError(f"{path}, item {where}: negatives[{j}] needs a 'text' field.")
        rows.append(row)
    return items_frame(rows)
