"""LaTeX tables compile with a real engine (pdflatex + booktabs) and read like a paper's: every
special character escaped, numbers formatted, NaN as an em-dash, n in the caption, wide frames split."""
import re

import numpy as np
import pandas as pd
import pytest

from lib.report.latex_table import COLUMN_PT, PAGE_PT, escape, format_number, to_latex
from lib.report.outputs import RunOutputs
from tests.latex_check import compile_errors, content_problems, fit_problems, measured_widths, require_engine

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


def _long_text() -> pd.DataFrame:
    """Questions and answers as quickstart_answers has them: text far wider than a column."""
    return pd.DataFrame({"question": ["Which city is the capital of Australia, and when was it chosen as such?"] * 2,
                         "answer": ["Canberra, chosen in 1908 as a compromise between Sydney and Melbourne " * 2] * 2,
                         "n_tokens": [40, 41]})


FRAMES = {"nasty": _nasty, "wide": _wide, "multiindex": _multiindex, "long_text": _long_text}


def _intervals() -> pd.DataFrame:
    """Estimates with their intervals in one cell, a rate and a percentage."""
    return pd.DataFrame({"dataset": ["nq", "marco"], "judge": ["SmolLM2", "Gemma 3"], "n": [40, 38],
                         "self rate": [0.512, 0.4], "self rate_ci_low": [0.41, 0.3], "self rate_ci_high": [0.6, 0.5],
                         "position %": [55.5, 61.0], "position % lo": [40.0, 50.0], "position % hi": [70.25, 72.0]})


def _agreement() -> pd.DataFrame:
    """05_likelihood_agreement: one row, 11 columns, about 600 pt at \\small but 441 pt at \\footnotesize
    with its headers wrapped word by word."""
    return pd.DataFrame({"evaluator": ["smollm2"], "setting": ["rag"], "n_rows": [150], "n_both": [45],
                         "exact_match": [0.844], "exact_ci_low": [0.688], "exact_ci_high": [0.942],
                         "spearman_r": [0.255], "spearman_p": [0.09], "pearson_r": [0.29], "pearson_p": [0.053]})


# short, page-wide, with intervals, every escape, a wrapped header, wrapped long text, footnotesize
WIDTH_FRAMES = {"short": lambda: pd.DataFrame({"model": ["a", "b"], "rate": [0.5, 0.25], "n": [40, 40]}),
                "page": lambda: _wide(12), "intervals": _intervals, "footnote": _agreement, **FRAMES}


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


def test_an_empty_frame_gives_no_table_and_the_notebook_says_so(capsys):
    empty = pd.DataFrame({"a_b": pd.Series([], dtype=float)})
    assert to_latex(empty, "t_empty") is None
    out = RunOutputs("t", "nb")
    (out.figure_dir / "08_style_preferences.tex").write_text("stale")  # an earlier run's table
    out.table(empty, "08_style_preferences")
    assert not (out.figure_dir / "08_style_preferences.tex").exists()
    assert (out.table_dir / "08_style_preferences.csv").exists()  # the CSV keeps the columns
    assert "no rows, so no LaTeX table written" in capsys.readouterr().out
    assert out.not_saved["08_style_preferences"] == "no rows"


def test_widths_fit_what_each_table_declares(tmp_path):
    """Measured by pdflatex: a `table` fits a column (229.5 pt), a `table*` the page (469 pt); the
    estimate that chose the environment errs wide, never narrow."""
    require_engine()
    tables = {name: to_latex(make(), f"t_{name}") for name, make in FRAMES.items()}
    tables["narrow"] = to_latex(pd.DataFrame({"model": ["a", "b"], "rate": [0.5, 0.25], "n": [40, 40]}), "narrow")
    # a wrapped header whose second line starts with "[" (an interval's): not read as \\'s optional argument
    from lib.report.latex_table import _header
    head = _header(r"rate [95\% CI]", 20.0)
    assert r"\\{}[95" in head  # the second line starts with "[" (and no space, which would indent it)
    tables["bracket"] = ("\\begin{table}\n\\caption{x}\n\\begin{tabular}{l}\n\\toprule\n" + head
                         + " \\\\\n\\midrule\n0.5 \\\\\n\\bottomrule\n\\end{tabular}\n\\end{table}\n")
    assert fit_problems(tables, tmp_path) == []
    widths = measured_widths(tables, tmp_path)
    assert set(widths) == set(tables)
    assert r"\begin{table}" in tables["narrow"] and widths["narrow"] <= COLUMN_PT
    assert r"\begin{table*}" in tables["long_text"] and widths["long_text"] <= PAGE_PT
    from lib.report.latex_table import estimated_width
    for name, tex in tables.items():
        if name != "bracket":  # written by hand above, not by to_latex
            assert estimated_width(tex) >= widths[name] - 1, name


