"""Figures of notebooks 10 and 11 from their summary tables: the paper's metrics, with intervals.

Set forms plot the paper's F1 (harmonic mean of the averaged P and R, `lib.utility.evaluate`); the mean
of per-question F1 appears only in its own panel labelled "extra". Ranking forms plot NDCG@1. Every
figure has a failure-rate panel, since the metrics average the readable replies only. Intervals are
the summary's bootstrap (metrics) and Wilson (failure rate) 95% intervals, not seaborn's.
"""
from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from lib.labels import label
from lib.plotting import failed_label, n_label, state_n
from lib.utility.evaluate import SET_EXTRA

SET_FORMS = ("pointwise", "listwise-set")
PAPER_F1 = "F1 (paper: from averaged P, R)"
EXTRA_F1 = "F1 per question (extra, not the paper's)"
FAILURES = "failure rate (%)"


def panels(summary: pd.DataFrame, extra: bool = True) -> pd.DataFrame:
    """Long table (summary keys, panel, value, lo, hi): per summary row the paper's headline metric
    (F1 for set forms, NDCG@1 for rankings), the labelled per-question F1 extra, and the failure rate."""
    recs = []
    for r in summary.to_dict("records"):
        is_set = r.get("form") in SET_FORMS
        shown = [(PAPER_F1, "F1")] if is_set else [("NDCG@1", "NDCG@1")]
        shown += [(EXTRA_F1, SET_EXTRA)] if is_set and extra else []
        for panel, col in shown:
            if pd.notna(r.get(col, np.nan)):
                recs.append({**r, "panel": f"{r.get('form', '')}: {panel}", "value": r[col],
                             "lo": r[f"{col} lo"], "hi": r[f"{col} hi"]})
        recs.append({**r, "panel": f"{r.get('form', '')}: {FAILURES}", "value": r["failure rate"],
                     "lo": r["failure lo"], "hi": r["failure hi"]})
    return pd.DataFrame(recs)


def questions_n(long: pd.DataFrame, per: str = "bar") -> str:
    """n of a summary (or its `panels` table) in questions per bar, and, where the summary counts
    them, the failed questions (no readable reply) over all bars."""
    rows = long[long["panel"].str.endswith(FAILURES)] if "panel" in long else long
    if "n" not in rows or rows.empty:
        return "n = 0 questions"
    lo, hi = int(rows["n"].min()), int(rows["n"].max())
    text = n_label(hi, f"questions per {per}") if lo == hi else f"n = {lo} to {hi} questions per {per}"
    if "n_failed_questions" in rows:
        failed, asked = int(rows["n_failed_questions"].sum()), int(rows["n"].sum())
        text += "; " + failed_label(failed, asked, "question judgments failed")
    return text


WRAP = 2  # panels per row: two 2.4-in panels keep a figure readable at a paper's column width
PANEL = (2.4, 2.2)  # inches per panel


