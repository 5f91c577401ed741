"""Figures of the reward-model notebooks (house style is applied by the notebook)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from lib.plotting import FIGSIZE, failed_label, legend_below, n_label, state_n


def _yerr(df: pd.DataFrame, value: str, low: str, high: str) -> np.ndarray:
    """Asymmetric error bars from interval columns (zero where the interval is unknown)."""
    lo = (df[value] - df[low]).clip(lower=0).fillna(0)
    hi = (df[high] - df[value]).clip(lower=0).fillna(0)
    return np.vstack([lo, hi])


def grouped_bars(df: pd.DataFrame, x: str, hue: str, value: str = "accuracy", ax=None,
                 low: str = "ci_low", high: str = "ci_high", chance: float | None = 0.5):
    """Bars of `value` per `x` and `hue` with CI whiskers, a dashed chance line, and the legend under the panel."""
    ax = ax or plt.subplots(figsize=FIGSIZE)[1]
    xs = list(dict.fromkeys(df[x]))
    hues = list(dict.fromkeys(df[hue]))
    width = 0.8 / max(len(hues), 1)
    for k, h in enumerate(hues):
        part = df[df[hue] == h].set_index(x).reindex(xs)
        pos = np.arange(len(xs)) + (k - (len(hues) - 1) / 2) * width
        ax.bar(pos, part[value], width, label=h, yerr=_yerr(part, value, low, high), capsize=2)
    ax.set_xticks(np.arange(len(xs)), xs)
    if chance is not None:
        ax.axhline(chance, ls="--", c="grey", lw=1)
    legend_below(ax, fontsize="small")  # reward-model names are long: beside the bars they would widen the figure past a column
    return ax


def binned_lines(df: pd.DataFrame, xlabel: str, ax=None):
    """Accuracy per bin (x = mean of the bin) for each reward model, with CI bands."""
    ax = ax or plt.subplots(figsize=FIGSIZE)[1]
    for rm, part in df.groupby("rm", sort=False):
        part = part.sort_values("mid")
        ax.errorbar(part["mid"], part["accuracy"], yerr=_yerr(part, "accuracy", "ci_low", "ci_high"),
                    marker="o", capsize=2, label=rm)
    ax.axhline(0.5, ls="--", c="grey", lw=1)
    ax.set(xlabel=xlabel, ylabel="accuracy", ylim=(-0.05, 1.05))
    ax.legend(fontsize="small", frameon=False, loc="best")
    return ax


def results_n(results: pd.DataFrame) -> str:
    """n of pair results in pairs, and the generative judges' verdicts (two orders per pair) that did
    not parse."""
    text = n_label(results["id"].nunique() if len(results) else 0, "pairs")
    judges = results[results["kind"] == "judge"] if "kind" in results else results.iloc[:0]
    if len(judges) and "unparsed" in judges:
        text += "; " + failed_label(judges["unparsed"].sum(), 2 * len(judges), "judge verdicts unparsed")
    return text


def with_n(fig, results: pd.DataFrame):
    """The figure with its n (pairs, unparsed judge verdicts) written above it."""
    return state_n(fig, results_n(results))
