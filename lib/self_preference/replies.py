"""Stored replies read again with today's parsers, no model call (`reparse`, the name and call shape
every study package gives it): notebook 05 keeps every reply of every rating in its run folder
(`pointwise_ratings.jsonl`), and `pointwise.score_ratings` re-scores them. Notebook 06's stored pairs
re-score the same way with `pairwise.score_pairs`."""
from __future__ import annotations

import pandas as pd

from lib.records import read_records

from .pointwise import score_ratings


def reparse(path, *, strict: bool = False) -> pd.DataFrame:
    """Notebook 05's ratings rebuilt from the replies stored at `path` (a ratings table in memory is
    taken as it is): score, parse_how and parsed recomputed, every other column kept."""
    ratings = path if isinstance(path, pd.DataFrame) else pd.DataFrame(read_records(path))
    return score_ratings(ratings, strict)
