"""Figures of notebooks 10 and 11 from their summary tables: the paper's metrics, with intervals.

Set forms plot the paper's F1 (harmonic mean of the averaged P and R, `lib.utility.evaluate`); the mean
of per-question F1 appears only in its own panel labelled "extra". Ranking forms plot NDCG@1. Every
figure has a failure-rate panel, since the metrics average the readable replies only. Intervals are
the summary's bootstrap (metrics) and Wilson (failure rate) 95% intervals, not seaborn's.
"""
from __future__ import annotations

import textwrap

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.patches import Patch

from lib.report.findings import SMOKE_N
from lib.report.labels import label
from lib.report.figure_checks import COLUMN_WIDTH
from lib.report.layout import use_constrained_layout
from lib.report.legends import legend_below
from lib.report.plotting import failed_label, interval_errors, n_label, note_empty, state_n
from lib.utility.evaluate import SET_EXTRA
from lib.stats import shown_interval

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


def _legend_below(fig, title: str) -> None:
    """One legend for all panels, centred under them (it adds no width; constrained layout makes its
    room), from the first panel with entries."""
    for ax in fig.axes:
        handles, labels = ax.get_legend_handles_labels()
        if handles:
            fig.legend(handles, labels, title=title, loc="outside lower center",
                       ncols=min(len(labels), 3), fontsize="small", title_fontsize="small")
            return


def _heading(title: str, counts: str) -> str:
    """A figure's small heading: its caption-like title (when given) over its counts."""
    return f"{title}\n{counts}" if title else counts


MIN_READABLE = 2  # readable question judgments below which a figure shows the pipeline failing, not a result


def not_enough_readable(long: pd.DataFrame) -> str | None:
    """'not enough readable replies: 0 of 3 question judgments readable' when a `panels` table rests
    on fewer than MIN_READABLE readable judgments in all (a figure of it would only plot failures), else None."""
    rows = long[long["panel"].str.endswith(FAILURES)] if "panel" in long and len(long) else long
    if len(rows) == 0 or "n" not in rows or "n_failed_questions" not in rows:
        return None if len(rows) else "not enough readable replies: no question judged"
    asked = int(rows["n"].sum())
    readable = asked - int(rows["n_failed_questions"].sum())
    if readable >= MIN_READABLE:
        return None
    return f"not enough readable replies: {readable} of {asked} question judgments readable"


def _note_figure(text: str):
    """One panel saying why there is no figure (RunOutputs.figure prints it and saves nothing)."""
    fig, ax = plt.subplots(figsize=(COLUMN_WIDTH, 1.6))
    note_empty(ax, text)
    return fig


def bar_figure(long: pd.DataFrame, x: str, hue: str, col: str = "panel", row: str | None = None, title: str = ""):
    """Grouped bars of `value` with [lo, hi] error bars (95% intervals: bootstrap over questions for the
    metrics, Wilson for failure rates), one panel per `col` (and `row`) value, two panels to a row, one
    legend under them, the caption-like `title` over the n; a note instead when too few replies were readable."""
    short = not_enough_readable(long)
    if short:
        return _note_figure(short)
    hues = list(dict.fromkeys(long[hue]))
    fig = None
    for ax, sub, panel_title in _facets(long, row, col):
        fig = ax.figure
        xs = list(dict.fromkeys(sub[x]))
        width = 0.8 / max(len(hues), 1)
        for k, h in enumerate(hues):
            part = sub[sub[hue] == h].set_index(x).reindex(xs)
            pos = np.arange(len(xs)) - 0.4 + width * (k + 0.5)
            err = interval_errors(part["value"], part["lo"], part["hi"], name=str(h),
                                  n=part["n"] if "n" in part else None)
            ax.bar(pos, part["value"], width, yerr=err, capsize=2, label=str(h))
        ax.set_xticks(np.arange(len(xs)), [str(v) for v in xs])
        # every group's full slot: a hue with no bar here must not pull its group's tick to the edge
        ax.set_xlim(-0.5, max(len(xs), 1) - 0.5)
        ax.set_title(panel_title, fontsize="small")
        ax.set_xlabel(x)
    if fig is not None:
        _legend_below(fig, hue)
        state_n(fig, _heading(title, questions_n(long) + "; bars: 95% intervals"))
    return fig


