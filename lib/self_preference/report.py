"""Figures and table views of notebooks 05 and 06 (so the notebooks hold parameters, calls and prose).

Figures draw their error bars from the tables' own intervals, which resample the question (item), never
from a per-judgment bootstrap.
"""
from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.patches import Patch

from lib.report.plotting import label, legend_below, n_label, state_n

from .figures import LIKELIHOOD, PAPER, method_panels
from .likelihood import EXPECTED_SCORE_NAMES

TABLE2_COLUMNS = ["dataset", "evaluator", "setting", "human_true", "self_true", "self_false",
                  "diff_true_fmt", "diff_false_fmt", "n_true", "n_false"]
HMS_COLUMNS = ["dataset", "evaluator", "setting", "method", "n_true", "diff_true", "ci_low_true", "ci_high_true",
               "p_true", "n_false", "diff_false", "ci_low_false", "ci_high_false", "p_false"]
PREF_VIEW = r"^(method|dataset|evaluator|b_author|combo|order|n_valid|n_same_answer|n_unparsed|\w+_(n|n_items|rate|ci_low|ci_high|p|p_holm))$"


def pref_view(table: pd.DataFrame) -> pd.DataFrame:
    """The columns of a preference table a reader needs: keys, counts, rates, intervals, p."""
    return table.filter(regex=PREF_VIEW)


def _errorbars(ax, frame: pd.DataFrame, x: str, hue: str, y: str, low: str, high: str, order, hues,
               labels: bool = True):
    """Bars of y per x and hue with the given interval columns as error bars (and x's tick labels, unless
    `labels` is False: the caller sets its own)."""
    width = 0.8 / max(len(hues), 1)
    for j, h in enumerate(hues):
        part = frame[frame[hue] == h].set_index(x).reindex(order)
        pos = np.arange(len(order)) - 0.4 + width * (j + 0.5)
        ax.bar(pos, part[y], width, label=str(h))
        err = np.vstack([part[y] - part[low], part[high] - part[y]])
        ax.errorbar(pos, part[y], yerr=np.where(np.isnan(err), 0, err), fmt="none", ecolor="black", lw=1)
    if labels:
        ax.set_xticks(np.arange(len(order)), [str(o) for o in order])


def pointwise_scores_figure(ratings: pd.DataFrame):
    """Mean parsed score and mean reply-token expected score per author, factuality and setting, with
    95% intervals that resample items."""
    # short panel titles: the full name of the reply-token expected score is in EXPECTED_SCORE_NAMES
    names = {"score": "parsed score", "expected_score": "reply-token expected score"}
    long = ratings.melt(id_vars=["evaluator", "setting", "factuality", "author", "item_id"],
                        value_vars=list(names), var_name="measure", value_name="value").replace({"measure": names})
    long["setting"] = long["setting"].map(label)  # "rag" -> "RAG prompt": the panel titles are phrases
    hues = [f for f in ("true", "false") if f in set(long["factuality"])] + sorted(
        set(long["factuality"].astype(str)) - {"true", "false"})
    colours = dict(zip(hues, sns.color_palette(n_colors=len(hues))))
    # units: the 95% bootstrap resamples items (an item gives one rating per evaluator and bar).
    # One measure to a row, named on its y axis, and one setting to a column, named above the top row:
    # "setting: measure" titles over two panels to a column's width wrapped onto three lines.
    g = sns.catplot(data=long, x="author", y="value", hue="factuality", hue_order=hues, palette=colours,
                    row="measure", col="setting", kind="bar", errorbar=("ci", 95), units="item_id", seed=0,
                    height=1.6, aspect=1.8, legend=False)
    g.set(ylim=(0, 5.2))
    for (row, col), ax in np.ndenumerate(g.axes):
        ax.set_title(g.col_names[col] if row == 0 else "", fontsize="medium")
        ax.set_xlabel("author" if row == len(g.row_names) - 1 else "")
        ax.set_ylabel(textwrap.fill(f"{g.row_names[row]} (1-5)", 16) if col == 0 else "")
    # under the panels: beside them the legend would take a column's width from them
    # proxies in the colours drawn (seaborn desaturates a palette's bars): one container per hue level
    full = next(ax for ax in g.axes.flat if len(ax.containers) == len(hues))
    handles = [Patch(facecolor=c.patches[0].get_facecolor(), label=h) for h, c in zip(hues, full.containers)]
    legend_below(g.axes[-1, 0], handles=handles, fontsize="small", title="factuality")
    return state_n(g.figure, "Mean rating per author and factuality (bars: 95% CI, bootstrap over items)\n"
                   + _ratings_n(ratings))


def _ratings_n(ratings: pd.DataFrame) -> str:
    """n in items, and the ratings whose reply did not parse."""
    unparsed = int((~ratings["parsed"].fillna(False).astype(bool)).sum())
    return n_label(ratings["item_id"].nunique(), "items", failed=unparsed, of=len(ratings), what="ratings unparsed")


def coverage_line(ratings: pd.DataFrame) -> str:
    """One line: parse failures after retries and how often the reply-token expected score exists."""
    return (f"parse failures after retries: {1 - ratings['parsed'].mean():.1%}; reply-token expected score "
            f"available for {ratings['expected_score'].notna().mean():.1%} of replies")


