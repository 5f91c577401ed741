"""The paper check's figure: per published table and kind of check, how many cells our code matches."""
from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from lib.report.labels import label
from lib.report.legends import legend_below

MATCH_COLOR, CELLS_COLOR = "#009e73", "#dddddd"


def matches_figure(check: pd.DataFrame):
    """Bars of the cells per (paper, table, kind), the matching ones over them in green; the legend sits
    under the panel, where it covers no bar and leaves the panel's width to the bars."""
    per_table = check.groupby(["paper", "table", "kind"])["match"].agg(["sum", "size"])
    fig, ax = plt.subplots(figsize=(5.0, 0.45 * len(per_table) + 1.4))
    labels = [f"{label(p)} {t} ({k})" for p, t, k in per_table.index]  # "utility paper Table 2 (consistency)"
    ax.barh(labels, per_table["size"], color=CELLS_COLOR, label="cells")
    ax.barh(labels, per_table["sum"], color=MATCH_COLOR, label="match")
    ax.set(xlabel="published cells",
           title=f"Published cells our code matches, per table and kind of check (n = {len(check)} cells)")
    legend_below(ax, ncols=2)
    return fig