def test_the_width_check_can_fail(tmp_path):
    """A table declared for a column that is wider than one is caught, by its measured width and by
    pdflatex's 'Overfull \\hbox' (planted: the long-text table relabelled `table`)."""
    require_engine()
    tex = to_latex(_long_text(), "t").replace("table*", "table")
    problems = fit_problems({"planted": tex}, tmp_path)
    assert "over the column" in problems[0]
    assert any(p.startswith("planted: overfull by") for p in problems)  # pdflatex says so too, in the paper's column


def test_intervals_in_one_cell_no_helper_columns_short_percentages():
    df = pd.DataFrame({"dataset": ["nq", "marco"], "F1": [55.5, 100.0], "F1 lo": [40.0, 100.0], "F1 hi": [70.25, 100.0],
                       "diff_true": [0.1, 0.2], "ci_low_true": [0.0, 0.1], "ci_high_true": [0.3, 0.4],
                       "paper: mean": [3.0, 3.5], "paper: ci_low": [2.5, 3.0], "paper: ci_high": [3.5, 4.0],
                       "style_rate": [0.5, 0.75], "style_ci_low": [0.3, 0.5], "style_ci_high": [0.7, 0.9],
                       "diff_true_fmt": ["+0.10 †", "-0.2"], "accuracy %": [100.0, 50.0], "n": [40, 40]})
    tex = to_latex(df, "06_preferences")
    assert "55.5 [40.0, 70.2] &" in tex or "55.5 [40.0, 70.3] &" in tex
    assert "0.500 [0.300, 0.700]" in tex and "F1 [95\\% CI]" in tex
    assert "0.100 [0.000, 0.300]" in tex and "3.000 [2.500, 3.500]" in tex
    assert "fmt" not in tex and "F1 lo" not in tex and "CI low" not in tex and "ci\\_low" not in tex
    assert "& 100.0 &" in tex and "100.000" not in tex
    assert content_problems("t", tex) == []
    assert r"\caption{Self, first-position and factual preference rates" in tex  # what it is, not its file name
    assert content_problems("bad", "\\caption{x}\\toprule CI low & CI high \\\\ 100.000 fmt") != []


def test_a_rate_with_lo_and_hi_columns_is_one_cell():
    """Utility figures 5 and 6 write "failure rate", "failure lo", "failure hi": one interval cell."""
    df = pd.DataFrame({"position": [1, 3], "n": [12, 12], "failure rate": [100.0, 50.0],
                       "failure lo": [20.655, 10.0], "failure hi": [100.0, 90.0]})
    tex = to_latex(df, "utility_fig5_position")
    assert "100.0 [20.7, 100.0]" in tex and "failure lo" not in tex
    assert content_problems("fig5", tex) == []


