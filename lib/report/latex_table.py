"""LaTeX tables that compile and fit a two-column paper: escaped text, booktabs rules, formatted
numbers, estimates with their intervals in one cell, a caption that says what the table shows and its
n; a `table` when the width fits a column (229.5 pt), a `table*` when it fits the page (469 pt), and frames
wider than the page split into several tabulars that share their key columns.

Our code formats and escapes the cells and lays out the columns; pandas' `Styler.to_latex` writes the
booktabs tabular. Widths are measured, not guessed: each cell's text with Computer Modern's glyph
widths (matplotlib's cmr10.ttf) at \\small, 9 pt in a 10 pt article. A table longer or wider than a
page is split into floats of its own, not set as a `longtable`: longtable does not work in a
`twocolumn` article ("longtable not in 1-column mode"), which the tables are for."""
from __future__ import annotations

import math
import numbers
import re
import unicodedata
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from . import intervals
from .labels import humanize, label

# Text columns repeated in every part of a split table, so each part can be read on its own.
MAX_KEY_COLUMNS = 5
MISSING = "---"  # an em-dash in LaTeX: a cell with no value (NaN, None)
WITHHELD = "†"  # after an estimate whose interval is withheld; the caption says why
PREAMBLE = "% needs \\usepackage{booktabs} in the document's preamble\n"

_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
            "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
            "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}"}
# Non-ASCII symbols that turn up in result tables; pdflatex rejects those it has no definition for.
_UNICODE = {"≥": r"$\geq$", "≤": r"$\leq$", "×": r"$\times$", "±": r"$\pm$", "−": "-", "→": r"$\rightarrow$",
            "←": r"$\leftarrow$", "≈": r"$\approx$", "≠": r"$\neq$", "…": r"\ldots{}", "–": "--", "—": "---",
            "‘": "`", "’": "'", "“": "``", "”": "''", "·": r"$\cdot$", "°": r"$^\circ$", "µ": r"$\mu$",
            "α": r"$\alpha$", "β": r"$\beta$", "κ": r"$\kappa$", "ρ": r"$\rho$", "τ": r"$\tau$", "Δ": r"$\Delta$",
            "\u00a0": "~", "†": r"$^\dagger$"}
# Combining accents after NFD decomposition -> LaTeX accent commands (é -> \'{e})
_ACCENTS = {"\u0301": "'", "\u0300": "`", "\u0302": "^", "\u0308": '"', "\u0303": "~", "\u0304": "=",
            "\u0327": "c", "\u030c": "v", "\u0306": "u", "\u030a": "r", "\u030b": "H", "\u0328": "k"}


def escape(text) -> str:
    """Text as LaTeX source that pdflatex typesets literally (specials escaped, non-ASCII mapped)."""
    out = []
    for ch in unicodedata.normalize("NFD", str(text)):
        if ch in _SPECIAL:
            out.append(_SPECIAL[ch])
        elif ch in ("\n", "\r", "\t"):
            out.append(" ")
        elif ch.isascii():
            out.append(ch)
        elif ch in _ACCENTS and out:
            out[-1] = f"\\{_ACCENTS[ch]}{{{out[-1]}}}"
        elif unicodedata.normalize("NFC", ch) in _UNICODE:
            out.append(_UNICODE[unicodedata.normalize("NFC", ch)])
        else:
            # a character pdflatex cannot set without extra packages: name it instead of failing
            out.append("?")
    return "".join(out)


def _is_missing(value) -> bool:
    return value is None or value is pd.NA or value is pd.NaT or (isinstance(value, float) and math.isnan(value))


