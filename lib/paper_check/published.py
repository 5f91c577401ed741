"""Published cells of the papers, each with its paper, table, row and column, as printed.

Every published number the project checks lives here, and only here. `paper` is the paper file's
stem under shared/papers/. `tolerance` is half a unit of the last printed
digit (a rounded number can differ from ours by that much and still be the same number); a 0/1 cell
(a significance mark) needs equality. Add a study's cells here when its check is written; never
change a value to make a check pass.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Published:
    """One printed number of a paper."""

    paper: str
    table: str
    row: str
    column: str
    value: float
    tolerance: float


def _half_unit(text: str) -> float:
    """Half a unit of the last printed digit of a number written as text ('36.1' -> 0.05)."""
    decimals = len(text.split(".")[1]) if "." in text else 0
    return 0.5 * 10 ** -decimals


def _cells(paper: str, table: str, row: str, values: dict[str, str]) -> list[Published]:
    """Cells of one printed row; values are the numbers as printed, kept as text for their precision."""
    return [Published(paper, table, row, col, float(v), _half_unit(v)) for col, v in values.items()]


def _marks(paper: str, table: str, row: str, values: dict[str, int]) -> list[Published]:
    """0/1 cells (a printed significance mark present or not)."""
    return [Published(paper, table, row, col, float(v), 0.0) for col, v in values.items()]


SP1 = "self-preference-v1"

# v1 Table 1: the ratio of knowledge levels (percent of items), rows dataset x model.
SP1_TABLE1 = [c for row, vals in {
    "NQ / GPT": ("36.7", "19.2", "44.1"), "NQ / LLaMA": ("52.4", "14.7", "32.9"),
    "MARCO / GPT": ("47.8", "19.1", "33.1"), "MARCO / LLaMA": ("56.4", "14.6", "29.0"),
}.items() for c in _cells(SP1, "Table 1", row, dict(zip(("No", "Partial", "Full"), vals)))]

# v1 Table 2: statistics of the constructed datasets (lengths in words, PPL of GPT-2).
_T2 = {
    "NQ+AIGC": {"Avg. Query Length": "9.2", "Avg. Query Length (Std)": "1.7",
                "Human PPL": "36.1", "Human Avg. Doc Length": "100", "Human Avg. Doc Length (Std)": "0",
                "GPT PPL": "24.7", "LLaMA PPL": "19.4",
                "GPT Avg. Doc Length": "114.4", "GPT Avg. Doc Length (Std)": "22.0",
                "LLaMA Avg. Doc Length": "103.9", "LLaMA Avg. Doc Length (Std)": "21.0"},
    "MARCO+AIGC": {"Avg. Query Length": "6.6", "Avg. Query Length (Std)": "2.3",
                   "Human PPL": "29.2", "Human Avg. Doc Length": "68.5", "Human Avg. Doc Length (Std)": "25.6",
                   "GPT PPL": "24.5", "LLaMA PPL": "22.0",
                   "GPT Avg. Doc Length": "70.5", "GPT Avg. Doc Length (Std)": "24.3",
                   "LLaMA Avg. Doc Length": "96.5", "LLaMA Avg. Doc Length (Std)": "33.0"},
}
SP1_TABLE2 = [c for row, vals in _T2.items() for c in
              _cells(SP1, "Table 2", row, vals) + _marks(SP1, "Table 2", row, {"GPT PPL †": 1, "LLaMA PPL †": 1})]

# The utility-judgment paper: Table 2 (ChatGPT, listwise-set) and Table 3's set part, typed from
# shared/papers/utility-judgments.txt as (P, R, F1) per cell. Its set F1 is the harmonic mean of the
# averaged P and R, so each F1 can be recomputed from the same cell's P and R (a consistency check).
UTILITY = "utility-judgments"
UTILITY_DATASETS = ("NQ", "HotpotQA", "MSMARCO-QA")
# Table 2: (dataset, judgment) -> (P, R, F1)
UTILITY_TABLE2 = {
    ("NQ", "Relevance"): (36.65, 73.75, 48.97), ("NQ", "Utility"): (57.19, 73.00, 64.14),
    ("HotpotQA", "Relevance"): (70.02, 47.45, 56.56), ("HotpotQA", "Utility"): (76.83, 46.54, 57.97),
    ("MSMARCO-QA", "Relevance"): (32.80, 85.04, 46.87), ("MSMARCO-QA", "Utility"): (36.77, 63.50, 46.57),
}
# Table 3, set part: model -> per dataset ((P, R, F1) pointwise, (P, R, F1) listwise-set): its "a / b" cells.
_UT3 = {
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
UTILITY_TABLE3 = {(model, ds, form): cell for model, per_ds in _UT3.items()
                  for ds, pair in zip(UTILITY_DATASETS, per_ds)
                  for form, cell in zip(("Pointwise", "Listwise-set"), pair)}


def _utility_cells() -> list[Published]:
    """The utility paper's P, R and F1 cells as Published rows (printed with two decimals)."""
    named = [("Table 2", f"{ds} / {j}", "{m} (listwise-set)", v) for (ds, j), v in UTILITY_TABLE2.items()]
    named += [("Table 3", model, f"{ds} {{m}} ({form})", v) for (model, ds, form), v in UTILITY_TABLE3.items()]
    return [Published(UTILITY, table, row, column.format(m=metric), value, 0.005)
            for table, row, column, triple in named for metric, value in zip(("P", "R", "F1"), triple)]