def parsed_vs_next_token_figure(ratings: pd.DataFrame):
    """Parsed score against the next-token expected score after ###, one dot per parsed reply."""
    fig, ax = plt.subplots(figsize=(4.5, 3.5))
    sns.stripplot(data=ratings.dropna(subset=["score"]), x="score", y="lik_expected", hue="setting",
                  dodge=True, ax=ax)
    ax.set(xlabel="parsed score (paper method)", ylabel=EXPECTED_SCORE_NAMES["lik_expected"], ylim=(1, 5),
           title="Parsed score vs the likelihood's expected score")
    parsed = int(ratings["score"].notna().sum())
    return state_n(fig, n_label(parsed, "parsed ratings", failed=len(ratings) - parsed, of=len(ratings),
                                what="ratings unparsed"))


def self_by_combo_figure(by_combo: pd.DataFrame, combos, methods=(PAPER, LIKELIHOOD)):
    """v2 Figure 3: self-preference rate per factuality combination and evaluator, with the table's
    95% intervals (questions resampled), one panel per method of `methods` that `by_combo` holds (its
    `method` column, from `preference_table_by_method`; a table without one is the paper's). The
    likelihood decides no pair whose passages carry the same answer (TT, most FF): those groups show n=0.
    Several datasets: one series per evaluator and dataset, each with its own interval."""
    if "method" not in by_combo:
        by_combo = by_combo.assign(method=PAPER)
    shown = [m for m in methods if m in set(by_combo["method"])] or [PAPER]
    frames = {m: by_combo[by_combo["method"] == m] for m in shown}
    combos = list(combos)

    def draw(ax, method):
        table = frames[method]
        n = table.groupby("combo")["n_valid"].sum() if len(table) else pd.Series(dtype=float)
        ax.set_xticks(np.arange(len(combos)), [f"{c}\nn={int(n.get(c, 0))}" for c in combos])
        ax.set_xlim(-0.5, len(combos) - 0.5)  # every combination keeps its slot, n=0 ones too
        if not table["self_rate"].notna().any():
            return False
        # one series per evaluator, or per evaluator and dataset when a combination has several rows:
        # averaging interval bounds across datasets gives no interval of anything
        several = table.duplicated(["combo", "evaluator"]).any() and "dataset" in table
        series = table.assign(series=table["evaluator"].astype(str) + (" / " + table["dataset"].astype(str) if several else ""))
        if series.duplicated(["combo", "series"]).any():  # still several rows: their mean rate, no interval
            series = series.groupby(["combo", "series"], as_index=False)["self_rate"].mean().assign(
                self_ci_low=np.nan, self_ci_high=np.nan)
        _errorbars(ax, series, "combo", "series", "self_rate", "self_ci_low", "self_ci_high", combos,
                   list(series["series"].unique()), labels=False)
        ax.legend(title="evaluator / dataset" if several else "evaluator", fontsize="small")
        return True

    fig = method_panels(shown, draw, "self-preference", "factuality (self, other)")
    return state_n(fig, "\n".join(f"{m}: {pairs_n(t, undecided=m != PAPER)}" if len(frames) > 1 else pairs_n(t)
                                  for m, t in frames.items()))


def pairs_n(table: pd.DataFrame, undecided: bool = False) -> str:
    """n of a preference table in valid pairs, and the judged pairs whose reply did not parse (or, for a
    method that parses nothing, `undecided`: the pairs it did not decide, e.g. same answer in both)."""
    count = lambda col: int(table[col].sum()) if col in table else 0  # noqa: E731
    if undecided:
        return n_label(count("n_valid"), "valid pairs", failed=count("n_pairs") - count("n_valid"),
                       of=count("n_pairs"), what="pairs undecided")
    return n_label(count("n_valid"), "valid pairs", failed=count("n_unparsed"), of=count("n_pairs"),
                   what="pairs unparsed")


def preferences_by_method_figure(both: pd.DataFrame):
    """Self / order / factual preference rate per method (pooled over authors and datasets' rows)."""
    rates = both.melt(id_vars=["method", "evaluator"], value_vars=["self_rate", "order_rate", "fact_rate"],
                      var_name="preference", value_name="rate")
    rates["preference"] = rates["preference"].str.replace("_rate", "")
    fig, ax = plt.subplots(figsize=(5.0, 3.2))
    if rates["rate"].notna().any():
        sns.barplot(data=rates, x="preference", y="rate", hue="method", errorbar=None, ax=ax)
        legend_below(ax, fontsize="small")  # three method names beside the bars would widen it past a column
    ax.axhline(0.5, color="grey", lw=1, ls="--")
    ax.set(ylim=(0, 1), ylabel="rate (pooled over authors)", xlabel="preference")
    per_method = [f"{m}: {pairs_n(part, undecided=m != PAPER)}" for m, part in both.groupby("method", sort=False)]
    return state_n(fig, "\n".join(per_method) or pairs_n(both))


V1_TABLES = {  # name: (combos kept, extra keys, preferences)
    "06_v1_table9_front": (None, [], ("order",)),
    "06_v1_table10_self_vs_order": (("TT", "FF"), ["order"], ("order", "self")),
    "06_v1_table11_fact_vs_self": (("TF", "FT"), [], ("fact", "self")),
    "06_v1_table13_both_false": (("FF",), ["order"], ("order", "self")),
}


def v1_tables(scored: pd.DataFrame) -> dict:
    """v1 Tables 9, 10, 11 and 13 from the scored pairs, per dataset x evaluator x other author."""
    from .tables import preference_table

    out = {}
    for name, (combos, extra, prefs) in V1_TABLES.items():
        pairs = scored if combos is None else scored[scored["combo"].isin(combos)]
        out[name] = preference_table(pairs, ["dataset", "evaluator", "b_author"] + extra, prefs=prefs)
    return out