def format_number(value, decimals: int = 3) -> str:
    """A number as a short readable string: integers as integers, floats with `decimals` places,
    tiny non-zero values (p-values) in scientific notation instead of 0.000."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    value = float(value)
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value != 0 and abs(value) < 0.5 * 10 ** -decimals:
        return f"{value:.1e}"
    return f"{value:.{decimals}f}"


def interval_text(estimate, low, high, decimals: int = 3) -> str:
    """'0.512 [0.410, 0.600]': an estimate with its interval in one cell ('0.512' without one, '---'
    without an estimate)."""
    if _is_missing(estimate) or pd.isna(estimate):
        return MISSING
    text = format_number(float(estimate), decimals)
    if _is_missing(low) or _is_missing(high) or pd.isna(low) or pd.isna(high):
        return text
    return f"{text} [{format_number(float(low), decimals)}, {format_number(float(high), decimals)}]"


def _format_column(col: pd.Series, decimals: int) -> list[str]:
    """Cells of one column as LaTeX text. A float column with a NaN whose other values are all whole
    numbers holds counts that pandas made floats, and is written as integers; a float column
    without NaN keeps its decimals (50.0 % stays 50.0). Machine names in text cells become labels."""
    values = list(col)
    numeric = [v for v in values if isinstance(v, numbers.Number) and not _is_missing(v)]
    integral = bool(numeric) and all(float(v).is_integer() and abs(v) < 1e15 for v in numeric)
    # a count (n, n_parsed, k) that pandas read as floats is written as integers (14, not 14.0), and a
    # p-value or rate whose values happen to be whole keeps its decimals (1.000 beside 0.375, not 1)
    whole = integral and not STATISTIC.search(str(col.name)) and (
        COUNT.search(str(col.name)) is not None or any(_is_missing(v) for v in values))
    cells = []
    for v in values:
        if _is_missing(v):
            cells.append(MISSING)
        elif isinstance(v, (bool, np.bool_)):
            cells.append(format_number(bool(v)))
        elif isinstance(v, numbers.Number):
            cells.append(format_number(int(v) if whole else v, decimals))
        elif isinstance(v, tuple):
            cells.append(escape(label(v)))
        elif isinstance(v, (list, np.ndarray)) and all(isinstance(x, numbers.Number) for x in v):
            cells.append("[" + ", ".join(format_number(x, decimals) for x in v) + "]")  # e.g. a CI pair
        elif DASHES.match(str(v)):
            # '-' for a missing value, alone or in a composite cell ('- / - / - (n=0)'), as the em-dash
            # every other table prints
            cells.append(escape(re.sub(r"(?<![\w.])-(?![\w.])", "—", str(v))))
        else:
            cells.append(escape(humanize(str(v))))
    return cells


# column names of counts, and of statistics that are never counts even when their values are whole
COUNT = re.compile(r"^(n|k|count|dof|df|questions|items|pairs)$|^n[_ ]|[_ ](n|k|count|n[_ ]items)$", re.I)
STATISTIC = re.compile(r"(^|[_ ])(p|rate|mean|share|accuracy|diff|score|r|sd|ci|low|high|lo|hi)($|[_ ])|%", re.I)
# a cell of '-' placeholders between numbers and separators: '-', '- / - / - (n=0)', '3.00 / -'
DASHES = re.compile(r"^(?=.*(^|[\s/(])-($|[\s/)]))[\s\d.,/()=n±%-]*$")


def _flat(df: pd.DataFrame) -> pd.DataFrame:
    """Index levels become ordinary columns; tuple (MultiIndex) column names become one string."""
    if not isinstance(df.index, pd.RangeIndex):
        df = df.reset_index()
    df = df.copy()
    df.columns = [" ".join(str(p) for p in c if str(p) != "") if isinstance(c, tuple) else str(c)
                  for c in df.columns]
    return df


def _n_column(df: pd.DataFrame) -> str | None:
    """The column that states n: `n` itself, else the first integer `n_...` column."""
    for c in df.columns:
        if c == "n" or (c.startswith("n_") and pd.api.types.is_numeric_dtype(df[c])):
            values = pd.to_numeric(df[c], errors="coerce").dropna()
            if len(values) and (values % 1 == 0).all():
                return c
    return None


def _method_n_text(df: pd.DataFrame) -> str:
    """'n = 1--14 per row and method' from the counts of a table with one block of columns per method
    ('paper (parsed reply): n', 'next-token argmax after ###: n'), or '' when it has none."""
    cols = [c for c in df.columns if str(c).endswith(": n") and pd.api.types.is_numeric_dtype(df[c])]
    values = pd.concat([pd.to_numeric(df[c], errors="coerce") for c in cols]).dropna() if cols else pd.Series(dtype=float)
    if not len(values) or not (values % 1 == 0).all():
        return ""
    values = values.astype(int)
    if values.nunique() == 1:
        return f"n = {values.iloc[0]} per row and method"
    return f"n = {values.min()}--{values.max()} per row and method"


def n_text(df: pd.DataFrame) -> str:
    """'n = 12' (one value), 'n = 3--14 pairs per row' (several, from an `n_pairs` column), or ''
    when the frame states no n."""
    col = _n_column(df)
    if col is None:
        return _method_n_text(df)
    values = pd.to_numeric(df[col], errors="coerce").dropna().astype(int)
    what = "" if col == "n" else " " + escape(label(col.removeprefix("n_")))
    if values.nunique() == 1:
        return f"n = {values.iloc[0]}{what}"
    return f"n = {values.min()}--{values.max()}{what} per row"


# a text cell that holds a value, not a name: '3.00±0.00', '0.512 [0.410, 0.600]', '12', '55.5 %'
_VALUE_TEXT = re.compile(r"^\s*[-+]?(\d[\d.,]*|\.\d+)([eE][-+]?\d+)?\s*(±\s*[-+]?[\d.]+([eE][-+]?\d+)?)?\s*%?"
                         r"\s*(\[[^\]]*\])?\s*$")


def _is_key_text(col: pd.Series) -> bool:
    """A text column that names what a row is (dataset, method), not one of values written as text
    ('3.00±0.00' of `fmt_mean_sd`) or a working column the reader does not see."""
    if pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
        return False
    if HELPER.search(str(col.name)) or col.name == intervals.REASON:
        return False
    cells = [str(v) for v in col if not _is_missing(v)]
    return not (cells and all(_VALUE_TEXT.match(v) for v in cells))


def _key_columns(df: pd.DataFrame) -> list[str]:
    """Leading name columns (dataset, model, setting ...; at most MAX_KEY_COLUMNS) that identify a row,
    then every later name column that tells apart rows those leave alike (06's `method`, written last,
    would otherwise be in one part only, and the other parts' rows of each method would read the same)."""
    keys = []
    for c in df.columns[:MAX_KEY_COLUMNS]:
        if not _is_key_text(df[c]):
            break
        keys.append(c)
    # a yes/no column (factuality) names rows too, once the leading names leave some alike
    later = [c for c in df.columns if c not in keys and (_is_key_text(df[c]) or pd.api.types.is_bool_dtype(df[c]))]
    for c in later:
        groups = len(df[keys].astype(str).drop_duplicates()) if keys else 1
        if groups == len(df):
            break
        # a column that splits a group of alike rows tells them apart
        if len(df[keys + [c]].astype(str).drop_duplicates()) > groups:
            keys.append(c)
    return keys


# --- what a reader should see: intervals in one cell, no helper columns --------------------------------

# helper columns that repeat another column as pre-formatted text (e.g. `diff_true_fmt`)
# and working columns a reader of a paper's table does not need (a per-cell note, a fallback count)
HELPER = re.compile(r"(^|[_ ])fmt($|[_ ])|ci_note$|ci note$|p_holm$|p holm$|number_fallback$|number fallback$", re.I)


def withheld_note(df: pd.DataFrame) -> str:
    """'† no 95% interval: too few units, fewer than 10' for a table with withheld intervals ('' without)."""
    if intervals.REASON not in df:
        return ""
    reasons = [re.sub(r"^.*?: (?=too few|no spread|none computed)", "", part.strip())
               for text in df[intervals.REASON].dropna().astype(str) for part in text.split(";") if part.strip()]
    reasons = list(dict.fromkeys(reasons))
    return f"{WITHHELD} no 95% interval: {'; '.join(reasons)}" if reasons else ""


def reader_columns(df: pd.DataFrame, decimals: int = 3) -> pd.DataFrame:
    """The frame as a paper's table shows it: helper columns dropped, and each estimate with its
    interval in one text cell 'est [lo, hi]' (`intervals.interval_columns`), an estimate whose
    interval is withheld marked with a dagger (the caption says why: `no_interval`)."""
    df = df[[c for c in df.columns if not HELPER.search(str(c)) and c != intervals.REASON]].copy()
    for c, (lo, hi) in intervals.interval_columns(df).items():
        d = column_decimals(c, df[c], decimals)
        df[c] = [interval_text(e, a, b, d) + (WITHHELD if not _is_missing(e) and (_is_missing(a) or _is_missing(b)) else "")
                 for e, a, b in zip(df[c], df[lo], df[hi])]
        df = df.drop(columns=[lo, hi]).rename(columns={c: f"{c} [95% CI]"})
    return df


def column_decimals(name, col: pd.Series, decimals: int) -> int:
    """Decimals for one column: 1 for percentages and values of 10 or more, none from 10,000, else
    `decimals` (so a percentage prints 96.7 [83.3, 99.4], not 96.667 [83.330, 99.409])."""
    text = str(name).lower()
    values = pd.to_numeric(col, errors="coerce").abs()
    big = values.max() if values.notna().any() else 0
    if big >= 10_000:
        return 0
    if "%" in text or "pct" in text or "percent" in text or big >= 10:
        return min(decimals, 1)  # a paper prints 96.7 and 20.5, not 96.667
    return decimals


PLUS_MINUS = "x ± y: mean ± standard deviation"


# --- widths: what fits a column or the page of a two-column paper (LaTeX's 10 pt article) --------

COLUMN_PT = 229.5  # \columnwidth of \documentclass[twocolumn]{article} (3.2 in), as pdflatex sets it
PAGE_PT = 469.0  # its \textwidth (6.5 in)
COLSEP_PT = 12.0  # 2 x \tabcolsep (6 pt) per column
WRAP_PT = 120.0  # a text column wider than this wraps in a p{} column of this width
NARROW_WRAP_PT = 70.0  # the same for a table whose key columns alone are wider than the page
SMALL_PT = 9.0  # \small in a 10 pt article
# \small sets cmr9, whose glyphs are drawn 2.8 % wider than cmr10's scaled to 9 pt (its TFM widths
# over cmr10's times 0.9, the same for letters, digits and spaces); matplotlib ships only cmr10
OPTICAL_SIZE = 1.028
# LaTeX source -> pieces to measure: math, an accent over a letter, a command, an escaped character, a brace
_PIECE = re.compile(r"\$[^$]*\$|\\(?:[`'^\"~=.]|[cvurHk](?=\{))\{([^{}]*)\}|\\[a-zA-Z]+(?:\{\})?|\\.|[{}]|.", re.S)
# in math: an optional ^ or _, then a command, a group or a character
_MATH_ATOM = re.compile(r"([\^_]?)(\\[a-zA-Z]+|\{[^{}]*\}|[^{}^_])")
FOOTNOTE_PT = 8.0  # \footnotesize in a 10 pt article
# \footnotesize sets cmr8, whose glyphs are 5.7-6.3 % wider than cmr10's scaled to 8 pt (TFM widths);
# the top of that range, so a width is never under-estimated
FOOTNOTE_OPTICAL = 1.063
SCRIPT_SIZE = 6.0 / 9.0  # \small's script size over its text size
# what these set, in glyphs cmr10 has at their ASCII places (\ldots spaces its dots; ~ is a space)
_STAND_IN = {r"\ldots{}": ". . .", r"\ldots": ". . .", r"\&": "&", r"\%": "%", r"\$": "$", r"\#": "#", "~": " "}


@lru_cache(maxsize=1)
def _font():
    """Computer Modern Roman (matplotlib's cmr10.ttf), loaded once."""
    from matplotlib import get_data_path
    from matplotlib.ft2font import FT2Font

    return FT2Font(str(Path(get_data_path()) / "fonts" / "ttf" / "cmr10.ttf"))


@lru_cache(maxsize=None)
def _advance_em(ch: str) -> float:
    """A glyph's advance in em of cmr10 (its TeX encoding puts letters, digits and punctuation at
    their ASCII places); a character it has no glyph for counts as a math operator ('+')."""
    from matplotlib.ft2font import LoadFlags

    font = _font()
    if not font.get_char_index(ord(ch)):
        ch = "+"
    return font.load_char(ord(ch), flags=LoadFlags.NO_SCALE).horiAdvance / font.units_per_EM


def _piece_em(piece: str, accented: str | None) -> float:
    """Width in em of one piece of LaTeX source: a command or math symbol counts as one operator-wide
    glyph ('+', the width of $\\pm$, $\\geq$, $\\times$), a brace nothing."""
    if accented is not None:
        return _source_em(accented)
    if piece in _STAND_IN:
        return sum(_advance_em(c) for c in _STAND_IN[piece])
    if piece.startswith("$"):
        return _math_em(piece.strip("$"))
    if piece.startswith("\\"):
        return _advance_em("+")
    if piece in "{}":
        return 0.0
    return _advance_em(piece)


def _math_em(formula: str) -> float:
    """Width in em of a formula: a symbol command as one operator-wide glyph, a super- or subscript
    at script size (6 pt in \\small's 9)."""
    total = 0.0
    for script, atom in _MATH_ATOM.findall(formula):
        if atom.startswith("{"):
            em = _math_em(atom[1:-1])
        else:
            em = _advance_em("+" if atom.startswith("\\") else atom)
        total += em * (SCRIPT_SIZE if script else 1.0)
    return total


def _source_em(text: str) -> float:
    """Width in em of a line of LaTeX source (no kerning or ligatures, which in Computer Modern mostly narrow a line)."""
    text = text.replace(r"\allowbreak{}", "")  # a break point, not a glyph
    return sum(_piece_em(m.group(0), m.group(1)) for m in _PIECE.finditer(text))


def text_width_pt(text: str, size_pt: float | None = None, font: str = "small") -> float:
    """Printed width in pt of a cell's LaTeX text at `size_pt` (\\small, 9 pt; or at \\footnotesize,
    8 pt, with `font="footnotesize"`), measured with Computer Modern's glyph widths."""
    if font == "footnotesize":
        return _source_em(str(text)) * FOOTNOTE_PT * FOOTNOTE_OPTICAL
    return _source_em(str(text)) * (SMALL_PT if size_pt is None else size_pt) * OPTICAL_SIZE


def _greedy_groups(columns: list[str], keys: list[str], widths: dict, limit: float) -> list[list[str]]:
    """The key columns plus as many others as fit `limit`, in order, per part (at least one other each)."""
    parts, part = [], list(keys)
    for c in (c for c in columns if c not in keys):
        if len(part) > len(keys) and sum(widths[x] for x in part) + widths[c] > limit:
            parts.append(part)
            part = list(keys)
        part.append(c)
    parts.append(part)
    return parts


def column_groups(columns: list[str], keys: list[str], widths: dict, limit: float = PAGE_PT) -> list[list[str]]:
    """Columns per tabular: all in one when their widths fit `limit`, else the key columns plus others
    in order, in as few parts as fit the page and with the others spread evenly over them (no last part
    of one lone column); each part can be read on its own."""
    if sum(widths[c] for c in columns) <= limit:
        return [list(columns)]
    count = len(_greedy_groups(columns, keys, widths, limit))
    low, high = 0.0, limit  # the narrowest limit that still needs no more parts
    for _ in range(40):
        mid = (low + high) / 2
        low, high = (low, mid) if len(_greedy_groups(columns, keys, widths, mid)) <= count else (mid, high)
    return _greedy_groups(columns, keys, widths, high)


def _wrapped_lines(text: str, width: float, font: str = "small") -> list[str]:
    """Words on lines no wider than `width` pt, filled in turn (a word wider than that on a line of its own)."""
    lines, line = [], ""
    for w in text.split(" "):
        if line and text_width_pt(line + " " + w, font=font) > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}".strip()
    return lines + [line]


