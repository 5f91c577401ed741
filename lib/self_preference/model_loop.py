"""For every evaluator, run and concatenate: the one loop over evaluator specs of the study."""
from __future__ import annotations

from typing import Callable

import pandas as pd


def run_evaluators(evaluators: list[str], author_names: dict | None,
                   run: Callable[[object, str, str], pd.DataFrame], ignore_index: bool = True) -> pd.DataFrame:
    """run(model, author name, spec) for every evaluator spec in order, the results in one table
    (an empty table for none); `ignore_index=False` keeps the rows' labels."""
    from lib.models import get_model
    from lib.models.specs import author_name

    parts = [run(get_model(spec), author_name(spec, author_names), spec) for spec in evaluators]
    return pd.concat(parts, ignore_index=ignore_index) if parts else pd.DataFrame()
