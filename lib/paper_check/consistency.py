"""Consistency rows: published numbers recomputed from other published numbers of the same paper.

The utility-judgment paper's set F1 is the harmonic mean of the averaged precision and recall, so each
F1 cell of its Tables 2 and 3 follows from the same cell's printed P and R. These rows check the
paper's arithmetic (kind `consistency`); no code of ours runs on data there.
"""
from __future__ import annotations

import pandas as pd

from . import Computed, compare, published_cells
from .published import UTILITY, UTILITY_TABLE2, UTILITY_TABLE3


def f1_of(p: float, r: float) -> float:
    """Harmonic mean of precision and recall (same scale in and out)."""
    return 2 * p * r / (p + r) if p + r else 0.0


def rounding_tolerance(p: float, r: float, half_unit: float = 0.005) -> float:
    """How far F1 can be from f1_of(p, r) because P, R and F1 were each rounded to two decimals."""
    corners = [f1_of(p + dp, r + dr) for dp in (-half_unit, half_unit) for dr in (-half_unit, half_unit)]
    return max(abs(c - f1_of(p, r)) for c in corners) + half_unit


def utility_f1_rows() -> pd.DataFrame:
    """One `consistency` row per published set-F1 cell: the F1 recomputed from the cell's own P and R."""
    sources = {("Table 2", f"{ds} / {j}", "F1 (listwise-set)"): v for (ds, j), v in UTILITY_TABLE2.items()}
    sources.update({("Table 3", m, f"{ds} F1 ({form})"): v for (m, ds, form), v in UTILITY_TABLE3.items()})
    ours = {(UTILITY, *key): Computed(round(f1_of(p, r), 4), "consistency",
                                      f"2PR/(P+R) of the printed P = {p}, R = {r}",
                                      round(rounding_tolerance(p, r), 4))
            for key, (p, r, _) in sources.items()}
    cells = [c for c in published_cells(UTILITY) if "F1" in c.column.split()]
    return compare(ours, cells)