def line_figure(long: pd.DataFrame, x: str, hue: str, col: str = "panel", row: str | None = None,
                title: str = ""):
    """Lines of `value` over `x` with a [lo, hi] band, one panel per `col` (and `row`) value, two panels
    to a row, one legend under them, the caption-like `title` over the n; a note instead when too few
    replies were readable."""
    short = not_enough_readable(long)
    if short:
        return _note_figure(short)
    fig = None
    for ax, sub, panel_title in _facets(long, row, col):
        fig = ax.figure
        for h, part in sub.sort_values(x).groupby(hue, sort=False):
            ax.plot(part[x], part["value"], marker="o", label=str(h))
            if "n" in part:  # the findings' rule: no band where it would withhold the interval
                shown = [shown_interval(n, a, b) for n, a, b in zip(part["n"], part["lo"], part["hi"])]
                part = part.assign(lo=[a for a, _, _ in shown], hi=[b for _, b, _ in shown])
            ax.fill_between(part[x], part["lo"], part["hi"], alpha=0.2)
        ax.set_title(panel_title, fontsize="small")
        ax.set_xlabel(x)
    if fig is not None:
        _legend_below(fig, hue)
        state_n(fig, _heading(title, questions_n(long, per="point") + "; bands: 95% intervals"))
    return fig

FEW = 5  # readable questions: a bar resting on fewer is drawn hollow and hatched, not a finding
FEW_LABEL = f"n < {FEW}: not a finding"
YLABEL = "mean (readable)"  # the metric itself is in each panel's title, the readable n above


def headline_bars(per_q: pd.DataFrame, value: str = "headline", seed: int = 0) -> pd.DataFrame:
    """Per (form, source, judgment): the readable questions `n` (a NaN `value` is an unreadable reply),
    their mean `value` and its bootstrap 95% interval over questions (none where the findings withhold one)."""
    from lib.stats import bootstrap_ci

    recs = []
    for (form, source, judgment), g in per_q.groupby(["form", "source", "judgment"], sort=False):
        vals = g[value].dropna().to_numpy(float)
        lo, hi, _ = shown_interval(len(vals), *bootstrap_ci(vals, seed=seed))
        recs.append({"form": form, "source": source, "judgment": judgment, "asked": len(g), "n": len(vals),
                     "value": vals.mean() if len(vals) else np.nan, "lo": lo, "hi": hi})
    return pd.DataFrame(recs)


def _n_texts_apart(ax) -> None:
    """The n written over each bar turns upright where, side by side, two would overlap."""
    renderer = ax.figure.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in ax.texts]
    if any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:]):
        for t in ax.texts:
            t.set_rotation(90)
        # upright, the tallest n may reach over the panel's top into its title: the axis grows to hold it
        ax.figure.canvas.draw()
        tops = [ax.transData.inverted().transform(t.get_window_extent(renderer).p1)[1] for t in ax.texts]
        if tops and max(tops) > ax.get_ylim()[1]:
            ax.set_ylim(ax.get_ylim()[0], 1.15 * max(tops))


def _bar_panel(ax, bars: pd.DataFrame, judgments: list, colors: dict, top: float) -> None:
    """Bars per source and judgment with their intervals; each bar's n written over it; a bar of fewer
    than FEW readable questions hollow and hatched; a bar of none only its 'n=0'."""
    sources = list(dict.fromkeys(bars["source"]))
    width = 0.8 / max(len(judgments), 1)
    for k, j in enumerate(judgments):
        part = bars[bars["judgment"] == j].set_index("source").reindex(sources)
        for x, r in zip(np.arange(len(sources)) - 0.4 + width * (k + 0.5), part.to_dict("records")):
            n = 0 if pd.isna(r["n"]) else int(r["n"])
            if n:
                few = n < FEW
                err = interval_errors(r["value"], r["lo"], r["hi"], name=str(j), n=n)
                ax.bar(x, r["value"], width, yerr=err, capsize=2, lw=1, edgecolor=colors[j],
                       facecolor=matplotlib.colors.to_rgba(colors[j], 0.2 if few else 1.0), hatch="////" if few else None)
            shown = 0.0 if not n else max(r["value"], r["hi"]) if pd.notna(r["hi"]) else r["value"]
            ax.annotate(f"n={n}", (x, shown), xytext=(0, 2), textcoords="offset points", ha="center",
                        va="bottom", fontsize="x-small")
    ax.set_xticks(np.arange(len(sources)), [str(s) for s in sources])
    ax.set_xlim(-0.5, max(len(sources), 1) - 0.5)
    ax.set_ylim(0, top * 1.25)  # headroom for the n over the tallest bars


RQ1_TITLE = "Relevance vs utility per dataset (bars: 95% CI, bootstrap over questions)"