def test_a_table_shows_no_interval_the_findings_withhold_and_says_why():
    """The findings' rule in every table: no interval below 10 units (n = 1 here), none of zero width;
    the estimate carries a dagger and the caption gives the reason."""
    df = pd.DataFrame({"position": [1, 3, 5], "n": [1, 12, 12], "failure rate": [100.0, 50.0, 40.0],
                       "failure lo": [20.655, 10.0, 40.0], "failure hi": [100.0, 90.0, 40.0]})
    tex = to_latex(df, "utility_fig5_position")
    assert "[20.7, 100.0]" not in tex and r"100.0$^\dagger$" in tex and "50.0 [10.0, 90.0]" in tex
    assert r"40.0$^\dagger$" in tex  # zero width
    assert "too few units, fewer than 10" in tex and "no spread between units" in tex
    from lib.report.intervals import withhold
    shown = withhold(df)
    assert shown["failure lo"].isna().tolist() == [True, False, True]
    assert shown["no_interval"].tolist() == ["too few units, fewer than 10", "", "no spread between units"]


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
    parts = tex.count(r"\begin{tabular}{")
    assert parts >= 2 and tex.count("dataset & evaluator") == parts and f"(part {parts} of {parts}, key columns repeated)" in tex
    assert tex.count(r"\begin{table*}") == parts  # each part a float of its own
    assert min(line.count("&") for line in tex.splitlines() if line.startswith("NQ &")) >= 3  # no lone column
    assert r"\begin{table*}" in tex
    assert to_latex(_wide(5), "narrow").count(r"\begin{tabular}{") == 1


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
    tex = to_latex(df, "06_undeclared_prefs")
    assert r"\caption{Undeclared prefs. n = 4--6 pairs per row}" in tex
    assert "[-21.341, 32.300]" in tex and content_problems("t", tex) == []


def test_whole_floats_keep_decimals_unless_counts_with_nan():
    """50.0 % stays 50.0 (no NaN: a float quantity); a count column with a NaN is written as integers;
    spec names in cells become short model names."""
    df = pd.DataFrame({"model": ["judge:smollm2;max_tokens:8;retries:0", "implicit:smollm2"],
                       "accuracy": [50.0, 0.0], "n_pairs": [4.0, np.nan]})
    tex = to_latex(df, "t", decimals=1)
    assert r"SmolLM2 judge (8 tokens, 0 retries) & 50.0 & 4 \\" in tex
    assert r"SmolLM2 implicit & 0.0 & --- \\" in tex


def test_the_rule_check_finds_an_interval_shown_below_ten_units():
    """`shown_against_rule`, which the smoke run applies to every table, fails on a planted interval
    at 9 units and passes the same table once withheld."""
    from lib.report.intervals import shown_against_rule, withhold

    df = pd.DataFrame({"dataset": ["nq", "all"], "n_items": [9, 33], "diff": [0.5, 0.04],
                       "diff_ci_low": [0.51, -0.004], "diff_ci_high": [10.0, 0.084]})
    assert shown_against_rule(df) == ["row 0, diff: [0.51, 10] at 9 units"]
    assert shown_against_rule(withhold(df)) == []


def test_a_table_taller_than_a_page_is_split_into_floats_that_fit(tmp_path):
    """120 rows: one float would be 'too large for page' (the check finds it in a planted table);
    the writer splits the rows into floats of a page each, every one with the key columns."""
    from tests.latex_check import require_engine, tall_problems

    require_engine()
    df = pd.DataFrame({"dataset": ["nq"] * 120, "evaluator": ["m"] * 120, "combo": ["TT"] * 120,
                       "method": ["paper (parsed reply)"] * 120, "n": range(10, 130), "rate": np.linspace(0, 1, 120)})
    tex = to_latex(df, "tall")
    assert tex.count("\\begin{table") >= 3 and tex.count("method") == tex.count("\\begin{tabular}")
    assert tall_problems({"tall": tex}, tmp_path / "ok") == []
    one = "\\begin{table}[htbp]\\centering\\caption{x}\\begin{tabular}{l}\\toprule\n" + "row \\\\\n" * 120 + \
          "\\bottomrule\\end{tabular}\\end{table}"
    assert tall_problems({"planted": one}, tmp_path / "bad")[0].startswith("planted: taller than a page by")


def test_a_split_table_repeats_the_column_that_tells_its_rows_apart():
    """06_self_by_combo_by_method: `method` came last, so the split put it in the last part only, and
    parts 1-2 held the paper's and the likelihood's rows for each combination with nothing to tell them apart."""
    wide = {f"count {i}": [i] * 8 for i in range(14)}
    df = pd.DataFrame({"dataset": ["nq"] * 4 + ["marco"] * 4, "combo": ["TT", "TF"] * 4, **wide,
                       "method": (["paper"] * 2 + ["likelihood sum"] * 2) * 2})
    assert_every_part_starts_with(to_latex(df, "split_keys"), "dataset & combo & method")


