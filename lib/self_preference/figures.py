"""Figures of the self-preference study: a preference rate per group, one panel per method (the paper's
parsed reply, and the likelihood choice beside it where the paper's method can yield nothing)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from lib.report.plotting import legend_below, n_label, note_empty, state_n

from .likelihood import likelihood_view
from .tables import attach_knowledge

KNOWLEDGE_ORDER = ["none", "partial", "full", "unknown"]
PAPER = "paper (parsed reply)"
LIKELIHOOD = "likelihood sum"  # the label of `likelihood.method_views`
NO_PAPER_REPLY = "no reply in the paper's format: see the likelihood panel"
EMPTY_NOTES = {PAPER: "no reply in the paper's format", LIKELIHOOD: "no pair decided by likelihood"}


def method_panels(methods: list[str], draw, ylabel: str, xlabel: str = "", notes: dict | None = None):
    """One panel per method side by side, sharing the 0-1 rate axis and the dashed 50% line of no
    preference. `draw(ax, method)` draws a panel and returns whether it drew any value; an empty
    panel says why in words (`notes`, else EMPTY_NOTES), the paper's pointing to the likelihood
    panel when that has data. One legend, on the last panel with data."""
    notes = {**EMPTY_NOTES, **(notes or {})}
    fig, axes = plt.subplots(1, len(methods), figsize=(5.0 if len(methods) > 1 else 4.0, 3.0), sharey=True,
                             squeeze=False)
    axes = list(axes[0])
    drawn = [bool(draw(ax, m)) for ax, m in zip(axes, methods)]
    for ax, method, ok in zip(axes, methods, drawn):
        ax.axhline(0.5, color="grey", lw=1, ls="--")
        ax.set(ylim=(0, 1), xlabel=xlabel, ylabel="")
        if len(methods) > 1:
            ax.set_title(method, fontsize="medium")
        if not ok:
            note_empty(ax, NO_PAPER_REPLY if method == PAPER and any(drawn) else notes.get(method, "no valid pairs"))
    axes[0].set_ylabel(ylabel)
    full = [ax for ax, ok in zip(axes, drawn) if ok]
    for ax in axes:
        if ax.get_legend() is not None and (not full or ax is not full[-1]):
            ax.get_legend().remove()
    if full and full[-1].get_legend() is not None:
        legend_below(full[-1], fontsize="small")  # beside the panels it would widen the figure past a column
    return fig


def _with_n(values: list, counts: pd.Series) -> list[str]:
    """Tick labels 'TT\\nn=12': each group's n below its name."""
    return [f"{v}\nn={int(counts.get(v, 0))}" for v in values]


def preference_bars(frames: dict, x: str, value: str, ylabel: str, xlabel: str = "", hue: str = "evaluator",
                    order: list | None = None, judged: dict | None = None, what: dict | None = None,
                    notes: dict | None = None, title: str = ""):
    """Mean of a 0/1 column per x and hue with bootstrap 95% intervals over rows (pairs), one panel per
    method ({method: rows}), each x group's n under its name. The figure states n (pairs plotted) per
    method and, given `judged` ({method: pairs judged}), how many of them gave no usable choice, under
    its caption-like `title`."""
    judged, what = judged or {}, what or {}

    def draw(ax, method):
        rows = frames[method]
        if not len(rows):
            return False
        xs = order or list(dict.fromkeys(rows[x]))
        sns.barplot(data=rows, x=x, y=value, hue=hue, errorbar=("ci", 95), order=xs, ax=ax, seed=0)
        ax.set_xticks(range(len(xs)), _with_n(xs, rows[x].value_counts()))
        return True

    fig = method_panels(list(frames), draw, ylabel, xlabel, notes)
    lines = []
    for method, rows in frames.items():
        of = judged.get(method)
        text = n_label(len(rows), "pairs", failed=None if of is None else of - len(rows), of=of,
                       what=what.get(method, "without a valid reply"))
        lines.append(f"{method}: {text}" if len(frames) > 1 else text)
    return state_n(fig, "\n".join([title] * bool(title) + lines))


def _methods(scored: pd.DataFrame) -> dict:
    """{method: pairs as it decides them}: the paper's, and the likelihood's where it ran."""
    if "lik_choice" in scored and scored["lik_choice"].notna().any():
        return {PAPER: scored, LIKELIHOOD: likelihood_view(scored)}
    return {PAPER: scored}


def fact_by_knowledge(scored: pd.DataFrame, knowledge: pd.DataFrame):
    """Notebook 07's figure: factual preference (true passage used) per knowledge level and evaluator,
    by the paper's parsed reply and, where it ran, by likelihood; n counts true-vs-false pairs."""
    frames, judged = {}, {}
    for method, pairs in _methods(scored).items():
        pairs = attach_knowledge(pairs, knowledge)
        if {"a_fact", "b_fact"} <= set(pairs):  # only a true-vs-false pair has a fact choice
            pairs = pairs[pairs["a_fact"] != pairs["b_fact"]]
        rows = pairs.dropna(subset=["chose_true"])
        frames[method], judged[method] = rows.assign(fact_pref=rows["chose_true"].astype(float)), len(pairs)
    levels = set().union(*(set(f["level"]) for f in frames.values()))
    order = [level for level in KNOWLEDGE_ORDER if level in levels]
    return preference_bars(frames, "level", "fact_pref", "factual preference", "prior knowledge", order=order,
                           judged=judged, what={PAPER: "without a valid reply", LIKELIHOOD: "undecided"},
                           title="Factual preference by prior knowledge (bars: 95% bootstrap CI over pairs)")


# Both passages of a style pair carry the same answer, so the likelihood of the answer cannot tell them apart.
STYLE_NO_REPLY = ("no reply in the paper's format; the likelihood cannot decide these pairs "
                  "(both passages carry the same answer)")


def style_preference(scored: pd.DataFrame):
    """Notebook 08's figure: preference for the styled (gen-by-QA or long) passage per kind and evaluator
    (the paper's parsed reply only: see STYLE_NO_REPLY)."""
    rows = scored[scored["valid"]].assign(style_pref=lambda d: d["chose_a"].astype(float)) if len(scored) else scored
    return preference_bars({PAPER: rows}, "kind", "style_pref", "preference for the styled passage",
                           judged={PAPER: len(scored)}, what={PAPER: "pairs without a valid reply"},
                           notes={PAPER: STYLE_NO_REPLY},
                           title="Preference for the styled passage (bars: 95% bootstrap CI over pairs)")