def relevance_vs_utility_figure(per_q: pd.DataFrame, summary: pd.DataFrame):
    """Notebook 10's figure: F1 per question (set forms) and NDCG@1 (rank forms) per dataset, relevance vs
    utility prompts, means over readable replies with 95% intervals over questions, one panel per form
    with a readable reply (the others are named above). Each bar says its n of readable questions; one
    on fewer than FEW is hatched ('not a finding'). When no reply parsed at all, the failure rates (over
    all questions) stand in and the title says so, with n."""
    from lib.utility.evaluate import HEADLINE

    bars, ylabel, lines = headline_bars(per_q), YLABEL, []
    readable = bars.groupby("form", sort=False)["n"].sum()
    if readable.sum() == 0:  # every reply unreadable: failure rates instead of empty bars, and said
        bars = headline_bars(per_q.assign(rate=100.0 * per_q["failed"].astype(bool)), "rate")
        ylabel, titles = "failure rate (%)", {}
        lines += [f"no reply parsed (0 of {len(per_q)}): failure rates shown", questions_n(summary)]
    else:
        if (readable == 0).any():
            lines.append("no readable reply, not shown: " + ", ".join(readable.index[readable == 0]))
        bars = bars[bars["form"].isin(readable.index[readable > 0])]
        titles = {f: HEADLINE.get(f, "score") for f in readable.index}
        lo, hi = int(bars["n"].min()), int(bars["n"].max())
        n_text = (n_label(hi, "readable questions per bar") if lo == hi
                  else f"n = {lo} to {hi} readable questions per bar")
        lines.insert(0, f"{n_text} (of\u00a0{int(bars['asked'].max())})")  # no-break: "(of" never ends a line
        lines.insert(1, failed_label(int(per_q["failed"].astype(bool).sum()), len(per_q), "question judgments failed"))
    forms = list(dict.fromkeys(bars["form"]))
    judgments = list(dict.fromkeys(bars["judgment"]))
    colors = dict(zip(judgments, sns.color_palette(n_colors=max(len(judgments), 1))))
    top = max(float(np.nanmax(bars[["value", "hi"]].to_numpy(float), initial=0.0)), 1e-9)
    # panels stacked at a column's width: side by side, three dataset names would not fit under each
    fig, axes = plt.subplots(len(forms), 1, squeeze=False, sharey=True, figsize=(COLUMN_WIDTH, 0.4 + 2.2 * len(forms)))
    for ax, form in zip(axes[:, 0], forms):
        _bar_panel(ax, bars[bars["form"] == form], judgments, colors, top)
        ax.set_title(f"{form}: {titles[form]}" if form in titles else str(form), fontsize="small")
        ax.set(xlabel="dataset", ylabel=ylabel)
    use_constrained_layout(fig)  # the n over each bar is measured at the panels' laid-out width
    for ax in axes[:, 0]:
        _n_texts_apart(ax)
    handles = [Patch(facecolor=colors[j], edgecolor=colors[j], label=str(j)) for j in judgments]
    if ((bars["n"] > 0) & (bars["n"] < FEW)).any():
        handles.append(Patch(facecolor="none", edgecolor="0.3", hatch="////", label=FEW_LABEL))
    legend_below(axes[-1, 0], ncols=2, handles=handles, title="judgment", fontsize="small", title_fontsize="small")
    # wrapped to the figure's width (a small character is about 0.55 em: at 0.5 em the lines came out too
    # wide, and the finishing pass wrapped each again, leaving one word on a line)
    chars = int(fig.get_figwidth() * 72 / (0.55 * 9.6))
    return state_n(fig, "\n".join(textwrap.fill(line, chars) for line in [RQ1_TITLE] + lines))


K_CURVE_TITLE = "Answer score over k, the number of shuffled orders voted (no intervals: one run per k)"


def k_curve_figure(curve: pd.DataFrame, score: str = "score", ylabel: str = "answer score", title: str = K_CURVE_TITLE,
                   scale: tuple[float, float] = (0.0, 100.0)):
    """Notebook 12's figure: the answer score over k (shuffles voted), one line per dataset and one panel
    per model, on the score's whole `scale` (a flat line of a few questions is not zoomed into as if its
    wiggles were results; below SMOKE_N questions the heading says it is a smoke test). A series measured
    at one k only is a dot, not a line, and its panel's x label says that it is one point, not a curve."""
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
        ax.set(title=str(model), xlabel=xlabel, ylim=scale)
        if len(part):
            ax.legend(title="dataset", fontsize="small")
    axes[0][0].set_ylabel(ylabel)
    counts = questions_n(curve, per="point")
    if "n" in curve and len(curve) and curve["n"].max() < SMOKE_N:
        counts += f" (smoke test: n < {SMOKE_N})"
    return state_n(fig, _heading(title, counts))


def order_figure(fig4: pd.DataFrame):
    """Notebook 11's Figure 4: per model, the metrics and failure rate per dataset and order of question
    and passages in the prompt."""
    return bar_figure(panels(fig4), x="source", hue="level", row="model",
                      title="Utility judgments by the order of question and passages")


def position_figure(fig5: pd.DataFrame):
    """Notebook 11's Figure 5: per model, the metrics and failure rate over the ground-truth passage's
    position, one line per dataset."""
    return line_figure(panels(fig5, extra=False), x="position", hue="source", row="model",
                       title="Utility judgments by the position of the ground-truth passage")


def requirement_figure(fig6: pd.DataFrame):
    """Notebook 11's Figure 6: the metrics and failure rate per requirement added to the prompt and model."""
    return bar_figure(panels(fig6), x="level", hue="model",
                      title="Utility judgments by the requirement added to the prompt")