def _header(text: str, width: float, font: str = "small") -> str:
    """A header cell that wraps onto lines no wider than its column's cells (a nested tabular)."""
    lines = _wrapped_lines(text, width, font)
    if len(lines) == 1:
        return lines[0]
    # "{}" after each line break: a line starting with "[" would be read as the break's optional argument;
    # no space after it, which would indent the line
    return r"\begin{tabular}[b]{@{}l@{}}" + r" \\{}".join(lines) + r"\end{tabular}"


def _layout(df: pd.DataFrame, decimals: int, font: str = "small", header_min: float = 60.0,
            wrap_pt: float = WRAP_PT) -> dict:
    """Per column: its cells, header, alignment and estimated width in pt (cells plus column gap), at
    `font` (small or footnotesize); text wider than `wrap_pt` wraps in a p{} column of that width; a
    header wraps where it is wider than its cells and `header_min` pt."""
    out = {}
    for c in df.columns:
        numeric = pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])
        cells = _format_column(df[c], column_decimals(c, df[c], decimals))
        body = max((text_width_pt(x, font=font) for x in cells), default=0.0)
        head = escape(label(c))
        longest_word = max((text_width_pt(w, font=font) for w in head.split(" ")), default=0.0)
        if not numeric and body > wrap_pt:
            align, body = rf"p{{{wrap_pt:g}pt}}", wrap_pt
            cells = [_breakable(x) for x in cells]
        else:
            align = "r" if numeric else "l"
        # a header wraps only where it is much wider than its cells (two short words stay on one line)
        wrap = max(body, longest_word, header_min)
        lines = _wrapped_lines(head, wrap, font)
        out[c] = {"cells": cells, "head": _header(head, wrap, font), "align": align,
                  "width": max([body] + [text_width_pt(line, font=font) for line in lines]) + COLSEP_PT}
    return out


