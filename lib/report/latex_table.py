"""LaTeX tables that compile: escaped text, booktabs rules, formatted numbers, a caption with n,
and wide frames split into several tabulars that share their key columns."""
from __future__ import annotations

import math
import numbers
import re
import unicodedata

import numpy as np
import pandas as pd

from .labels import humanize, label

# Columns per tabular (key columns included): about what fits a page's text width in \small.
MAX_COLUMNS = 8
# Text columns repeated in every part of a split table, so each part can be read on its own.
MAX_KEY_COLUMNS = 3
MISSING = "---"  # an em-dash in LaTeX: a cell with no value (NaN, None)
PREAMBLE = "% needs \\usepackage{booktabs} in the document's preamble\n"

_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
            "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
            "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}"}
# Non-ASCII symbols that turn up in result tables; pdflatex rejects those it has no definition for.
_UNICODE = {"≥": r"$\geq$", "≤": r"$\leq$", "×": r"$\times$", "±": r"$\pm$", "−": "-", "→": r"$\rightarrow$",
            "←": r"$\leftarrow$", "≈": r"$\approx$", "≠": r"$\neq$", "…": r"\ldots{}", "–": "--", "—": "---",
            "‘": "`", "’": "'", "“": "``", "”": "''", "·": r"$\cdot$", "°": r"$^\circ$", "µ": r"$\mu$",
            "α": r"$\alpha$", "β": r"$\beta$", "κ": r"$\kappa$", "ρ": r"$\rho$", "τ": r"$\tau$", "Δ": r"$\Delta$",
            "\u00a0": "~"}
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
    whole = (bool(numeric) and any(_is_missing(v) for v in values)
             and all(float(v).is_integer() and abs(v) < 1e15 for v in numeric))
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
        else:
            cells.append(escape(humanize(str(v))))
    return cells


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


def n_text(df: pd.DataFrame) -> str:
    """'n = 12' (one value), 'n = 3--14 pairs per row' (several, from an `n_pairs` column), or ''
    when the frame states no n."""
    col = _n_column(df)
    if col is None:
        return ""
    values = pd.to_numeric(df[col], errors="coerce").dropna().astype(int)
    what = "" if col == "n" else " " + escape(label(col.removeprefix("n_")))
    if values.nunique() == 1:
        return f"n = {values.iloc[0]}{what}"
    return f"n = {values.min()}--{values.max()}{what} per row"


def _key_columns(df: pd.DataFrame) -> list[str]:
    """Leading non-numeric columns (dataset, model, setting ...) that identify a row."""
    keys = []
    for c in df.columns[:MAX_KEY_COLUMNS]:
        if pd.api.types.is_numeric_dtype(df[c]) or pd.api.types.is_bool_dtype(df[c]):
            break
        keys.append(c)
    return keys


def column_groups(columns: list[str], keys: list[str], max_columns: int = MAX_COLUMNS) -> list[list[str]]:
    """Columns per tabular: all in one when they fit, else the key columns plus at most
    max_columns - len(keys) others per part, spread evenly (no part left with one lone column)."""
    if len(columns) <= max_columns:
        return [list(columns)]
    rest = [c for c in columns if c not in keys]
    n_parts = math.ceil(len(rest) / max(max_columns - len(keys), 1))
    size, extra = divmod(len(rest), n_parts)
    bounds = [i * size + min(i, extra) for i in range(n_parts + 1)]
    return [keys + rest[a:b] for a, b in zip(bounds, bounds[1:])]


def _tabular(df: pd.DataFrame, cols: list[str], decimals: int) -> str:
    """One booktabs tabular of the given columns: text left-aligned, numbers right-aligned."""
    align = "".join("r" if pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])
                    else "l" for c in cols)
    head = " & ".join(escape(label(c)) for c in cols) + r" \\"
    body = [_format_column(df[c], decimals) for c in cols]
    rows = [" & ".join(cells) + r" \\" for cells in zip(*body)] if len(df) else []
    return "\n".join([rf"\begin{{tabular}}{{{align}}}", r"\toprule", head, r"\midrule", *rows,
                      r"\bottomrule", r"\end{tabular}"])


def to_latex(df: pd.DataFrame, name: str, caption: str | None = None, columns: list[str] | None = None,
             decimals: int = 3, max_columns: int = MAX_COLUMNS) -> str:
    """A table environment (booktabs; needs only that package) with a caption that states n when
    the frame has an n column; more than max_columns columns are split into stacked tabulars that
    each repeat the key columns. `columns` picks and orders the columns shown (after the index
    became columns)."""
    flat = _flat(df)
    if columns is not None:
        missing = [c for c in columns if c not in flat.columns]
        if missing:
            raise KeyError(f"Table {name!r}: no column {missing} to show; it has {list(flat.columns)}.")
        flat = flat[list(columns)]
    # without a caption: the table's name, less the notebook number it starts with
    if caption is None:
        caption = label(re.sub(r"^\d+_", "", name))
        caption = caption[:1].upper() + caption[1:]
    title = escape(caption)
    n = n_text(flat)
    groups = column_groups(list(flat.columns), _key_columns(flat), max_columns)
    parts = [_tabular(flat, cols, decimals) for cols in groups]
    note = f" ({len(parts)} parts, key columns repeated)" if len(parts) > 1 else ""
    cap = title + (f". {n}" if n else "") + note
    body = "\n\\par\\medskip\n".join(parts)
    return (PREAMBLE + "\\begin{table}[htbp]\n\\centering\n\\small\n" + f"\\caption{{{cap}}}\n"
            + f"\\label{{tab:{name}}}\n{body}\n\\end{{table}}\n")
