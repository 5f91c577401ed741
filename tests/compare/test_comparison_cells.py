"""The comparison table's cells read like a paper's: a percentage in a paper's precision, the paper's
model in a column of its own, a withheld interval marked with the dagger and its reason in the caption;
the terminal table prints the same rounded cells and a short reason."""
import numpy as np
import pandas as pd

from lib.compare import latex
from lib.compare.run_table import text_table
from lib.report.latex_table import to_latex


def _wide() -> pd.DataFrame:
    """comparison.csv's layout with the demo's cells: a set F1 % at n = 30 and at n = 1, a rate."""
    return pd.DataFrame({
        "study": ["utility"] * 3, "notebook": ["09"] * 3,
        "measure": ["set F1 % (marco, relevance prompts)", "set F1 % (nq, utility prompts)", "judge accuracy"],
        "paper_value": [46.87, np.nan, 0.75], "paper_model": ["ChatGPT (gpt-3.5-turbo-1106)", None, "GPT-4"],
        "estimate [SmolLM2]": [96.66666666666667, 100.0, 0.5], "ci_low [SmolLM2]": [83.33, np.nan, 0.314],
        "ci_high [SmolLM2]": [99.409, np.nan, 0.686], "n [SmolLM2]": [30, 1, 24],
        "p_adjusted [SmolLM2]": [np.nan] * 3, "smoke [SmolLM2]": [False, True, True],
        "no_interval [SmolLM2]": [None, "all units equal: no interval (nothing varies between units)", None]})


def _long() -> pd.DataFrame:
    return pd.DataFrame({"study": ["utility"] * 3, "entry": ["SmolLM2"] * 3, "n": [30, 1, 24]})


def test_comparison_cells_in_a_papers_precision_with_the_paper_model_apart():
    table = latex.study_table(_wide(), _long(), "utility")
    assert list(table["SmolLM2"]) == ["96.7 [83.3, 99.4]", "100.0†", "0.500 [0.314, 0.686]"]
    assert list(table["paper"][:1]) == ["46.9"] and table["paper's model"][0] == "ChatGPT (gpt-3.5-turbo-1106)"
    tex = to_latex(table, "comparison_utility", caption=latex.caption("utility", _long()))
    assert "96.667" not in tex and "(ChatGPT" not in tex and "100.0$^\\dagger$" in tex
    assert "$^\\dagger$ no 95\\% interval: all units equal" in tex
    assert "nothing varies" not in tex  # the reason in a few words, no nested parentheses


def test_the_terminal_table_prints_the_same_rounded_cells_and_a_short_reason():
    table = text_table(_wide(), ["SmolLM2"])
    cells = list(table["SmolLM2"])
    assert cells[0] == "96.7 [83.3, 99.4] (n = 30)"
    assert cells[1] == "100.0 (n = 1 smoke; no interval: all units equal)"
    assert cells[2] == "0.500 [0.314, 0.686] (n = 24 smoke)"


def test_the_terminal_lines_are_left_aligned_and_no_wider_than_their_text():
    """pandas right-aligned the cells: a short cell was printed after ~200 spaces."""
    from lib.compare.run_table import text_lines

    table = text_table(_wide(), ["SmolLM2"])
    lines = text_lines(table).splitlines()
    key_width = max(len(k) for k in table.index)
    longest = key_width + 2 + max(len(c) for c in table["SmolLM2"])
    assert max(len(line) for line in lines) == longest
    assert lines[1] == f"{table.index[0]:<{key_width}}  96.7 [83.3, 99.4] (n = 30)"


def test_a_long_measure_name_does_not_push_every_cell_right():
    """One 170-character measure name set the key column's width, so every line of the demo's table
    was ~240 characters wide."""
    from lib.compare.run_table import MAX_KEY_CHARS, text_lines

    wide = _wide()
    wide.loc[2, "measure"] = "judge overall accuracy, paper's category weights " * 4
    lines = text_lines(text_table(wide, ["SmolLM2"])).splitlines()
    short = max(len(k) for k in text_table(wide, ["SmolLM2"]).index if len(k) <= MAX_KEY_CHARS)
    cell = len("100.0 (n = 1 smoke; no interval: all units equal)")
    assert max(len(line) for line in lines if not line.startswith("09 judge")) == short + 2 + cell
    long = next(i for i, line in enumerate(lines) if line.startswith("09 judge"))
    assert lines[long + 1].strip() == "0.500 [0.314, 0.686] (n = 24 smoke)"
