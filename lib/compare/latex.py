"""The comparison as a table a paper can take: per study, one row per measure, per entry
"estimate [interval]" with Holm-adjusted p marks and its n (lib.report.latex_table writes the LaTeX)."""
from __future__ import annotations

import math
import re

import pandas as pd

from lib import stats
from lib.report import findings
from lib.report.intervals import REASON
from lib.report.latex_table import WITHHELD, column_decimals, format_number, interval_text

from .join import cell, entries

MARKS = ((0.001, "***"), (0.01, "**"), (0.05, "*"))
NOTE = ("estimate [95% interval]; * ** *** Holm-adjusted p < 0.05, 0.01, 0.001 (Holm over each run's declared family per study: primary, non-smoke, non-pooled findings); "
        f"n in independent units, (smoke) where n < {findings.SMOKE_N}; --- not measured")


def mark(p_adjusted) -> str:
    """'***', '**', '*' or '' for a Holm-adjusted p-value (NaN: untested)."""
    if p_adjusted is None or (isinstance(p_adjusted, float) and math.isnan(p_adjusted)):
        return ""
    return next((m for cut, m in MARKS if float(p_adjusted) < cut), "")


def estimate_text(estimate, low, high, p_adjusted=None, decimals: int = 3, dagger: bool = False) -> str | None:
    """'0.512 [0.410, 0.600]*'; with `dagger`, '0.500†' without an interval (for a table whose caption
    says why); None when there is no estimate: an empty cell."""
    if pd.isna(estimate):
        return None
    withheld = WITHHELD if dagger and (pd.isna(low) or pd.isna(high)) else ""
    return f"{interval_text(estimate, low, high, decimals)}{withheld}{mark(p_adjusted)}"


def row_decimals(measure: str, values) -> int:
    """A measure's decimals, by latex_table's rule for a column: 1 for a percentage or values of 10 or
    more (96.7 [83.3, 99.4], not 96.667 [83.330, 99.409]), else 3."""
    return column_decimals(measure, pd.Series([v for v in values if pd.notna(v)], dtype=float), 3)


def short_reason(reason, n) -> str:
    """Why a cell has no interval, in a few words: the findings row's reason less its parenthesised
    gloss ('all units equal: no interval (nothing varies ...)' -> 'all units equal'), else the rule's."""
    text = "" if reason is None or (isinstance(reason, float) and math.isnan(reason)) else str(reason)
    text = re.sub(r"\s*\([^()]*\)", "", text)
    text = re.sub(r":\s*no interval$", "", text.strip()).strip()
    if not text:
        text = stats.shown_interval(n, float("nan"), float("nan"))[2] or "reason not stated"
    return text


def study_table(wide: pd.DataFrame, long: pd.DataFrame, study: str) -> pd.DataFrame:
    """One study's rows: measure, the paper's value and its model (columns of their own), then per
    entry the estimate text ('†' where the interval is withheld, the reason in `no_interval`, which
    latex_table puts in the caption) and n (with '(smoke)'); missing measures are empty cells."""
    rows = []
    for _, r in wide[wide["study"] == study].iterrows():
        cells = {e: cell(r, e) for e in entries(long)}
        d = row_decimals(r["measure"], [r["paper_value"]] + [v for c in cells.values() for v in c[:3]])
        paper = None if pd.isna(r["paper_value"]) else format_number(float(r["paper_value"]), d)
        model = r["paper_model"] if paper is not None and isinstance(r["paper_model"], str) and r["paper_model"] else None
        out = {"measure": r["measure"], "paper": paper, "paper's model": model}
        reasons = []
        for e, (est, lo, hi, n, p_adj, smoke) in cells.items():
            out[e] = estimate_text(est, lo, hi, p_adj, d, dagger=True)
            out[f"n ({e})"] = None if pd.isna(n) else f"{int(n)}" + (" (smoke)" if smoke is True else "")
            if pd.notna(est) and (pd.isna(lo) or pd.isna(hi)):
                reasons.append(short_reason(r.get(f"no_interval [{e}]"), n))
        out[REASON] = "; ".join(dict.fromkeys(reasons))
        rows.append(out)
    table = pd.DataFrame(rows)
    for c in ("paper", "paper's model"):
        if c in table and table[c].isna().all():
            table = table.drop(columns=c)
    return table


def caption(study: str, long: pd.DataFrame) -> str:
    """The table's caption: what is compared, n and how to read the cells."""
    rows = long[long["study"] == study]
    n = rows["n"].dropna().astype(int)
    n_text = f"n = {n.min()}" if n.nunique() == 1 else f"n = {n.min()}--{n.max()} per cell"
    return f"{findings.STUDIES.get(study, study)}: {', '.join(entries(long))} compared ({n_text}). {NOTE}"