def estimated_width(tex: str) -> float:
    """The widest tabular of a table written by `to_latex`, as it estimated it (pt)."""
    found = re.findall(r"% widest part about ([\d.]+) pt", tex)
    return float(found[0]) if found else float("nan")


# height: a float taller than a page of a two-column paper (about 620 pt of text at 10 pt) does not print
PAGE_HEIGHT_PT = 480.0  # what the rows of one float may take: the page less caption, rules and header
LINE_PT = 11.5  # one line of a row at \small


_LONG_WORD = re.compile(r"[A-Za-z0-9.,;:'()/+-]{20,}")


def _breakable(cell: str) -> str:
    """A wrapped cell whose words of 20 characters or more may break every 10 (a model's run-together
    reply, "avesitlionSt.TomRepublics...", is wider than its p{} column and TeX cannot hyphenate it)."""
    return _LONG_WORD.sub(lambda m: r"\allowbreak{}".join(m.group()[i:i + 10] for i in range(0, len(m.group()), 10)),
                          cell)


def _p_width(align: str) -> float:
    """The width in pt of a p{...pt} column."""
    return float(re.match(r"p\{([\d.]+)pt\}", align).group(1))


def row_heights(layout: dict, cols: list[str], n_rows: int) -> list[float]:
    """Each row's estimated height in pt: its tallest cell, a p{} column's text wrapped word by word
    at WRAP_PT (no hyphens, so never fewer lines than pdflatex sets)."""
    heights = []
    for i in range(n_rows):
        lines = max((len(_wrapped_lines(layout[c]["cells"][i], _p_width(layout[c]["align"])))
                     if layout[c]["align"].startswith("p") else 1 for c in cols), default=1)
        heights.append(LINE_PT * max(lines, 1))
    return heights


