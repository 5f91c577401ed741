"""Which interval a table shows: the rule of findings rows (`lib.stats.shown_interval`) applied to
every estimate of a table that has interval columns and a count of its units, so no table shows an
interval that findings.csv withholds. A withheld interval's reason goes to the table's one
`no_interval` column (the findings' column of the same name)."""
from __future__ import annotations

import re

import pandas as pd

from lib import stats

REASON = "no_interval"
# (low, high) column names of an interval around column `base`
_BOUNDS = [("{}_ci_low", "{}_ci_high"), ("{} lo", "{} hi"), ("{}_lo", "{}_hi"), ("{}_low", "{}_high"),
           ("{} CI low", "{} CI high")]
_STATS = "rate|mean|estimate|diff|score|accuracy|value|gain"
_LAST_WORD = re.compile(rf"^(.*?)([:_ ]\s*)({_STATS})$")  # style_rate, "paper: mean" -> style_ci_low, "paper: ci_low"
_FIRST_WORD = re.compile(rf"^({_STATS})_(.+)$")  # diff_true -> ci_low_true
# columns that count the independent units of a row, most specific first
UNIT_COUNTS = ("n_items", "n_questions", "questions", "items", "n")


def bounds_of(df: pd.DataFrame, base: str) -> tuple[str, str] | None:
    """The (low, high) columns that bound column `base`, if the frame has them."""
    for lo, hi in _BOUNDS:
        if lo.format(base) in df.columns and hi.format(base) in df.columns:
            return lo.format(base), hi.format(base)
    candidates = []
    m = _LAST_WORD.match(base)
    if m:  # "failure rate" -> "failure ci_low" or "failure lo" (utility figures 5 and 6)
        candidates += [(f"{m.group(1)}{m.group(2)}{lo}", f"{m.group(1)}{m.group(2)}{hi}")
                       for lo, hi in (("ci_low", "ci_high"), ("lo", "hi"))]
    m = _FIRST_WORD.match(base)
    if m:
        candidates.append((f"ci_low_{m.group(2)}", f"ci_high_{m.group(2)}"))
    for lo, hi in candidates:
        if lo in df.columns and hi in df.columns:
            return lo, hi
    return None


def interval_columns(df: pd.DataFrame) -> dict:
    """{estimate column: (low, high)} for every interval of the frame (bare `ci_low` / `ci_high`, or
    `lo` / `hi`, bound the numeric column just before them)."""
    cols, pairs = list(df.columns), {}
    for i, c in enumerate(cols):
        if not pd.api.types.is_numeric_dtype(df[c]) or pd.api.types.is_bool_dtype(df[c]):
            continue
        bounds = bounds_of(df, str(c))
        if bounds is None and i + 2 < len(cols) and (cols[i + 1], cols[i + 2]) in (("ci_low", "ci_high"), ("lo", "hi")):
            bounds = (cols[i + 1], cols[i + 2])
        if (bounds and bounds[0] not in [b[0] for b in pairs.values()]
                and all(pd.api.types.is_numeric_dtype(df[b]) for b in bounds)):
            pairs[c] = bounds
    return pairs


def _stem(base: str) -> str:
    """'self' of 'self_rate', 'failure' of 'failure rate', 'true' of 'diff_true', '' of 'rate'."""
    m = _LAST_WORD.match(base)
    if m:
        return m.group(1)
    m = _FIRST_WORD.match(base)
    return m.group(2) if m else ("" if re.fullmatch(_STATS, base) else base)


def unit_count(df: pd.DataFrame, base: str) -> str | None:
    """The column counting the independent units behind `base`'s interval: its own (`self_n_items`,
    `self_n`, `n_true`), else the row's (`n_items`, `questions`, `items`, `n`)."""
    stem = _stem(str(base))
    own = [f"{stem}_n_items", f"{stem}_n", f"n_{stem}", f"{stem} n"] if stem else []
    for c in own + list(UNIT_COUNTS):
        if c in df.columns and pd.api.types.is_numeric_dtype(df[c]):
            return c
    return None


def withhold(df: pd.DataFrame) -> pd.DataFrame:
    """The frame with every interval the rule withholds blanked (too few units, no spread) and the
    reason in `no_interval` ("self: too few units, ..." when the row has several intervals). An
    interval whose units nothing counts is kept as it is. A frame without intervals is returned as given."""
    pairs = interval_columns(df)
    if not pairs:
        return df
    out = df.copy()
    reasons = [[] for _ in range(len(out))]
    for base, (lo, hi) in pairs.items():
        count = unit_count(out, str(base))
        if count is None:
            continue
        for i, (n, e, a, b) in enumerate(zip(out[count], out[base], out[lo], out[hi])):
            if pd.isna(e):
                continue
            a2, _, why = stats.shown_interval(n, a, b)
            if pd.isna(a2):
                out.iloc[i, out.columns.get_loc(lo)] = float("nan")
                out.iloc[i, out.columns.get_loc(hi)] = float("nan")
                reasons[i].append((str(base), why or "none computed"))
    given = out[REASON].astype(object).where(out[REASON].notna(), "") if REASON in out else pd.Series("", index=out.index)
    several = len(pairs) > 1
    text = ["; ".join([g] * bool(g) + [f"{b}: {w}" if several else w for b, w in r if w not in g])
            for g, r in zip(given, reasons)]
    if any(text) or REASON in out:
        out[REASON] = text
    return out


def shown_against_rule(df: pd.DataFrame) -> list[str]:
    """Cells of a written table that show an interval the findings' rule withholds, one line each
    ('row 3, self_rate: 9 units'); empty when the table follows the rule."""
    problems = []
    for base, (lo, hi) in interval_columns(df).items():
        count = unit_count(df, str(base))
        if count is None:
            continue
        for i, (n, e, a, b) in enumerate(zip(df[count], df[base], df[lo], df[hi])):
            if pd.notna(e) and pd.notna(a) and pd.notna(b) and pd.isna(stats.shown_interval(n, a, b)[0]):
                problems.append(f"row {i}, {base}: [{a:.3g}, {b:.3g}] at {n} units")
    return problems
