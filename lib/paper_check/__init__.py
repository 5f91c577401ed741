"""Paper check: our numbers beside the published cells, one row per cell, each row of one kind.

Kinds (column `kind`):
- `reproduced`: our code on the authors' data (v1 Table 1 from our matcher's counts on their
  recorded replies; v1 Table 2 lengths from their passages; the t-test's dagger on their perplexities).
  Only these count in "N of M cells match".
- `consistency`: a published number recomputed from other published numbers (the utility paper's F1
  from the same cell's P and R). It checks the paper's arithmetic, not our code.
- `release`: a number read from the release as is (the perplexity means; knowledge levels of a file
  that recorded no replies).
- `explained`: a cell the files determine that is not expected to match, with a `note` saying why.
- `undetermined`: a published cell the files given do not determine (no check at all).

A study computes its cells as {(paper, table, row, column): value or Computed} (for the
self-preference study: `lib.self_preference.paper_check`); `compare` lines them up with
`published.PUBLISHED`, `summary_lines` prints one line per kind, `write` saves `paper_check.csv`.
A computed value must never be derived from the very cell it is compared with.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .published import PUBLISHED, Published

COLUMNS = ["paper", "table", "row", "column", "kind", "paper_value", "ours", "tolerance", "match", "note"]
KINDS = ("reproduced", "consistency", "release", "explained")
UNDETERMINED = "undetermined"


@dataclass(frozen=True)
class Computed:
    """Our value for one published cell, how it was obtained, and a note (why, for `explained`)."""

    value: float
    kind: str = "reproduced"
    note: str = ""
    tolerance: float | None = None  # None: the published cell's own (half a unit of its last digit)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind {self.kind!r}: choose one of {KINDS}.")


def published_cells(paper: str | None = None, tables=None) -> list[Published]:
    """The published cells, optionally of one paper and some of its tables."""
    return [c for c in PUBLISHED if (paper is None or c.paper == paper)
            and (tables is None or c.table in tables)]


def compare(ours: dict, cells: list[Published] | None = None) -> pd.DataFrame:
    """One row per published cell: our value (NaN and kind 'undetermined' when our files do not
    determine it), its kind and note, and whether it lies within the tolerance. A plain number
    counts as `reproduced`."""
    cells = PUBLISHED if cells is None else cells
    known = {(c.paper, c.table, c.row, c.column) for c in cells}
    stray = [k for k in ours if k not in known]
    if stray:
        raise KeyError(f"computed cells with no published counterpart (typo?): {stray[:3]}")
    rows = []
    for c in cells:
        got = ours.get((c.paper, c.table, c.row, c.column))
        if got is None or (not isinstance(got, Computed) and math.isnan(float(got))):
            rows.append([c.paper, c.table, c.row, c.column, UNDETERMINED, c.value, math.nan, c.tolerance,
                         False, "not determined by the files given"])
            continue
        got = got if isinstance(got, Computed) else Computed(float(got))
        tol = c.tolerance if got.tolerance is None else got.tolerance
        value = float(got.value)
        ok = not math.isnan(value) and abs(value - c.value) <= tol + 1e-9
        rows.append([c.paper, c.table, c.row, c.column, got.kind, c.value, value, tol, ok, got.note])
    return pd.DataFrame(rows, columns=COLUMNS)


def summary_line(table: pd.DataFrame) -> str:
    """'N of M cells match', counting the `reproduced` rows only."""
    rep = table[table["kind"] == "reproduced"]
    return f"{int(rep['match'].astype(bool).sum())} of {len(rep)} cells match"


_KIND_LINES = {
    "consistency": "consistency (published numbers recomputed from other published numbers): {m} of {n} agree",
    "release": "release (numbers read from the release as is): {m} of {n} agree with the paper",
    "explained": "explained (determined, not expected to match; see `note`): {n} cells, {m} of them match anyway",
    UNDETERMINED: "undetermined (published cells the files given do not determine): {n}",
}


def summary_lines(table: pd.DataFrame) -> list[str]:
    """The 'N of M cells match' line (reproduced cells), then one line per other kind present."""
    lines = [summary_line(table) + " (reproduced: our code on the authors' files)"]
    for kind, text in _KIND_LINES.items():
        sub = table[table["kind"] == kind]
        if len(sub):
            lines.append(text.format(m=int(sub["match"].astype(bool).sum()), n=len(sub)))
    return lines


def write(table: pd.DataFrame, path) -> Path:
    """Write the check as CSV (columns COLUMNS)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    table[COLUMNS].to_csv(path, index=False)
    return path
