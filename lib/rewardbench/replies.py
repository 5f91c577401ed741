"""What every reward model said per pair, on disk, and `reparse` (the name and call shape every study
package gives it): notebook 13 writes each judge reply, log-probability and score to `RAW_FILE` in its
run folder, and `reparse` rebuilds the per-pair results from it with today's parser, no model call
(`python -m lib.rewardbench.study reparse <run>` rewrites 13's tables that way)."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from lib.records import DataError, read_records, write_records

from .registry import results_from_raw

RAW_FILE = "rewardbench_raw.jsonl"  # notebook 13's raw replies and scores, in the run folder


def write_raw(records: list[dict], path) -> Path:
    """Raw per-pair records as JSON lines (one per reward model and pair)."""
    return write_records(path, records)


def reparse(path) -> pd.DataFrame:
    """Per-pair results rebuilt from a raw JSON-lines file (notebook 13's `rewardbench_raw.jsonl`)
    with today's parser: no model call."""
    records = read_records(path)
    if not isinstance(records, list) or not records:
        raise DataError(f"{path}: no raw reward-model records (expected notebook 13's JSON lines).")
    for i, rec in enumerate(records, 1):
        missing = {"rm", "kind", "spec", "id"} - set(rec)
        if missing:
            raise DataError(f"{path}, line {i}: missing field(s) {sorted(missing)}.")
    return results_from_raw(records)
