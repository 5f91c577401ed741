"""The comparison as a table a paper can take: per study, one row per measure, per entry
"estimate [interval]" with Holm-adjusted p marks and its n (lib.report.latex_table writes the LaTeX)."""
from __future__ import annotations

import math

import pandas as pd

from lib.report import findings
from lib.report.latex_table import format_number, interval_text

from .join import cell, entries

MARKS = ((0.001, "***"), (0.01, "**"), (0.05, "*"))
NOTE = ("estimate [95% interval]; * ** *** Holm-adjusted p < 0.05, 0.01, 0.001 (Holm over each run's declared family per study: primary, non-smoke, non-pooled findings); "
        f"n in independent units, (smoke) where n < {findings.SMOKE_N}; --- not measured")


def mark(p_adjusted) -> str:
    """'***', '**', '*' or '' for a Holm-adjusted p-value (NaN: untested)."""
    if p_adjusted is None or (isinstance(p_adjusted, float) and math.isnan(p_adjusted)):
        return ""
    return next((m for cut, m in MARKS if float(p_adjusted) < cut), "")


def estimate_text(estimate, low, high, p_adjusted=None, decimals: int = 3) -> str | None:
    """'0.512 [0.410, 0.600]*' (None when there is no estimate: an empty cell)."""
    if pd.isna(estimate):
        return None
    return f"{interval_text(estimate, low, high, decimals)}{mark(p_adjusted)}"


def study_table(wide: pd.DataFrame, long: pd.DataFrame, study: str) -> pd.DataFrame:
    """One study's rows: measure, the paper's value (with its model), then per entry the estimate
    text and n (with '(smoke)'); missing measures are empty cells."""
    rows = []
    for _, r in wide[wide["study"] == study].iterrows():
        paper = None
        if pd.notna(r["paper_value"]):
            paper = format_number(float(r["paper_value"])) + (f" ({r['paper_model']})" if r["paper_model"] else "")
        out = {"measure": r["measure"], "paper": paper}
        for e in entries(long):
            est, lo, hi, n, p_adj, smoke = cell(r, e)
            out[e] = estimate_text(est, lo, hi, p_adj)
            out[f"n ({e})"] = None if pd.isna(n) else f"{int(n)}" + (" (smoke)" if smoke is True else "")
        rows.append(out)
    table = pd.DataFrame(rows)
    if table["paper"].isna().all():
        table = table.drop(columns="paper")
    return table


def caption(study: str, long: pd.DataFrame) -> str:
    """The table's caption: what is compared, n and how to read the cells."""
    rows = long[long["study"] == study]
    n = rows["n"].dropna().astype(int)
    n_text = f"n = {n.min()}" if n.nunique() == 1 else f"n = {n.min()}--{n.max()} per cell"
    return f"{findings.STUDIES.get(study, study)}: {', '.join(entries(long))} compared ({n_text}). {NOTE}"
