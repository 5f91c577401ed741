"""The model x measure table of one run, printed where `make reproduce` ends:

    python -m lib.compare.run_table configs/demo.yaml     (or a run name)

runs `compare` on the run (data/runs/<run>_table/, figures/<run>_table/: comparison.csv, forest plots,
LaTeX) and prints one row per measure, one column per model: 'estimate [95% CI] (n)'."""
from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import yaml

from lib.report.latex_table import interval_text

from . import CompareError, compare
from .join import entries
from .latex import row_decimals, short_reason


def run_name(target: str) -> str:
    """The run a config file names (its `run`, else its file name), or `target` itself."""
    path = Path(target)
    if path.suffix in (".yaml", ".yml") and path.is_file():
        cfg = yaml.safe_load(path.read_text()) or {}
        return str(cfg.get("run") or path.stem)
    return target


def text_table(wide: pd.DataFrame, entries: list[str]) -> pd.DataFrame:
    """Measure rows x model columns of `compare`'s wide table, each cell 'est [lo, hi] (n)' ('' when
    that model lacks the measure, '---' for a row without an estimate); smoke-test cells (n < 30 units) are marked, and a cell without an
    interval says why in a few words (the findings row's `no_interval`)."""
    rows = {}
    for _, r in wide.iterrows():
        key = f"{r['notebook']} {r['measure']}"
        # the LaTeX table's precision: 96.7 [83.3, 99.4] for a percentage, 0.512 for a rate
        d = row_decimals(r["measure"], [r.get(f"{c} [{e}]") for e in entries for c in ("estimate", "ci_low", "ci_high")])
        cells = {}
        for e in entries:
            est, n = r.get(f"estimate [{e}]"), r.get(f"n [{e}]")
            if pd.isna(n):  # this model has no such row
                cells[e] = ""
                continue
            smoke = " smoke" if bool(r.get(f"smoke [{e}]")) else ""
            low, high = r.get(f"ci_low [{e}]"), r.get(f"ci_high [{e}]")
            why = ""
            if pd.isna(low) or pd.isna(high):
                why = f"; no interval: {short_reason(r.get(f'no_interval [{e}]'), n)}"
            cells[e] = f"{interval_text(est, low, high, d)} (n = {int(n)}{smoke}{why})"
        rows[key] = cells
    return pd.DataFrame.from_dict(rows, orient="index", columns=entries)


def text_lines(table: pd.DataFrame) -> str:
    """The table as left-aligned text: each column as wide as its longest cell, not padded on the left
    to the widest one (pandas right-aligns strings, so a short cell sat ~200 characters in)."""
    key_width = max((len(str(k)) for k in table.index if len(str(k)) <= MAX_KEY_CHARS), default=0)
    widths = {c: max([len(str(c))] + [len(str(x)) for x in table[c]]) for c in table.columns}
    lines = ["  ".join([" " * key_width] + [str(c).ljust(widths[c]) for c in table.columns]).rstrip()]
    for key, row in table.iterrows():
        key = str(key)
        if len(key) > key_width:  # a long measure name on a line of its own, its cells below it
            lines.append(key)
            key = ""
        lines.append("  ".join([key.ljust(key_width)] + [str(row[c]).ljust(widths[c]) for c in table.columns]).rstrip())
    return "\n".join(lines)


MAX_KEY_CHARS = 80  # a measure name longer than this does not push every row's cells to the right


def main(argv=None) -> int:
    """Compare the run with itself (one entry per model) and print its model x measure table."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    name = run_name(args[0])
    try:
        result = compare([name], f"{name}_table")
    except CompareError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    table = text_table(result["wide"], entries(result["long"]))
    print(f"\nModel x measure table of run {name} (estimate [95% CI] (n units)):")
    print(text_lines(table) if len(table) else "(the run wrote no findings rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
