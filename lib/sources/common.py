"""What every QA-source loader shares: the item columns, the record reader and the 'hf:' spec."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from lib.models.specs import parse_dataset_spec
from lib.records import DataError, read_records

SOURCES = ("nq", "marco", "triviaqa")  # the self-preference study's datasets
ALL_SOURCES = SOURCES + ("hotpotqa",)  # plus the utility study's multi-hop set (lib.sources.hotpotqa)
ITEM_COLUMNS = ["id", "source", "question", "answer", "aliases", "title", "human_passage",
                "query_type", "negatives", "false_answer_ours"]
# Only our demo items carry `false_answer_ours` (a false answer we wrote, the passage bank's fallback
# where the model's own false answer is unusable); for every other source it is "".
OPTIONAL_COLUMNS = {"false_answer_ours": ""}


def items_frame(rows: list[dict], extra=()) -> pd.DataFrame:
    """Item rows as a DataFrame with exactly ITEM_COLUMNS plus `extra` (optional columns filled with
    their default)."""
    frame = pd.DataFrame(rows, columns=ITEM_COLUMNS + list(extra))
    for col, default in OPTIONAL_COLUMNS.items():
        frame[col] = [default if pd.isna(v) else str(v) for v in frame[col]]
    return frame


def load_hf(spec: str):
    """'hf:<id>[:<config>[:<split>]]' through `datasets` (needs network or a local HF cache)."""
    import datasets  # imported here: slow, and only needed online

    parsed = parse_dataset_spec(spec)
    try:
        return datasets.load_dataset(parsed.name, parsed.config, split=parsed.split)
    except Exception as err:  # noqa: BLE001 - re-raised with the fix
        raise DataError(f"{spec}: could not load through `datasets` ({err}). Offline, download the "
                        "files and pass their path instead.") from None


def records(source) -> tuple[list, str]:
    """Records from a path, an 'hf:' spec or an in-memory list, plus a label for messages."""
    if isinstance(source, (list, tuple)):
        return list(source), "<records>"
    if parse_dataset_spec(source) is not None:
        return list(load_hf(source)), source
    path = Path(source)
    return read_records(path), str(path)
