"""Published cells of the utility-judgment paper that can be checked without a model.

Tables 2 and 3 report, for each set-form cell, precision, recall and F1; the paper's F1 is the
harmonic mean of the averaged P and R, so each F1 cell can be recomputed from its own P and R cells.
`paper_check_rows()` returns one row per F1 cell in the paper-check layout (`paper, table, row,
column, paper_value, ours, tolerance, match`): `ours` is the recomputed F1, `tolerance` the paper's
rounding (two decimals: half a unit in the last place of F1, plus what the rounding of P and R can
move it). Values are typed from `shared/papers/utility-judgments.txt`.
"""
from __future__ import annotations

import pandas as pd

PAPER = "utility-judgments"
DATASETS = ("NQ", "HotpotQA", "MSMARCO-QA")

# Table 2 (ChatGPT, listwise-set): (dataset, judgment) -> (P, R, F1)
TABLE2 = {
    ("NQ", "Relevance"): (36.65, 73.75, 48.97), ("NQ", "Utility"): (57.19, 73.00, 64.14),
    ("HotpotQA", "Relevance"): (70.02, 47.45, 56.56), ("HotpotQA", "Utility"): (76.83, 46.54, 57.97),
    ("MSMARCO-QA", "Relevance"): (32.80, 85.04, 46.87), ("MSMARCO-QA", "Utility"): (36.77, 63.50, 46.57),
}

# Table 3, set part: model -> per dataset (P, R, F1) for pointwise and for listwise-set ("a / b" cells).
_T3 = {
    "ChatGPT": [((22.40, 92.97, 41.00), (57.19, 73.00, 64.14)), ((46.04, 46.07, 46.05), (76.83, 46.54, 57.97)),
                ((25.26, 73.82, 37.64), (36.77, 63.50, 46.57))],
    "LlaMa2-7B": [((18.25, 81.27, 29.80), (15.46, 39.56, 22.23)), ((33.97, 48.59, 39.98), (49.13, 35.83, 41.44)),
                  ((14.41, 89.78, 24.83), (21.84, 41.40, 28.59))],
    "LlaMa2-13B": [((17.69, 36.71, 23.88), (27.56, 38.43, 32.10)), ((26.71, 20.68, 23.31), (61.49, 36.80, 46.04)),
                   ((16.23, 48.40, 24.31), (23.15, 27.45, 25.12))],
    "Vicuna-7B": [((13.39, 100.00, 23.62), (18.67, 45.14, 26.42)), ((37.27, 89.76, 52.67), (44.46, 45.77, 45.10)),
                  ((13.23, 96.87, 23.29), (18.41, 35.27, 24.19))],
    "Vicuna-13B": [((15.02, 86.96, 25.62), (35.24, 66.02, 45.95)), ((36.75, 76.77, 49.70), (60.23, 46.72, 52.62)),
                   ((14.39, 85.91, 24.66), (24.62, 53.84, 33.79))],
}
TABLE3 = {(model, ds, form): cell for model, per_ds in _T3.items() for ds, pair in zip(DATASETS, per_ds)
          for form, cell in zip(("Pointwise", "Listwise-set"), pair)}


def f1_of(p: float, r: float) -> float:
    """Harmonic mean of precision and recall (same scale in and out)."""
    return 2 * p * r / (p + r) if p + r else 0.0


def rounding_tolerance(p: float, r: float, half_unit: float = 0.005) -> float:
    """How far F1 can be from f1_of(p, r) because P, R and F1 were each rounded to two decimals."""
    corners = [f1_of(p + dp, r + dr) for dp in (-half_unit, half_unit) for dr in (-half_unit, half_unit)]
    return max(abs(c - f1_of(p, r)) for c in corners) + half_unit


def paper_check_rows() -> pd.DataFrame:
    """One row per published set-F1 cell: the F1 recomputed from the cell's own P and R."""
    recs = []
    cells = [("Table 2", f"{ds} / {j}", "F1 (listwise-set)", v) for (ds, j), v in TABLE2.items()]
    cells += [("Table 3", model, f"{ds} F1 ({form})", v) for (model, ds, form), v in TABLE3.items()]
    for table, row, column, (p, r, f1) in cells:
        ours, tol = f1_of(p, r), rounding_tolerance(p, r)
        recs.append({"paper": PAPER, "table": table, "row": row, "column": column, "paper_value": f1,
                     "ours": round(ours, 4), "tolerance": round(tol, 4), "match": abs(ours - f1) <= tol})
    return pd.DataFrame(recs)
