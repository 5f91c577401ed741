"""Raw judgment replies on disk (one JSON line per question and judgment) and `reparse` (the name and
call shape every study package gives it), which re-reads them with the current parsers without any
model call."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from lib.records import DataError, read_records, write_records
from lib.utility.benchmark import Candidates
from lib.utility.evaluate import judgment_rows
from lib.utility.judging import Judgment, from_replies


def save_replies(judgments: list[Judgment], path, **tags) -> Path:
    """Append one line per judgment: id, form, judgment, presentation order, raw replies, tags."""
    return write_records(path, ({"id": j.id, "form": j.form, "judgment": j.judgment, "order": j.order,
                                 "replies": j.raw, **tags} for j in judgments), append=True)


def reparse(path, *, rows: list[Candidates], tag_columns: list[str] | None = None) -> pd.DataFrame:
    """Per-question metric rows rebuilt from stored replies with today's parsers (no model calls)."""
    by_id = {r.id: r for r in rows}
    frames = []
    for n, rec in enumerate(read_records(Path(path)), 1):
        if rec.get("id") not in by_id:
            raise DataError(f"{path}, line {n}: question {rec.get('id')!r} is not in the candidate sets "
                            "given; pass the GTI / GTU rows the replies were made on.")
        j = from_replies(rec["id"], rec["form"], rec["judgment"], rec["order"], rec["replies"])
        tags = {k: v for k, v in rec.items() if k not in ("id", "form", "judgment", "order", "replies")}
        if tag_columns is not None:
            tags = {k: tags.get(k) for k in tag_columns}
        frames.append(judgment_rows([by_id[rec["id"]]], [j], **tags))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
