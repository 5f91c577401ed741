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


def _stem(base: str) -> tuple[str, str]:
    """(stem, separator): ('self', '_') of 'self_rate', ('paper (parsed reply)', ': ') of 'paper (parsed
    reply): mean', ('true', '_') of 'diff_true', ('', '') of 'rate'."""
    m = _LAST_WORD.match(base)
    if m:
        return m.group(1), m.group(2)
    m = _FIRST_WORD.match(base)
    if m:
        return m.group(2), "_"
    return ("", "") if re.fullmatch(_STATS, base) else (base, "_")


def unit_count(df: pd.DataFrame, base: str) -> str | None:
    """The column counting the independent units behind `base`'s interval: its own (`self_n_items`,
    `self_n`, `n_true`, 'paper: n' beside 'paper: mean'), else the row's (`n_items`, `questions`, `items`, `n`)."""
    stem, sep = _stem(str(base))
    own = []
    if stem:
        # the estimate's own separator first: 'paper (parsed reply): n' beside 'paper (parsed reply): mean'
        own = [f"{stem}{s}{u}" for s in dict.fromkeys([sep, "_", " "]) for u in ("n_items", "n_questions", "n")]
        own += [f"n_{stem}"]
    for c in own + list(UNIT_COUNTS):
        if c in df.columns and pd.api.types.is_numeric_dtype(df[c]):
            return c
    return None


def _no_count_rule(low, high) -> tuple[float, float, str]:
    """The rule where nothing counts the units: a zero-width interval (all units equal) is still withheld."""
    if pd.notna(low) and pd.notna(high) and float(high) - float(low) <= 1e-12:
        return float("nan"), float("nan"), stats.NO_SPREAD
    return low, high, ""


def withhold(df: pd.DataFrame) -> pd.DataFrame:
    """The frame with every interval the rule withholds blanked (too few units, no spread) and the
    reason in `no_interval` ("self: too few units, ..." when the row has several intervals). An
    interval whose units nothing counts is kept unless it has zero width. A frame without intervals is returned as given."""
    pairs = interval_columns(df)
    if not pairs:
        return df
    out = df.copy()
    reasons = [[] for _ in range(len(out))]
    for base, (lo, hi) in pairs.items():
        count = unit_count(out, str(base))
        counts = out[count] if count is not None else [None] * len(out)
        for i, (n, e, a, b) in enumerate(zip(counts, out[base], out[lo], out[hi])):
            if pd.isna(e):
                continue
            a2, _, why = stats.shown_interval(n, a, b) if count is not None else _no_count_rule(a, b)
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
        counts = df[count] if count is not None else [None] * len(df)
        for i, (n, e, a, b) in enumerate(zip(counts, df[base], df[lo], df[hi])):
            if not (pd.notna(e) and pd.notna(a) and pd.notna(b)):
                continue
            shown = stats.shown_interval(n, a, b)[0] if count is not None else _no_count_rule(a, b)[0]
            if pd.isna(shown):
                problems.append(f"row {i}, {base}: [{a:.3g}, {b:.3g}] at {n} units")
    return problems
