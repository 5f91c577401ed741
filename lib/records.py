"""Reading and writing records (JSON / JSON lines) and the one error type for unusable input data.

Every study's loaders read files through `read_records` and raise `DataError`, so a researcher gets
one kind of message, naming the file, the item and the field, whichever notebook reads the data.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd


class DataError(ValueError):
    """Input data that cannot be used, with the file, item and field in the message."""


def read_records(path) -> list | dict:
    """Read a .json or .jsonl file; JSON errors name the file and line."""
    path = Path(path)
    if not path.exists():
        raise DataError(f"{path}: file not found.")
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        out = []
        for i, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError as err:
                    raise DataError(f"{path}, line {i}: not valid JSON ({err.msg}).") from None
        return out
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise DataError(f"{path}: not valid JSON ({err.msg} at line {err.lineno}).") from None


def write_records(path, records, append: bool = False) -> Path:
    """Write records as JSON lines (UTF-8, non-ASCII kept), the layout `read_records` reads back:
    dicts one per line (values JSON cannot hold as text), or a DataFrame's rows as pandas writes them
    (NaN as null); `append` adds to an existing file. Creates the folder; returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(records, pd.DataFrame):
        if append:
            raise ValueError("write_records: append a DataFrame's rows as dicts (df.to_dict('records')).")
        records.to_json(path, orient="records", lines=True, force_ascii=False)
        return path
    with path.open("a" if append else "w", encoding="utf-8") as fh:
        for rec in records:
            fh.write(json.dumps(rec, ensure_ascii=False, default=str) + "\n")
    return path


def field(rec: dict, name: str, path, where) -> object:
    """rec[name], or a DataError naming file, item and field."""
    if not isinstance(rec, dict):
        raise DataError(f"{path}, item {where}: expected a JSON object, got {type(rec).__name__}.")
    if name not in rec or rec[name] is None:
        raise DataError(f"{path}, item {where}: missing field {name!r} (has: {sorted(rec)}).")
    return rec[name]


def as_list(value) -> list:
    """Lists stay, scalars become one-element lists, None becomes []."""
    if value is None:
        return []
    if isinstance(value, (list, tuple, np.ndarray)):
        return list(value)
    return [value]
