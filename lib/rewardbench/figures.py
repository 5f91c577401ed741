"""Figures of the reward-model notebooks (house style is applied by the notebook)."""
from __future__ import annotations


import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from lib.report.findings import SMOKE_N
from lib.report.intervals import unit_count
from lib.report.figure_checks import COLUMN_WIDTH
from lib.report.legends import legend_below
from lib.report.plotting import FIGSIZE, failed_label, interval_errors, n_label, note_empty, state_n
from lib.rewardbench.accuracy_tables import never_parsed


def _yerr(df: pd.DataFrame, value: str, low: str, high: str) -> np.ndarray:
    """Asymmetric error bars from interval columns (zero where the interval is unknown, or withheld by
    the findings' rule for the units the frame counts)."""
    count = unit_count(df, value)
    return interval_errors(df[value], df[low], df[high], name=value, n=None if count is None else df[count])


TICK_NAMES = {"Overall": "overall"}  # the paper's table heading, lower-case beside its categories


def grouped_bars(df: pd.DataFrame, x: str, hue: str, value: str = "accuracy", ax=None,
                 low: str = "ci_low", high: str = "ci_high", chance: float | None = 0.5):
    """Bars of `value` per `x` and `hue` with CI whiskers, a dashed chance line, and the legend under the panel."""
    ax = ax or plt.subplots(figsize=FIGSIZE)[1]
    xs = list(dict.fromkeys(df[x]))
    # a reward model with no value anywhere (a judge that parsed no verdict) takes no slot: `with_n` names it
    hues = [h for h in dict.fromkeys(df[hue]) if df.loc[df[hue] == h, value].notna().any()]
    width = 0.8 / max(len(hues), 1)
    for k, h in enumerate(hues):
        part = df[df[hue] == h].set_index(x).reindex(xs)
        pos = np.arange(len(xs)) + (k - (len(hues) - 1) / 2) * width
        values = part[value].dropna()
        zero = len(values) > 0 and (values == 0).all()
        # bars of height 0 in every group: the legend says so
        bars = ax.bar(pos, part[value], width, label=f"{h} (0 in every group)" if zero else h,
                      yerr=_yerr(part, value, low, high), capsize=2)
        at_zero = (part[value] == 0).to_numpy()
        if at_zero.any():  # a bar of height 0 draws nothing: a tick at 0 marks where it stands
            ax.plot(pos[at_zero], np.zeros(at_zero.sum()), ls="none", marker="_", ms=10, mew=2,
                    color=bars.patches[0].get_facecolor(), gid="zero mark")
    ax.set_xticks(np.arange(len(xs)), [TICK_NAMES.get(str(v), v) for v in xs])
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
    """The figure with its n (pairs, unparsed judge verdicts) written above it, and the judges it
    leaves out because they parsed no verdict (`accuracy_tables.never_parsed`)."""
    gone = [rm for rm, g in results.groupby("rm", sort=False) if never_parsed(g)] if "rm" in results else []
    return state_n(fig, results_n(results) + _left_out(gone))


COLUMN_FIGSIZE = (COLUMN_WIDTH, 2.4)  # inches: one panel of a paper's column (the legend goes below it)
NO_SCORES = "pairs carry no scores"


DIFFICULTY_TITLE = "Reward-model accuracy by pair difficulty (bars: 95% CI over questions)"


