"""One entry point for the items of a source: demo file, downloaded file or 'hf:' spec."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from lib.models.specs import parse_dataset_spec
from lib.records import DataError, read_records

from .common import ALL_SOURCES
from .demo import demo_path, parse_demo
from .hotpotqa import load_hotpotqa
from .marco import MARCO_V1_QUERY_TYPES, parse_marco
from .nq import parse_nq
from .triviaqa import parse_triviaqa


def load_source(source: str, path: str = "", query_types=MARCO_V1_QUERY_TYPES,
                window_words: int = 200) -> pd.DataFrame:
    """All items of one source: the demo file when `path` is empty, else a downloaded file, an
    'hf:<id>[:<config>[:<split>]]' spec, or a demo-layout JSONL (hotpotqa: see lib.sources.hotpotqa)."""
    if source not in ALL_SOURCES:
        raise DataError(f"Unknown source {source!r}; choose one of {ALL_SOURCES}.")
    if source == "hotpotqa":  # multi-hop: items carry their supporting passages
        return load_hotpotqa(path)
    if not path:
        return parse_demo(demo_path(source))
    if str(path).endswith(".jsonl") and parse_dataset_spec(str(path)) is None:
        first = next(iter(read_records(Path(path))), {})
        if isinstance(first, dict) and "human_passage" in first:
            return parse_demo(path)
    if source == "nq":
        return parse_nq(path)
    if source == "marco":
        return parse_marco(path, query_types=query_types)
    return parse_triviaqa(path, window_words=window_words)
