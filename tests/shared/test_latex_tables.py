"""LaTeX tables compile with a real engine (pdflatex + booktabs) and read like a paper's: every
special character escaped, numbers formatted, NaN as an em-dash, n in the caption, wide frames split."""
import numpy as np
import pandas as pd
import pytest

from lib.report.latex_table import MAX_COLUMNS, escape, format_number, to_latex
from lib.report.outputs import RunOutputs
from tests.latex_check import compile_errors, content_problems, require_engine

SPECIALS = "a_b & 50% #1 $x$ {y} ~z ^w \\ <> |"


def _nasty() -> pd.DataFrame:
    """A frame with every escape, NaN cells, floats of 12 digits, unicode, and an index."""
    df = pd.DataFrame({"model_name": [SPECIALS, "café naïve ≥ 3 × 2 — “quoted” → ok", "中文 κ"],
                       "n": [3, 4, np.nan], "rate_%": [0.123456789012, np.nan, 1e-9],
                       "ok": [True, False, True], "key": [("smollm2", "rag"), ("a", "b"), None]})
    return df.set_index("model_name")


def _wide(n_cols: int = 33) -> pd.DataFrame:
    df = pd.DataFrame({"dataset": ["nq", "marco"], "evaluator": ["smollm2", "gemma3"], "n": [12, 14]})
    for i in range(n_cols - 3):
        df[f"metric_{i}"] = [i / 3, i / 7]
    return df


def _multiindex() -> pd.DataFrame:
    df = pd.DataFrame({"dataset": ["nq", "nq", "marco"], "author": ["human", "smollm2", "human"],
                       "setting": ["rag", "rag", "normal"], "score": [3.2, 2.8, 4.0], "n": [5, 5, 6]})
    return df.pivot_table(index=["dataset", "author"], columns="setting", values=["score", "n"])


FRAMES = {"nasty": _nasty, "wide": _wide, "multiindex": _multiindex,
          "empty": lambda: pd.DataFrame({"a_b": pd.Series([], dtype=float)})}


def test_escape_covers_every_special():
    text = escape(SPECIALS)
    for raw, done in [("_", r"\_"), ("&", r"\&"), ("%", r"\%"), ("#", r"\#"), ("$", r"\$"), ("{", r"\{"),
                      ("~", r"\textasciitilde{}"), ("^", r"\textasciicircum{}"), ("\\", r"\textbackslash{}")]:
        assert done in text, raw
    assert escape("café") == r"caf\'{e}" and escape("≥") == r"$\geq$"


def test_numbers_are_short():
    assert format_number(0.123456789012) == "0.123"
    assert format_number(1e-9) == "1.0e-09"  # a tiny p-value is not printed as 0.000
    assert format_number(np.int64(12)) == "12" and format_number(0.5, 1) == "0.5"


@pytest.mark.parametrize("name", FRAMES)
def test_tables_compile(name, tmp_path):
    require_engine()
    tex = to_latex(FRAMES[name](), f"t_{name}")
    assert content_problems(name, tex) == []
    assert compile_errors({name: tex}, tmp_path) == {}


def test_unescaped_table_does_not_compile(tmp_path):
    """The check can fail: pandas' own LaTeX of the same frame (no escaping) is rejected."""
    require_engine()
    raw = _nasty().to_latex()
    assert content_problems("raw", raw)  # its 12-digit float and NaN are caught without an engine
    assert "raw" in compile_errors({"raw": raw}, tmp_path)


def test_nan_counts_and_caption():
    tex = to_latex(_nasty(), "t", caption="Ratings by model")
    assert "---" in tex and "nan" not in tex.lower()
    assert r"\caption{Ratings by model. n = 3--4 per row}" in tex
    assert "& 3 &" in tex  # a count column with a NaN is still written as integers
    assert "n =" not in to_latex(pd.DataFrame({"x": [0.5]}), "t")  # no n column, no n claimed


def test_wide_frame_is_split_with_keys_repeated():
    tex = to_latex(_wide(33), "wide")
    parts = tex.count(r"\begin{tabular}")
    assert parts == -(-31 // (MAX_COLUMNS - 2))  # n + 30 metrics, the 2 key columns in every part
    assert tex.count("dataset & evaluator") == parts and f"({parts} parts" in tex
    assert min(line.count("&") for line in tex.splitlines() if line.startswith("NQ &")) >= 3  # no lone column
    assert all(line.count("&") < MAX_COLUMNS for line in tex.splitlines())
    assert to_latex(_wide(6), "narrow").count(r"\begin{tabular}") == 1


def test_chosen_columns_and_unknown_column(tmp_path):
    out = RunOutputs("t", "nb")
    out.table(_wide(33), "chosen", latex_columns=["dataset", "n", "metric_3"])
    tex = (out.figure_dir / "chosen.tex").read_text()
    assert "metric 3" in tex and "metric 4" not in tex and r"n = 12--14" in tex
    assert len(pd.read_csv(out.table_dir / "chosen.csv").columns) == 33  # the CSV keeps every column
    with pytest.raises(KeyError, match="metric_99"):
        out.table(_wide(5), "bad", latex_columns=["metric_99"])


def test_interval_cells_and_caption_from_an_n_column():
    """pingouin's CI95 arrays are written as short pairs; an `n_pairs` column gives the caption's n."""
    df = pd.DataFrame({"dataset": ["nq", "nq"], "n_pairs": [4, 6],
                       "CI95": [np.array([-21.3412345, 32.3]), np.array([0.1, 0.2])]})
    tex = to_latex(df, "06_preferences")
    assert r"\caption{Preferences. n = 4--6 pairs per row}" in tex
    assert "[-21.341, 32.300]" in tex and content_problems("t", tex) == []


def test_whole_floats_keep_decimals_unless_counts_with_nan():
    """50.0 % stays 50.0 (no NaN: a float quantity); a count column with a NaN is written as integers;
    spec names in cells become short model names."""
    df = pd.DataFrame({"model": ["judge:smollm2;max_tokens:8;retries:0", "implicit:smollm2"],
                       "accuracy": [50.0, 0.0], "n_pairs": [4.0, np.nan]})
    tex = to_latex(df, "t", decimals=1)
    assert r"SmolLM2 judge (8 tokens, 0 retries) & 50.0 & 4 \\" in tex
    assert r"SmolLM2 implicit & 0.0 & --- \\" in tex
