"""Figures of the self-preference study shared by notebooks 07 and 08: a preference rate per group."""
from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from lib.plotting import n_label, state_n

from .tables import attach_knowledge

KNOWLEDGE_ORDER = ["none", "partial", "full", "unknown"]


def preference_bars(rows: pd.DataFrame, x: str, value: str, ylabel: str, xlabel: str = "",
                    hue: str = "evaluator", order: list | None = None, judged: int | None = None,
                    what: str = "pairs without a readable choice"):
    """Mean of a 0/1 column per x and hue with bootstrap 95% intervals over rows (pairs), the 50% line
    of no preference; a figure without rows says so instead of showing empty axes. The figure states n
    (pairs plotted) and, given `judged` (pairs judged), how many of them gave no usable reply."""
    fig, ax = plt.subplots(figsize=(6, 3.2))
    if len(rows):
        sns.barplot(data=rows, x=x, y=value, hue=hue, errorbar=("ci", 95), order=order, ax=ax)
    else:
        # above the 50% line, and no meaningless x ticks on an empty axis
        ax.text(0.5, 0.75, "no valid pairs", ha="center", va="center", transform=ax.transAxes)
        ax.set_xticks([])
    ax.axhline(0.5, color="grey", lw=1, ls="--")
    ax.set(ylim=(0, 1), ylabel=ylabel, xlabel=xlabel)
    failed = None if judged is None else judged - len(rows)
    return state_n(fig, n_label(len(rows), "pairs", failed=failed, of=judged, what=what))


def fact_by_knowledge(scored: pd.DataFrame, knowledge: pd.DataFrame):
    """Notebook 07's figure: factual preference (true passage used) per knowledge level and evaluator."""
    judged = attach_knowledge(scored, knowledge)
    if {"a_fact", "b_fact"} <= set(judged):  # only a true-vs-false pair has a fact choice
        judged = judged[judged["a_fact"] != judged["b_fact"]]
    rows = judged.dropna(subset=["chose_true"])
    rows = rows.assign(fact_pref=rows["chose_true"].astype(float))
    order = [level for level in KNOWLEDGE_ORDER if level in set(rows["level"])]
    return preference_bars(rows, "level", "fact_pref", "factual preference", "prior knowledge", order=order,
                           judged=len(judged), what="true-vs-false pairs without a valid reply")


def style_preference(scored: pd.DataFrame):
    """Notebook 08's figure: preference for the styled (gen-by-QA or long) passage per kind and evaluator."""
    rows = scored[scored["valid"]].assign(style_pref=lambda d: d["chose_a"].astype(float)) if len(scored) else scored
    return preference_bars(rows, "kind", "style_pref", "preference for the styled passage", judged=len(scored),
                           what="pairs without a valid reply")