def assert_every_part_starts_with(tex: str, keys: str) -> None:
    """The table is split, and every part's header begins with the key columns `keys`."""
    parts = tex.split("\\begin{table")[1:]
    assert len(parts) > 1
    for part in parts:
        header = part.split("\\toprule\n")[1].split(" \\\\")[0]
        assert header.startswith(keys), header


def test_a_table_of_mean_plus_minus_sd_cells_says_what_they_are():
    """05_human_vs_self printed '3.55±0.69' with nothing saying that it is a mean and a standard deviation."""
    df = pd.DataFrame({"dataset": ["nq", "marco"], "human true": ["3.55±0.69", "3.73±0.90"], "n": [12, 11]})
    assert "x $\\pm$ y: mean $\\pm$ standard deviation" in to_latex(df, "pm")
    assert "standard deviation" not in to_latex(df.assign(**{"human true": [3.5, 3.7]}), "no_pm")


def _width_errors(workdir) -> dict[str, float]:
    """{table: (estimated width - the width pdflatex sets) / the width pdflatex sets}, each table's
    widest tabular typeset at its own size in the two-column document."""
    from lib.report.latex_table import estimated_width

    tables = {name: to_latex(make(), f"t_{name}") for name, make in WIDTH_FRAMES.items()}
    real = measured_widths(tables, workdir)
    return {name: round((estimated_width(tex) - real[name]) / real[name], 4) for name, tex in tables.items()}


def _fits(errors: dict[str, float]) -> bool:
    """Every estimate within 3 % over and 1.5 % under what pdflatex sets (the measured estimate is within
    1 %; a 10 pt font errs 5-9 % wide, cmr10's proportions 2 % narrow, so a 10 % bound would pass both)."""
    return all(-0.015 <= e <= 0.03 for e in errors.values())


def test_the_estimated_width_is_what_pdflatex_sets(tmp_path):
    """The width measured with Computer Modern's glyphs is pdflatex's to a few pt, for tables short,
    page-wide, split, with intervals, escapes and wrapped text."""
    require_engine()
    errors = _width_errors(tmp_path)
    assert _fits(errors), errors


def _per_character_guess(text, size_pt=None, font="small") -> float:
    """The estimate before widths were measured: a constant per kind of character, rounded up."""
    import re
    plain = re.sub(r"\\[a-zA-Z]+\{\}|\\[a-zA-Z]+|\\.", "x", str(text)).replace("{", "").replace("}", "").replace("$", "")
    return sum(8.5 if ch in "MWmw@%" else 6.9 if ch.isupper() else 4.5 if ch.isdigit() or ch in ".,;:!?'`()[]-+/*="
               else 3.1 if ch == " " else 4.7 for ch in plain)


@pytest.mark.parametrize("plant", ["per-character constants", "10 pt instead of 9", "cmr10 scaled, not cmr9"])
def test_the_width_comparison_can_fail(plant, tmp_path, monkeypatch):
    """Planted: the old per-character estimate (up to 11 % wide), the wrong font size, and the
    cmr10 glyphs without cmr9's wider proportions (2 % narrow) each miss pdflatex's widths."""
    from lib.report import latex_table

    require_engine()
    if plant == "per-character constants":
        monkeypatch.setattr(latex_table, "text_width_pt", _per_character_guess)
    elif plant == "10 pt instead of 9":
        monkeypatch.setattr(latex_table, "SMALL_PT", 10.0)
    else:
        monkeypatch.setattr(latex_table, "OPTICAL_SIZE", 1.0)
    assert not _fits(_width_errors(tmp_path))


