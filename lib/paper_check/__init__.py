"""Paper check: our numbers beside the published cells, one row per cell, and "N of M cells match".

A study computes its cells as {(paper, table, row, column): value} from the files that determine
them (for the self-preference study, the authors' release: `lib.self_preference.paper_check`);
`compare` lines them up with `published.PUBLISHED`, `write` saves `paper_check.csv`.
"""
from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from .published import PUBLISHED, Published

COLUMNS = ["paper", "table", "row", "column", "paper_value", "ours", "tolerance", "match"]


def published_cells(paper: str | None = None, tables=None) -> list[Published]:
    """The published cells, optionally of one paper and some of its tables."""
    return [c for c in PUBLISHED if (paper is None or c.paper == paper)
            and (tables is None or c.table in tables)]


def compare(ours: dict, cells: list[Published] | None = None) -> pd.DataFrame:
    """One row per published cell: our value (NaN when our files do not determine it) and whether
    it lies within the cell's tolerance."""
    cells = PUBLISHED if cells is None else cells
    known = {(c.paper, c.table, c.row, c.column) for c in cells}
    stray = [k for k in ours if k not in known]
    if stray:
        raise KeyError(f"computed cells with no published counterpart (typo?): {stray[:3]}")
    rows = []
    for c in cells:
        value = ours.get((c.paper, c.table, c.row, c.column), math.nan)
        value = math.nan if value is None else float(value)
        ok = not math.isnan(value) and abs(value - c.value) <= c.tolerance + 1e-9
        rows.append([c.paper, c.table, c.row, c.column, c.value, value, c.tolerance, ok])
    return pd.DataFrame(rows, columns=COLUMNS)


def summary_line(table: pd.DataFrame) -> str:
    """'N of M cells match' (plus how many cells our files did not determine)."""
    line = f"{int(table['match'].sum())} of {len(table)} cells match"
    missing = int(table["ours"].isna().sum())
    return line + (f" ({missing} not determined by the files given)" if missing else "")


def write(table: pd.DataFrame, path) -> Path:
    """Write the check as CSV (columns COLUMNS)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    table[COLUMNS].to_csv(path, index=False)
    return path
