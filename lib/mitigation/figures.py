"""Notebook 18's figure: each arm's reading before and after, per source, quantity and model (the only
module of the study that imports matplotlib)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, MaxNLocator

from lib.report.labels import spec_label

# panels by scale: rates (06, 12, 13) and 05's rating points do not share an axis. Titles no wider
# than the panel: constrained layout keeps a centred title inside the figure by narrowing every panel
# of the column (05's old title, "05: human minus own rating", left the panels 0.3 in wide)
PANELS = (("rates (06, 12, 13)", lambda t: t["source"] != "05"),
          ("05: rating points", lambda t: t["source"] == "05"))
SHORT = {"balanced": "bal.", "contextual": "ctx.", "temperature": "temp.", "length_control": "length",
         "order_averaged": "k-vote", "gt_hit": "GT hit", "first_shown": "first",
         "accuracy": "acc.", "position": "pos.", "factual": "fact.", "human_minus_self_normal": "normal",
         "human_minus_self_rag": "RAG"}


def _label(r, kinds: bool) -> str:
    """'bal. 13 acc.', with J (judge) or RM (scalar reward model) where several of 13's models are shown."""
    text = " ".join(SHORT.get(str(v), str(v)) for v in (r["arm"], r["source"], r["quantity"]))
    return f"{text} {'J' if str(r['model']).startswith('judge') else 'RM'}" if kinds and r["source"] == "13" else text


def _labels(part: pd.DataFrame, kinds: bool) -> list[str]:
    """Row labels; two rows that would read alike (13's implicit reward model with and without `;mean`)
    get the model's options: 'length 13 acc. RM' and 'length 13 acc. RM mean'."""
    rows = part.to_dict("records")
    texts = [_label(r, kinds) for r in rows]
    repeated = {t for t in texts if texts.count(t) > 1}
    labels = [spec_label(r["model"]) for r in rows]
    with_options = [f"{t} {lab.partition(', ')[2]}".rstrip() if t in repeated else t for t, lab in zip(texts, labels)]
    # two judges of one kind ('sim judge (16 tokens, 0 retries)', 'sim_b judge (...)') differ by name only
    return [f"{t} {lab.split(' ')[0]}" if with_options.count(w) > 1 else w
            for t, lab, w in zip(texts, labels, with_options)]


def before_after_figure(table: pd.DataFrame):
    """Before (open) and after (filled) per arm, source and quantity, stacked panels by scale; the bar
    around the after point is the paired difference's 95% interval (bootstrap over questions)."""
    shown = table[table["quantity"] != "flipped"].dropna(subset=["before", "after"])
    shown = shown.assign(source=shown["source"].astype(str).str.zfill(2))  # '05' whether read from a CSV or not
    parts = [(title, shown[keep(shown)].reset_index(drop=True)) for title, keep in PANELS]
    parts = [(t, p) for t, p in parts if len(p)] or [("no arm had its input", shown)]
    several = shown.loc[shown["source"] == "13", "model"].nunique() > 1
    fig, axes = plt.subplots(len(parts), 1, figsize=(3.3, 1.3 + sum(0.22 * max(len(p), 1) + 0.6 for _, p in parts)),
                             squeeze=False, gridspec_kw={"height_ratios": [max(len(p), 1) + 0.6 for _, p in parts]},
                             layout="constrained")
    for ax, (title, part) in zip(axes[:, 0], parts):
        y = np.arange(len(part))
        ax.hlines(y, part["before"], part["after"], color="0.6", lw=1)
        ax.plot(part["before"], y, "o", mfc="white", color="C0", ms=4, )
        lo = (part["after"] - (part["before"] + part["ci_low"])).clip(lower=0)
        hi = ((part["before"] + part["ci_high"]) - part["after"]).clip(lower=0)
        ax.errorbar(part["after"], y, xerr=np.vstack([lo.fillna(0), hi.fillna(0)]), fmt="o", color="C1", ms=4,
                    capsize=2)
        ax.set_yticks(y, _labels(part, several))
        ax.margins(x=0.1)  # an open circle at the end of the range is drawn whole
        ax.xaxis.set_major_locator(MaxNLocator(nbins=3))  # a narrow panel's default ticks ran into each other
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))  # '0', not '0.000'
        ax.invert_yaxis()
        ax.set_title(title, fontsize="medium")
    fig.legend(handles=[Line2D([], [], marker="o", ls="", mfc="white", color="C0", ms=4, label="before"),
                        Line2D([], [], marker="o", ls="-", color="C1", ms=4, label="after (bar: 95% CI of the change)")],
               loc="outside lower center", ncols=2, frameon=False, fontsize="x-small")
    n = shown["n"].astype(int)
    fig.suptitle(f"Before and after each arm, n = {n.min()}-{n.max()}" if len(n) else
                 "Before and after each arm, n = 0", fontsize="medium")
    return fig
