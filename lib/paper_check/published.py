"""Published cells of the papers, each with its paper, table, row and column, as printed.

`paper` is the paper file's stem under shared/papers/. `tolerance` is half a unit of the last printed
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

PUBLISHED: list[Published] = SP1_TABLE1 + SP1_TABLE2

# v1 Table 2's PPL row per dataset and author, as the release's file names call the datasets.
SP1_PPL_ROWS = {"nq": {"human": 36.1, "gpt": 24.7, "llama": 19.4},
                "marco": {"human": 29.2, "gpt": 24.5, "llama": 22.0}}