def row_blocks(heights: list[float], limit: float = PAGE_HEIGHT_PT) -> list[range]:
    """Consecutive rows per float, each block's rows within `limit` pt (a block holds at least one row)."""
    blocks, start, used = [], 0, 0.0
    for i, h in enumerate(heights):
        if i > start and used + h > limit:
            blocks.append(range(start, i))
            start, used = i, 0.0
        used += h
    blocks.append(range(start, len(heights)))
    return blocks


def _tabular_rows(layout: dict, cols: list[str], rows: range) -> str:
    """One booktabs tabular of the given columns and rows, written by pandas' Styler from our cells
    (already formatted and escaped, so the Styler escapes nothing)."""
    cells = pd.DataFrame({i: [layout[c]["cells"][r] for r in rows] for i, c in enumerate(cols)})
    # relabel_index reads each label as a str.format pattern: its braces are doubled to stay braces
    heads = [layout[c]["head"].replace("{", "{{").replace("}", "}}") for c in cols]
    styler = cells.style.format(escape=None).hide(axis="index").relabel_index(heads, axis="columns")
    return styler.to_latex(column_format="".join(layout[c]["align"] for c in cols), hrules=True).rstrip("\n")


def _total_width(layout: dict) -> float:
    """The width in pt of a table with every column of `layout` in one tabular."""
    return sum(col["width"] for col in layout.values())