def difficulty_figure(by_gap: pd.DataFrame, by_length: pd.DataFrame, results: pd.DataFrame):
    """Figure 5 (accuracy by score gap) over the length-gap panel (beyond the paper), stacked at a
    column's width with one legend under them; a panel without data is left out and the title of the
    one kept says why."""
    shown = [(df, xlabel, title) for df, xlabel, title in
             ((by_gap, "score gap, chosen - rejected", "by score gap"),
              (by_length, "length gap (words)", "by length gap (extra)")) if not df.empty]
    if not shown:  # nothing to plot: one panel saying so (RunOutputs.figure does not save it)
        fig, ax = plt.subplots(figsize=COLUMN_FIGSIZE)
        note_empty(ax, f"{NO_SCORES}, and no pair has a length gap")
        return with_n(fig, results)
    # a wrapped title of three lines takes height from its panel: the figure gets it back
    height = 2.4 * len(shown) + (0.5 if by_gap.empty else 0.0)
    fig, axes = plt.subplots(len(shown), 1, figsize=(COLUMN_WIDTH, height), sharey=True, squeeze=False)
    for ax, (df, xlabel, title) in zip(axes[:, 0], shown):
        binned_lines(df, xlabel, ax=ax)
        ax.get_legend().remove()  # one legend for both panels, under the last
        ax.set_title(f"Accuracy {title}", fontsize="medium")
    legend_below(axes[-1, 0], fontsize="small")
    # what is left out goes with the n, in the figure's small heading, not in a panel title
    missing = f"; score-gap panel left out: {NO_SCORES}" if by_gap.empty else ""
    return state_n(fig, f"{DIFFICULTY_TITLE}\n{results_n(results)}{missing}{_dropped(results, by_gap, by_length)}")


def _dropped(results: pd.DataFrame, *tables: pd.DataFrame) -> str:
    """'; left out (no verdict parsed): judge:...' for reward models in `results` that no table plots."""
    plotted = set().union(*(set(t["rm"]) for t in tables if len(t)))
    gone = [rm for rm in dict.fromkeys(results["rm"]) if rm not in plotted] if "rm" in results else []
    return _left_out(gone)


def _left_out(gone: list) -> str:
    """The heading's line naming the reward models a figure leaves out (none: "")."""
    return f"\nleft out, no verdict parsed: {', '.join(map(str, gone))}" if gone else ""


MARKERS = "osD^vP*X"


def best_of_n_figure(bon: pd.DataFrame, basis: str, n_samples: int):
    """Each reward model's accuracy against its best-of-N recall gain (95% interval; the paper's Figure 6),
    one marker and colour per model named in a legend under the panel (labels beside close points would
    overlap). `basis` says which accuracy (`best_of_n.accuracy_for_figure6`): the x label names its pairs
    in a few words, the heading says why when it is not the paper's subset."""
    # taller than wide: the heading, the x label and a legend of one model to a row below take about
    # 2 in, and the panel keeps about 1.5 in for its y label on two lines
    fig, ax = plt.subplots(figsize=(COLUMN_WIDTH, 3.6))
    for k, r in enumerate(bon.to_dict("records")):
        yerr = _yerr(pd.DataFrame([r]), "gain", "gain_ci_low", "gain_ci_high")
        # hollow markers: models at the same point stay visible one inside the other
        ax.errorbar([r["accuracy"]], [r["gain"]], yerr=yerr, fmt=MARKERS[k % len(MARKERS)], capsize=3,
                    mfc="none", mew=1.5, ms=7 - k % 3, label=r["rm"])
    ax.axhline(0, ls="--", c="grey", lw=1)
    overall = basis.startswith("overall")
    ax.set(xlabel="accuracy, all pairs" if overall else "accuracy, multi-hop reasoning pairs",
           ylabel="recall gain over a random pick")
    legend_below(ax, ncols=1, fontsize="small")
    n = int(bon["items"].max()) if len(bon) else 0
    if n < SMOKE_N:
        # a smoke-size run's points are no result: on their rates' whole range (accuracy 0-1, a recall
        # gain -1 to 1) they are not drawn zoomed, as if their spread meant something
        ax.set(xlim=(0, 1), ylim=(-1, 1))
    lines = [f"Accuracy vs best-of-{n_samples} gain (bars: 95% CI over questions; none below 10)", n_label(n, "questions")]
    if overall:  # the paper's accuracy is on its multi-hop reasoning pairs
        lines.append("the paper takes its multi-hop reasoning pairs; these pairs have none")
    return state_n(fig, "\n".join(lines))