def _facets(long: pd.DataFrame, row: str | None, col: str, wrap: int = WRAP):
    """Panels per `row` value (e.g. model) and `col` value, the `col` panels wrapped `wrap` to a row;
    yields (axes, its rows, its title), then lays the figure out."""
    rows = list(dict.fromkeys(long[row])) if row else [None]
    cols = list(dict.fromkeys(long[col]))
    per_row = min(len(cols), wrap)
    lines = -(-len(cols) // per_row)  # rows of panels per `row` value
    fig, axes = plt.subplots(len(rows) * lines, per_row, squeeze=False,
                             figsize=(PANEL[0] * per_row, PANEL[1] * len(rows) * lines))
    for i, rv in enumerate(rows):
        for j, cv in enumerate(cols):
            sub = long[(long[col] == cv) & ((long[row] == rv) if row else True)]
            title = " | ".join(str(v) for v in (rv, cv) if v is not None)
            yield axes[i * lines + j // per_row][j % per_row], sub, textwrap.fill(title, 30)
        for j in range(len(cols), lines * per_row):  # the unused end of the last row
            axes[i * lines + j // per_row][j % per_row].remove()
    fig.tight_layout()


def _legend_below(fig, title: str) -> None:
    """One legend for all panels, centred under them (it adds no width), from the first panel with entries."""
    for ax in fig.axes:
        handles, labels = ax.get_legend_handles_labels()
        if handles:
            fig.legend(handles, labels, title=title, loc="upper center", bbox_to_anchor=(0.5, 0.0),
                       ncols=min(len(labels), 3), fontsize="small", title_fontsize="small")
            return


def bar_figure(long: pd.DataFrame, x: str, hue: str, col: str = "panel", row: str | None = None):
    """Grouped bars of `value` with [lo, hi] error bars, one panel per `col` (and `row`) value, two
    panels to a row, one legend under them."""
    hues = list(dict.fromkeys(long[hue]))
    fig = None
    for ax, sub, title in _facets(long, row, col):
        fig = ax.figure
        xs = list(dict.fromkeys(sub[x]))
        width = 0.8 / max(len(hues), 1)
        for k, h in enumerate(hues):
            part = sub[sub[hue] == h].set_index(x).reindex(xs)
            pos = np.arange(len(xs)) - 0.4 + width * (k + 0.5)
            err = np.vstack([part["value"] - part["lo"], part["hi"] - part["value"]]).clip(min=0)
            ax.bar(pos, part["value"], width, yerr=err, capsize=2, label=str(h))
        ax.set_xticks(np.arange(len(xs)), [str(v) for v in xs])
        # every group's full slot: a hue with no bar here must not pull its group's tick to the edge
        ax.set_xlim(-0.5, max(len(xs), 1) - 0.5)
        ax.set_title(title, fontsize="small")
        ax.set_xlabel(x)
    if fig is not None:
        _legend_below(fig, hue)
        state_n(fig, questions_n(long))
    return fig


def line_figure(long: pd.DataFrame, x: str, hue: str, col: str = "panel", row: str | None = None):
    """Lines of `value` over `x` with a [lo, hi] band, one panel per `col` (and `row`) value, two panels
    to a row, one legend under them."""
    fig = None
    for ax, sub, title in _facets(long, row, col):
        fig = ax.figure
        for h, part in sub.sort_values(x).groupby(hue, sort=False):
            ax.plot(part[x], part["value"], marker="o", label=str(h))
            ax.fill_between(part[x], part["lo"], part["hi"], alpha=0.2)
        ax.set_title(title, fontsize="small")
        ax.set_xlabel(x)
    if fig is not None:
        _legend_below(fig, hue)
        state_n(fig, questions_n(long, per="point"))
    return fig

HEADLINE_LABEL = "F1 per question (set) / NDCG@1 (rank), readable replies"


def relevance_vs_utility_figure(per_q: pd.DataFrame, summary: pd.DataFrame):
    """Notebook 10's figure: F1 per question (set forms) and NDCG@1 (rank forms) per dataset, relevance vs
    utility prompts, means over readable replies with 95% intervals over questions, one panel per form.
    When no reply parsed at all, the failure rates stand in and the y label says so, with n."""
    import seaborn as sns

    from lib.utility.evaluate import failure_table

    long, ylabel = per_q.dropna(subset=["headline"]), HEADLINE_LABEL
    if long.empty:  # every reply unreadable: failure rates instead of empty bars, and said
        fails = failure_table(per_q, ["source", "judgment", "form"])
        long = fails.assign(headline=fails["failure rate"])
        ylabel = f"failure rate (%): no reply parsed\n(0 of {len(per_q)} replies)"
    g = sns.catplot(data=long, x="source", y="headline", hue="judgment", col="form", kind="bar",
                    errorbar=("ci", 95), height=2.6, aspect=0.85)
    g.set_axis_labels("dataset", ylabel)
    g.set_titles("{col_name}")
    return state_n(g.figure, questions_n(summary))


def k_curve_figure(curve: pd.DataFrame, score: str = "score", ylabel: str = "answer score"):
    """Notebook 12's figure: the answer score over k (shuffles voted), one line per dataset and one panel
    per model. A series measured at one k only is a dot, not a line, and its panel's x label says that
    it is one point, not a curve."""
    models = list(dict.fromkeys(curve["model"])) or [""]
    fig, axes = plt.subplots(1, len(models), figsize=(min(2.6 * len(models) + 1.2, 7.0), 2.8), squeeze=False,
                             sharey=True)
    for ax, model in zip(axes[0], models):
        part = curve[curve["model"] == model].dropna(subset=[score])
        lone = []
        for source, s in part.sort_values("k").groupby("source", sort=False):
            if len(s) > 1:
                ax.plot(s["k"], s[score], marker="o", label=str(source))
            else:
                ax.plot(s["k"], s[score], marker="o", ls="none", label=str(source))
                lone.append(f"{label(source)}: k = {int(s['k'].iloc[0])} only")
        # said under the axis, where it cannot cover the point
        xlabel = "k (shuffles voted)" + ("\none point, not a curve: " + "; ".join(lone) if lone else "")
        ax.set(title=str(model), xlabel=xlabel)
        if len(part):
            ax.legend(title="dataset", fontsize="small")
    axes[0][0].set_ylabel(ylabel)
    return state_n(fig, questions_n(curve, per="point"))