def _column_parts(layout: dict, keys: list[str]) -> tuple[list[list[str]], float]:
    """The columns of each tabular (`column_groups` at the page's width) and the widest one's width in pt."""
    widths = {c: col["width"] for c, col in layout.items()}
    groups = column_groups(list(layout), keys, widths, PAGE_PT)
    return groups, max(sum(widths[c] for c in cols) for cols in groups)


# a text cell that carries no value: dashes and slashes, maybe with its count of 0 ('- / - / - (n=0)')
_PLACEHOLDER = re.compile(r"^[\s\-\u2013\u2014/]*(\(n\s*=\s*0\))?[\s\-/]*$")


def carries_no_estimate(df: pd.DataFrame) -> bool:
    """True when a table has estimates and none of them has a value: every estimate with an interval is
    empty in every row (counts of what failed are all it would print), or every text cell that is not
    a row's name is a placeholder ('- / - / - (n=0)'). Its CSV keeps the counts; a LaTeX table of
    dashes tells a reader nothing."""
    flat = _flat(df)
    if flat.empty:
        return False
    estimates = intervals.interval_columns(flat)
    if estimates:
        return all(flat[c].isna().all() for c in estimates)
    if any(pd.api.types.is_numeric_dtype(flat[c]) for c in flat.columns):
        return False
    # a list cell (18's content-free priors) is a value; a blank one ('' or NaN) is no evidence either way
    blank = lambda v: pd.api.types.is_scalar(v) and (pd.isna(v) or str(v).strip() == "")  # noqa: E731
    dashes = lambda v: not blank(v) and pd.api.types.is_scalar(v) and bool(_PLACEHOLDER.match(str(v)))  # noqa: E731
    empty = lambda v: blank(v) or dashes(v)  # noqa: E731
    cells = [c for c in flat.columns if flat[c].map(dashes).any()]  # the value columns: names never read '-'
    return bool(cells) and all(flat[c].map(empty).all() for c in cells)