def test_cmr9_is_wider_than_cmr10_by_the_factor_used():
    """OPTICAL_SIZE is what the fonts' own metrics say: cmr9's widths over 0.9 x cmr10's (TFM files
    read with tftopl; skipped without a TeX installation)."""
    import re
    import shutil
    import subprocess
    from lib.report.latex_table import OPTICAL_SIZE

    if not (shutil.which("tftopl") and shutil.which("kpsewhich")):
        pytest.skip("no tftopl / kpsewhich (TeX's font tools)")

    def widths(font: str) -> dict[str, float]:
        tfm = subprocess.run(["kpsewhich", f"{font}.tfm"], capture_output=True, text=True).stdout.strip()
        pl = subprocess.run(["tftopl", tfm], capture_output=True, text=True).stdout
        design = float(re.search(r"DESIGNSIZE R ([\d.]+)", pl).group(1))
        return {c: float(w) * design for c, w in re.findall(r"\(CHARACTER C (\w)\n\s+\(CHARWD R ([\d.]+)\)", pl)}

    nine, ten = widths("cmr9"), widths("cmr10")
    ratios = [nine[c] / (0.9 * ten[c]) for c in nine if c in ten]
    assert len(ratios) > 50 and all(abs(r - OPTICAL_SIZE) < 0.003 for r in ratios), (min(ratios), max(ratios))


def _pdflatex_lines(cells: list[str], workdir) -> list[int]:
    """How many lines pdflatex sets each text in, at \\small in a 120 pt p{} column (its height over
    the 11 pt baseline skip, struts on the first and last line)."""
    import re
    import subprocess
    from lib.report.latex_table import WRAP_PT
    from tests.latex_check import DOCUMENT, engine

    body = "\n".join("{\\small\\setbox0\\vbox{\\hsize=%gpt\\noindent\\strut %s\\strut}\\dimen0=\\ht0"
                     "\\advance\\dimen0\\dp0\\typeout{LINES %d \\the\\dimen0}}" % (WRAP_PT, c, i) for i, c in enumerate(cells))
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "lines.tex").write_text(DOCUMENT % (body + "\nx"))
    out = subprocess.run([engine(), "-interaction=nonstopmode", "lines.tex"], cwd=workdir, capture_output=True, text=True).stdout
    found = {int(i): round(float(h) / 11.0) for i, h in re.findall(r"LINES (\d+) ([\d.]+)pt", out)}
    return [found[i] for i in range(len(cells))]


def test_wrapped_text_takes_no_fewer_lines_than_pdflatex_sets(tmp_path):
    """A row's height counts the lines of its wrapped text word by word: never fewer than pdflatex
    sets (fewer would let a float grow taller than a page); the old rule, a line per 120 pt of text,
    counts fewer (planted)."""
    import math
    from lib.report.latex_table import WRAP_PT, _wrapped_lines, text_width_pt

    require_engine()
    words = "Canberra was chosen in 1908 as a compromise between Sydney and Melbourne, the two largest cities".split()
    cells = [escape(" ".join(words[i:] + words[:i]) * k) for i in range(0, 14, 3) for k in (1, 2, 3)]
    real = _pdflatex_lines(cells, tmp_path)
    counted = [len(_wrapped_lines(c, WRAP_PT)) for c in cells]
    assert all(r <= c <= r + 1 for r, c in zip(real, counted)), list(zip(real, counted))
    per_width = [math.ceil(text_width_pt(c) / WRAP_PT) for c in cells]
    assert any(p < r for p, r in zip(per_width, real))


def test_the_widths_written_for_are_the_two_column_articles(tmp_path):
    """COLUMN_PT and PAGE_PT are what pdflatex sets as \\columnwidth and \\textwidth in the check's
    document (LaTeX's 10 pt two-column article): tables written for wider ones overflow it."""
    import subprocess

    from tests.latex_check import DOCUMENT

    engine = require_engine()
    (tmp_path / "w.tex").write_text(DOCUMENT % "\\typeout{COLUMN \\the\\columnwidth PAGE \\the\\textwidth}x")
    run = subprocess.run([engine, "-interaction=nonstopmode", "w.tex"], cwd=tmp_path, capture_output=True, text=True)
    column, page = map(float, re.search(r"COLUMN ([\d.]+)pt ?PAGE ([\d.]+)pt", run.stdout).groups())
    assert (column, page) == (COLUMN_PT, PAGE_PT)


