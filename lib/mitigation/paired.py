"""A before / after reading on the same units: both means and their paired difference, each with an
interval that resamples the question (lib.stats.clustered_mean), and the difference tested against 0."""
from __future__ import annotations

import numpy as np
import pandas as pd

from lib.stats import clustered_mean

COLUMNS = ["n", "n_judgments", "before", "after", "diff", "ci_low", "ci_high", "p", "ci_note"]


def paired_difference(before, after, clusters) -> dict:
    """before / after: one value per judgment (same judgments, same order); clusters: the question of
    each. The difference is after minus before; intervals and p resample questions."""
    b, a = np.asarray(before, float), np.asarray(after, float)
    keep = ~(np.isnan(b) | np.isnan(a))
    cl = np.asarray(list(clusters), dtype=object)[keep]
    b, a = b[keep], a[keep]
    d = clustered_mean(a - b, cl, null=0.0, method="bootstrap", rate=False)
    return {"n": d["n_items"], "n_judgments": d["n_judgments"],
            "before": float(b.mean()) if len(b) else np.nan, "after": float(a.mean()) if len(a) else np.nan,
            "diff": d["estimate"], "ci_low": d["ci_low"], "ci_high": d["ci_high"], "p": d["p"],
            "ci_note": d["ci_note"]}


def paired_rows(table: pd.DataFrame, by: list[str], before: str, after: str, **labels) -> pd.DataFrame:
    """`paired_difference` of columns `before` / `after` per group of `by` (clustered on `question`),
    one row per group with the `labels` (arm, quantity, ...) added."""
    rows = []
    for key, g in table.groupby(by, sort=False) if len(table) else []:
        key = key if isinstance(key, tuple) else (key,)
        rows.append({**labels, **dict(zip(by, key)), **paired_difference(g[before], g[after], g["question"])})
    return pd.DataFrame(rows, columns=list(labels) + by + COLUMNS)
