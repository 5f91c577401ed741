"""QA datasets every study reads (NQ, MS MARCO, TriviaQA, HotpotQA, the demo files), and seeded sampling.

Every loader returns items with the columns of `ITEM_COLUMNS`. Structural problems raise
`lib.records.DataError` naming the file, the item and the field; unusable items are dropped and
counted (`sample_items`, `drop_summary`), never skipped silently.
"""
from .common import ALL_SOURCES, ITEM_COLUMNS, SOURCES, items_frame
from .demo import demo_path, parse_demo
from .hotpotqa import load_hotpotqa, parse_hotpotqa
from .loading import load_source
from .marco import MARCO_NO_ANSWER, MARCO_V1_QUERY_TYPES, parse_marco
from .nq import parse_nq
from .item_sampling import (answer_in_passage, as_sources, drop_summary, items_for_run, load_demo,
                       prepare_items, sample_items, save_items)
from .triviaqa import parse_triviaqa

__all__ = ["SOURCES", "ALL_SOURCES", "load_hotpotqa", "parse_hotpotqa", "ITEM_COLUMNS", "MARCO_V1_QUERY_TYPES", "MARCO_NO_ANSWER", "items_frame",
           "load_source", "load_demo", "demo_path", "sample_items", "prepare_items", "items_for_run",
           "save_items", "drop_summary", "as_sources", "answer_in_passage",
           "parse_nq", "parse_marco", "parse_triviaqa", "parse_demo"]
