"""The content-free replies notebook 18 keeps in its run folder (`content_free.jsonl`: per model and
prompt kind the options' log-probabilities for each content-free string) and `reparse`, which computes
the priors from them again, no model call."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from lib.records import DataError, read_records, write_records

from .content_free import prior_from_logprobs

CONTENT_FREE_FILE = "content_free.jsonl"


def write_content_free(records: list[dict], path) -> Path:
    """The content-free records as JSON lines."""
    return write_records(path, records)


def reparse(path) -> pd.DataFrame:
    """One row per model and prompt kind with its prior, recomputed from the stored log-probabilities."""
    records = read_records(path)
    if not isinstance(records, list):
        raise DataError(f"{path}: expected notebook 18's content-free JSON lines.")
    rows = []
    for i, rec in enumerate(records, 1):
        missing = {"model", "spec", "kind", "setting", "logprobs"} - set(rec)
        if missing:
            raise DataError(f"{path}, line {i}: missing field(s) {sorted(missing)}.")
        rows.append({**{k: rec[k] for k in ("model", "spec", "kind", "setting")}, "logprobs": rec["logprobs"],
                     "prior": prior_from_logprobs(rec["logprobs"])})
    return pd.DataFrame(rows, columns=["model", "spec", "kind", "setting", "logprobs", "prior"])


def priors(table: pd.DataFrame) -> tuple[dict, dict]:
    """({(model, setting): 05's prior}, {spec: 13's prior}) from `reparse`'s table."""
    pw = {(r["model"], r["setting"]): r["prior"] for r in table.to_dict("records") if r["kind"] == "pointwise"}
    judge = {r["spec"]: r["prior"] for r in table.to_dict("records") if r["kind"] == "judge"}
    return pw, judge
