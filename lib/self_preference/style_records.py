"""Notebook 08's judgments kept in the run folder (`STYLE_FILE`, one line per style pair and order) for
notebook 18's length control: which passages were compared (the styled passage A against B), in which
order, the two passages' lengths in words, who wrote each and what the parsed reply chose. 08 asks no
likelihood (both passages carry the same answer), so a line holds the parsed choice only."""
from __future__ import annotations

import pandas as pd

STYLE_FILE = "style_pairs.jsonl"  # read by notebook 18 (lib.mitigation.inputs)
FIELDS = ["dataset", "item_id", "evaluator", "kind", "a_author", "b_author", "a_style", "b_style", "order",
          "len_a", "len_b", "status", "choice", "valid", "chose_a"]


def _words(text) -> float:
    """Words of a passage (whitespace-separated, as 13 counts its responses'); None: no passage."""
    return float(len(str(text).split())) if isinstance(text, str) else float("nan")


def style_records(scored: pd.DataFrame) -> pd.DataFrame:
    """`STYLE_FILE`'s lines from `pairwise.ask_style_evaluators`' scored pairs: A is the styled passage
    (gen-by-QA or long), B the normal one; `len_a` / `len_b` their words; `choice` the passage shown
    (1 or 2) the reply used, `chose_a` whether that is A (missing when the reply did not parse)."""
    if not len(scored):
        return pd.DataFrame(columns=FIELDS)
    a_first = scored["order"] == "a_first"
    text_a = scored["text_1"].where(a_first, scored["text_2"])
    text_b = scored["text_2"].where(a_first, scored["text_1"])
    return scored.assign(len_a=text_a.map(_words), len_b=text_b.map(_words))[FIELDS].reset_index(drop=True)