def to_latex(df: pd.DataFrame, name: str, caption: str | None = None, columns: list[str] | None = None,
             decimals: int = 3) -> str | None:
    """Table environments (booktabs; needs only that package) with a caption that says what the
    table shows (given, else the one `captions` declares for `name`), its n and why an interval is
    withheld; estimates and their intervals in one cell, helper columns dropped; `table` when it fits
    a column (COLUMN_PT), else `table*` (the page, PAGE_PT). A frame wider than the page is split into column
    parts that each repeat the key columns, and one taller than a page into row parts: every part is a
    float of its own, under the caption with 'part i of k', so none is taller than a page (a two-column
    paper has no longtable). `columns` picks and orders the columns shown (after the index became
    columns). None for a frame without rows, or with no estimate in any row (`carries_no_estimate`): an
    empty tabular, or one of dashes, is not a table."""
    from .captions import caption_for

    flat = _flat(df)
    if columns is not None:
        missing = [c for c in columns if c not in flat.columns]
        if missing:
            raise KeyError(f"Table {name!r}: no column {missing} to show; it has {list(flat.columns)}.")
        flat = flat[list(columns)]
    if flat.empty or carries_no_estimate(flat):
        return None
    flat = intervals.withhold(flat)
    n = n_text(flat)
    withheld = withheld_note(flat)
    keys = _key_columns(flat)  # before the intervals become text cells, which would read as keys
    flat = reader_columns(flat, decimals)
    keys = [k for k in keys if k in flat.columns]
    if caption is None:
        caption = caption_for(name)
    if caption is None:  # the last resort: the table's name, less the notebook number it starts with
        caption = label(re.sub(r"^\d+_", "", name))
        caption = caption[:1].upper() + caption[1:]
    layout, size = _layout(flat, decimals), "\\small"
    if _total_width(layout) > PAGE_PT:
        # one table at \footnotesize with headers wrapped to their longest word reads better than parts
        small = _layout(flat, decimals, "footnotesize", header_min=0.0)
        if _total_width(small) <= PAGE_PT:
            layout, size = small, "\\footnotesize"
    groups, widest = _column_parts(layout, keys)
    env = "table" if widest <= COLUMN_PT else "table*"
    if widest > PAGE_PT:  # key columns alone wider than the page: smaller, their text wrapped narrower
        layout, size = _layout(flat, decimals, "footnotesize", header_min=0.0, wrap_pt=NARROW_WRAP_PT), "\\footnotesize"
        groups, widest = _column_parts(layout, keys)
    parts = [(cols, rows) for cols in groups for rows in row_blocks(row_heights(layout, cols, len(flat)))]
    cap = escape(caption) + (f". {n}" if n else "") + (f". {escape(withheld)}" if withheld else "")
    if flat.astype(str).apply(lambda col: col.str.contains("±", regex=False)).to_numpy().any():
        cap += f". {escape(PLUS_MINUS)}"  # the cells' x±y (`fmt_mean_sd`) is said once, not left to guess
    floats = []
    for i, (cols, rows) in enumerate(parts):
        part = f" (part {i + 1} of {len(parts)}, key columns repeated)" if len(parts) > 1 else ""
        tag = name if i == 0 else f"{name}:{i + 1}"
        floats.append(f"\\begin{{{env}}}[htbp]\n\\centering\n{size}\n\\caption{{{cap}{part}}}\n"
                      f"\\label{{tab:{tag}}}\n{_tabular_rows(layout, cols, rows)}\n\\end{{{env}}}\n")
    return (PREAMBLE + f"% widest part about {widest:.0f} pt: {env} ({'a column' if env == 'table' else 'the page'})\n"
            + "".join(floats))