def _methods_frame() -> pd.DataFrame:
    """05_human_minus_self_methods' shape: names, mean ± sd text cells, counts, differences and their
    intervals, a pre-formatted `*_fmt` and a `*_ci_note` text column, and `method` written last."""
    rows = 12
    df = pd.DataFrame({"dataset": (["nq", "marco", "trivia"] * 4), "evaluator": ["smollm2"] * rows,
                       "setting": ["rag"] * rows, "human_true": ["3.00±0.00"] * rows, "self_true": ["2.33±1.15"] * rows})
    for side in ("true", "false"):
        df[f"n_{side}"] = [14] * rows
        df[f"diff_{side}"] = np.linspace(-0.2, 0.3, rows)
        df[f"p_{side}"] = [0.336] * rows
        df[f"ci_low_{side}"] = df[f"diff_{side}"] - 0.5
        df[f"ci_high_{side}"] = df[f"diff_{side}"] + 0.5
        df[f"diff_{side}_fmt"] = ["0.286 [-0.332, 0.903]"] * rows
        df[f"{side}_ci_note"] = ["bootstrap"] * 6 + ["t"] * 6
        for i in range(4):
            df[f"extra {side} count {i}"] = [100000 + i] * rows
    df["method"] = ["paper (parsed reply)"] * 3 + ["next-token argmax"] * 3 + ["expected score"] * 3 + ["paper"] * 3
    return df


def test_every_part_of_a_split_table_has_the_name_columns_and_not_value_text():
    """05_human_minus_self_methods / 06_preferences_by_method split into 4 parts with `method` in part
    4 only: the leading `3.00±0.00` value columns took the key places (05), and working `*_ci_note`
    columns took them and were then dropped (06). Every part must show dataset .. method."""
    from lib.report.latex_table import _key_columns

    df = _methods_frame()
    assert _key_columns(df) == ["dataset", "evaluator", "setting", "method"]
    assert _key_columns(df.drop(columns=["human_true", "self_true"])) == ["dataset", "evaluator", "setting", "method"]
    assert_every_part_starts_with(to_latex(df, "methods"), "dataset & evaluator & setting & method &")


def test_intervals_of_colon_named_estimates_follow_the_rule():
    """05_likelihood_vs_paper printed '2.333 [-0.535, 5.202]' at 3 units and '3.000 [3.000, 3.000]':
    its counts are named 'paper (parsed reply): n' beside 'paper (parsed reply): mean', which
    `unit_count` did not look for, so no interval was withheld."""
    from lib.report.intervals import shown_against_rule

    df = pd.DataFrame({"dataset": ["nq", "marco", "trivia"],
                       "paper (parsed reply): n": [7, 3, 14], "paper (parsed reply): mean": [3.0, 2.333, 2.5],
                       "paper (parsed reply): ci_low": [3.0, -0.535, 2.1], "paper (parsed reply): ci_high": [3.0, 5.202, 2.9],
                       "argmax: n": [14, 14, 14], "argmax: mean": [2.57, 2.0, 2.8],
                       "argmax: ci_low": [2.08, 1.5, 2.8], "argmax: ci_high": [3.06, 2.5, 2.8]})
    assert len(shown_against_rule(df)) == 3  # two rows below 10 units, one zero-width at 14
    tex = to_latex(df, "vs_paper")
    assert "[3.000, 3.000]" not in tex and "[-0.535, 5.202]" not in tex and "[2.800, 2.800]" not in tex
    assert "2.333$^\\dagger$" in tex and "[2.100, 2.900]" in tex
    assert "no 95\\% interval: too few units, fewer than 10; no spread between units" in tex
    # zero width is withheld where nothing counts the units, too
    bare = pd.DataFrame({"x": ["a", "b"], "rate": [0.5, 1.0], "rate_ci_low": [0.2, 1.0], "rate_ci_high": [0.8, 1.0]})
    assert shown_against_rule(bare) == ["row 1, rate: [1, 1] at None units"]
    assert "[1.000, 1.000]" not in to_latex(bare, "bare") and "[0.200, 0.800]" in to_latex(bare, "bare")