UTILITY_CELLS = _utility_cells()

PUBLISHED: list[Published] = SP1_TABLE1 + SP1_TABLE2 + UTILITY_CELLS

# v1 Table 2's PPL row per dataset and author, as the release's file names call the datasets.
SP1_PPL_ROWS = {"nq": {"human": 36.1, "gpt": 24.7, "llama": 19.4},
                "marco": {"human": 29.2, "gpt": 24.5, "llama": 22.0}}

# Reference cells for the bias profile (lib/profile): printed numbers of the papers' own models for the
# measures its battery takes, NQ rows. Self-preference v1 (and its alternative extraction, which
# numbers the style tables 7 and 8): gpt-3.5-turbo ("GPT") and LLaMA-2-70B-chat ("LLaMA"), its §3.2.
# v2: gpt-3.5-turbo and LLaMA-3.1-8B-Instruct. Not part of PUBLISHED: no paper check recomputes them.
SP1_ALT = "self-preference-v1-alt-extraction"
SP2 = "self-preference-v2-fact-centric"
PROFILE_REFERENCES: list[Published] = (
    # v1 Table 3, RAG setting: Diff (H - M) of each evaluator against its own passages
    _cells(SP1, "Table 3", "NQ / GPT", {"RAG Diff (H - GPT)": "-0.07"})
    + _cells(SP1, "Table 3", "NQ / LLaMA", {"RAG Diff (H - LLaMA)": "-0.56"})
    # v1 Table 9: front preference, the evaluator's own passage against the human one
    + _cells(SP1, "Table 9", "NQ / GPT / G & H", {"Front Preference": "64.21"})
    + _cells(SP1, "Table 9", "NQ / LLaMA / L & H", {"Front Preference": "56.14"})
    # v1 Table 11: factuality preference on factuality-asymmetric pairs, own vs human passage
    + _cells(SP1, "Table 11", "NQ / GPT / G & H", {"Factuality Pref.": "78.06"})
    + _cells(SP1, "Table 11", "NQ / LLaMA / L & H", {"Factuality Pref.": "76.62"})
    # v1 (alternative extraction) Tables 7 and 8: gen-by-QA and long-passage preference
    + _cells(SP1_ALT, "Table 7", "NQ / GPT", {"Gen-By-QA Pref.": "86"})
    + _cells(SP1_ALT, "Table 7", "NQ / LLaMA", {"Gen-By-QA Pref.": "38"})
    + _cells(SP1_ALT, "Table 8", "NQ / GPT", {"Long Passage Pref.": "52"})
    + _cells(SP1_ALT, "Table 8", "NQ / LLaMA", {"Long Passage Pref.": "43.5"})
    # v2 Table 3: self preference (all orders and factuality combinations), own vs human passage
    + _cells(SP2, "Table 3", "GPT-3.5 / NQ", {"Human (self)": "41"})
    + _cells(SP2, "Table 3", "LLaMA / NQ", {"Human (self)": "47"})
)
