"""The study's per-model loop (`for_each_model`, the name every study package gives it): for every
evaluator spec, run and concatenate."""
from __future__ import annotations

from typing import Callable

import pandas as pd


def for_each_model(evaluators: list[str], author_names: dict | None,
                   run: Callable[[object, str, str], pd.DataFrame], ignore_index: bool = True) -> pd.DataFrame:
    """run(model, author name, spec) for every evaluator spec in order, the results in one table
    (an empty table for none); `ignore_index=False` keeps the rows' labels."""
    from lib.models import get_model
    from lib.models.specs import author_name

    parts = [run(get_model(spec), author_name(spec, author_names), spec) for spec in evaluators]
    return pd.concat(parts, ignore_index=ignore_index) if parts else pd.DataFrame()