def _cells_frame() -> pd.DataFrame:
    """05_pointwise_cells' shape: names, a yes/no `factuality`, `author` and `false_by` that tell rows
    apart only together, float counts without NaN, and enough columns to split."""
    df = pd.DataFrame({"dataset": ["nq"] * 4, "evaluator": ["smollm2"] * 4, "setting": ["rag"] * 4,
                       "factuality": [True, True, False, False], "author": ["human", "smollm2"] * 2,
                       "false_by": [None, None, "ours", "ours"], "n": [14.0, 14.0, 9.0, 9.0],
                       "n_parsed": [7.0, 5.0, 6.0, 3.0]})
    for i in range(8):
        df[f"mean reply token expected {i}"] = [3.5, 3.2, 3.1, 3.0]
    return df


def test_a_split_table_repeats_every_name_that_tells_rows_apart():
    """05_pointwise_cells: `author` alone left rows alike and was not taken, and the yes/no
    `factuality` could not be a key, so its later parts showed 'NQ & SmolLM2 & RAG prompt' four times."""
    from lib.report.latex_table import _key_columns

    assert _key_columns(_cells_frame()) == ["dataset", "evaluator", "setting", "factuality", "author"]
    tex = to_latex(_cells_frame(), "cells")
    bodies = [part.split("\\midrule\n")[1].split("\\bottomrule")[0] for part in tex.split("\\begin{table")[1:]]
    assert len(bodies) > 1
    for body in bodies:
        lines = body.strip().splitlines()
        assert len({line.split(" & ")[:5].__str__() for line in lines}) == len(lines), body


def test_counts_print_as_integers_p_values_keep_decimals_and_dashes_are_em_dashes():
    """05_pointwise_cells printed counts read from a CSV as '14.0' and '7.000'; 06_preferences_by_method
    printed a p-value column of ones as '1' beside '1.000'; '-' cells printed as a hyphen, not '---'."""
    tex = to_latex(_cells_frame(), "cells")
    assert "& 14 & 7 &" in tex and "14.0" not in tex and "7.000" not in tex
    p = pd.DataFrame({"dataset": ["nq", "marco", "all"], "self_p": [1.0, 1.0, np.nan], "fact_p": [1.0, 0.375, np.nan],
                      "self_k": [14.0, 8.0, np.nan], "cell": ["- / - / - (n=0)", "-", "3.00 / -"]})
    tex = to_latex(p, "p")
    assert r"NQ & 1.000 & 1.000 & 14 & --- / --- / --- (n=0) \\" in tex
    assert r"MS MARCO & 1.000 & 0.375 & 8 & --- \\" in tex and r"3.00 / --- \\" in tex
    assert "a - b" in to_latex(pd.DataFrame({"x": ["a - b"]}), "prose")  # a hyphen in prose stays


def test_a_table_that_fits_the_page_at_footnotesize_is_one_table_not_parts():
    """05_likelihood_agreement (one row) was split into 2 parts at \\small; at \\footnotesize with
    headers wrapped to their longest word it fits the page (pdflatex's widths: the width tests)."""
    tex = to_latex(_agreement(), "agreement")
    assert tex.count("\\begin{tabular}{") == 1 and "\\footnotesize" in tex and "part 1" not in tex
    assert to_latex(_wide(33), "wide").count("\\begin{tabular}{") > 1  # far wider than the page: still parts
    assert "\\small" in to_latex(_wide(5), "narrow")  # a table that fits at \\small stays \\small


def test_a_run_together_reply_and_key_columns_wider_than_the_page_still_fit(tmp_path):
    """04's example answers hold a reply with no spaces ("avesitlionSt.TomRepublicsBlackRock...") that
    TeX cannot break in its p{} column (25 pt overfull); 16's paper-check differences have five key
    columns wider than the page at \\small (35 pt overfull). Both compile with no overfull box."""
    require_engine()
    reply = "avesitlionSt.TomRepublicsBlackRocktheNationalparkofthe" * 2
    answers = pd.DataFrame({"question": ["who founded the city on the bay"] * 2, "model": ["smollm2"] * 2,
                            "answer": [reply, "a short answer"], "correct": [False, True]})
    checks = pd.DataFrame({"paper": ["utility-judgments", "self-preference-v1", "rag-rewardbench"],
                           "table": ["Table 2", "Table 9", "Table 3"],
                           "row": ["MSMARCO-QA / Relevance", "NQ / GPT / G & H, Front Preference", "Overall"],
                           "column": ["F1 (listwise-set)", "LLaMA-2-70B-chat (v1)", "accuracy (both orders)"],
                           "kind": ["consistency", "reproduction", "consistency"], "paper_value": [46.87, 64.0, 0.78],
                           "ours": [47.34, 63.2, 0.79], "tolerance": [0.011, 0.5, 0.01], "match": [False, True, True],
                           "note": ["2PR/(P+R) of the printed P = 32.8, R = 85.04", "", "weighted by category"],
                           "diff": [0.47, -0.8, 0.01]})
    tables = {"answers": to_latex(answers, "example_answers"), "checks": to_latex(checks, "paper_check_differences")}
    assert fit_problems(tables, tmp_path) == []


def test_a_table_with_no_estimate_in_any_row_gets_no_latex(capsys):
    """The demo wrote 06_v1_table9_front, 07_extreme_cases and 06_table3 as tables of dashes: the
    paper's parser read no reply, so every rate was empty and only counts of failures were left."""
    from lib.report.latex_table import carries_no_estimate

    rates = pd.DataFrame({"dataset": ["nq", "marco"], "n_pairs": [56, 56], "n_unparsed": [56, 32],
                          "order_n_items": [0, 0], "order_rate": [np.nan, np.nan],
                          "order_ci_low": [np.nan, np.nan], "order_ci_high": [np.nan, np.nan]})
    cells = pd.DataFrame({"evaluator": ["m", "Average"], "dataset": ["nq", ""],  # 06_table3's Average row
                          "human": ["- / - / - (n=0)", "- / - / -"], "pooled": ["- / - / - (n=0)", np.nan]})
    assert carries_no_estimate(rates) and carries_no_estimate(cells)
    # one value anywhere is a table: a rate, or a cell that is not a placeholder
    assert not carries_no_estimate(rates.assign(order_rate=[np.nan, 0.5]))
    assert not carries_no_estimate(cells.assign(human=["0.50 / 0.40 / 0.60 (n=12)", "- / - / -"]))
    # 18's content-free priors: a text column of lists beside names is a table (the demo's run stopped here)
    priors = pd.DataFrame({"model": ["m", "j"], "kind": ["pointwise", "judge"], "prior": [[0.5, 0.5], [0.9, 0.1]]})
    assert not carries_no_estimate(priors)
    out = RunOutputs("t", "nb")
    (out.figure_dir / "06_v1_table9_front.tex").write_text("stale")
    out.table(rates, "06_v1_table9_front")
    assert not (out.figure_dir / "06_v1_table9_front.tex").exists()
    assert (out.table_dir / "06_v1_table9_front.csv").exists()
    assert out.not_saved["06_v1_table9_front"] == "no estimate in any row"
    assert "no estimate in any row, so no LaTeX table written" in capsys.readouterr().out
    out.table(rates.assign(order_rate=[np.nan, 0.5]), "06_v1_table9_front")
    assert (out.figure_dir / "06_v1_table9_front.tex").exists()


def test_a_table_of_method_blocks_states_its_n():
    """05_likelihood_vs_paper's caption had no n: its counts are 'paper (parsed reply): n' and the like."""
    from lib.report.latex_table import n_text

    df = pd.DataFrame({"dataset": ["nq", "marco"], "paper (parsed reply): n": [7, 1],
                       "paper (parsed reply): mean": [3.0, 2.0], "next-token argmax after ###: n": [14, 10],
                       "next-token argmax after ###: mean": [2.5, 2.6]})
    assert n_text(df) == "n = 1--14 per row and method"
    assert "n = 1--14 per row and method" in to_latex(df, "05_likelihood_vs_paper")
    assert n_text(df.drop(columns=["paper (parsed reply): n", "next-token argmax after ###: n"])) == ""
