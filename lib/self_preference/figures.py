"""Every figure of the self-preference study (notebooks 05-08): a preference rate per group, one panel per
method (the paper's parsed reply, and the likelihood choice beside it where the paper's method can yield
nothing), and notebook 05's scores. Error bars come from the tables' own intervals, which resample the
question (item), never from a per-judgment bootstrap."""
from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.patches import Patch

from lib.stats import shown_interval
from lib.report.labels import label
from lib.report.legends import legend_below
from lib.report.plotting import failed_label, interval_errors, n_label, note_empty, state_n, unit_errorbar

from .findings_rows import readable_method
from .likelihood import EXPECTED_SCORE_NAMES, likelihood_view
from .tables import attach_knowledge, question_ids, rate_cell

KNOWLEDGE_ORDER = ["none", "partial", "full", "unknown"]
PAPER = "paper (parsed reply)"
LIKELIHOOD = "likelihood sum"  # the label of `likelihood.method_views`
BARS = "bars: 95% CI over questions, none below 10"
LEFT_OUT = "no panel, "  # before a method's name in the count lines: it decided no pair, so it has no panel
Q_NOTE = "q: questions"  # the x label's key to the tick counts ('TT\nq=7')


def count_line(method: str, text: str, left_out: bool) -> str:
    """One method's count line; a method with no panel keeps only what it failed on ('no panel, paper
    (parsed reply): 136 of 168 pairs unparsed (81%)'), its n = 0 says nothing more."""
    if not left_out:
        return f"{method}: {text}"
    return f"{LEFT_OUT}{method}: {text.split('; ', 1)[-1]}"


def _with_q_note(fig) -> None:
    """The tick counts' key at the end of each panel's x label, instead of a heading line of its own."""
    for ax in fig.axes:
        text = ax.get_xlabel()
        ax.set_xlabel(f"{text}; {Q_NOTE}" if text else Q_NOTE)
EMPTY_NOTES = {PAPER: "no reply in the paper's format", LIKELIHOOD: "no pair decided by likelihood"}


def method_panels(methods: list[str], draw, ylabel: str, xlabel: str = "", notes: dict | None = None):
    """One panel per method side by side, sharing the 0-1 rate axis and the dashed 50% line of no
    preference. `draw(ax, method)` draws a panel and returns whether it drew any value. A method that
    drew none gets no panel (`fig.left_out` names it, for the caller's count line: LEFT_OUT); when no
    method drew any, one panel says why in words (`notes`, else EMPTY_NOTES; the figure is then not saved).
    One legend, on the last panel."""
    notes = {**EMPTY_NOTES, **(notes or {})}
    fig, axes = plt.subplots(1, len(methods), figsize=(5.0 if len(methods) > 1 else 4.0, 3.0), sharey=True,
                             squeeze=False)
    axes = list(axes[0])
    drawn = [bool(draw(ax, m)) for ax, m in zip(axes, methods)]
    fig.left_out = [m for m, ok in zip(methods, drawn) if not ok and any(drawn)]
    if any(drawn) and not all(drawn):  # a half that only says "no data" tells a reader nothing: it goes
        for ax in [ax for ax, ok in zip(axes, drawn) if not ok]:
            ax.remove()
        methods, axes = [m for m, ok in zip(methods, drawn) if ok], [ax for ax, ok in zip(axes, drawn) if ok]
        grid = fig.add_gridspec(1, len(axes))
        for i, ax in enumerate(axes):
            ax.set_subplotspec(grid[0, i])
        fig.set_size_inches(5.0 if len(axes) > 1 else 4.0, 3.0)
        drawn = [True] * len(axes)
    for ax, method, ok in zip(axes, methods, drawn):
        ax.axhline(0.5, color="grey", lw=1, ls="--")
        ax.set(ylim=(0, 1), xlabel=xlabel, ylabel="")
        ax.tick_params(labelleft=ax is axes[0])  # a kept panel may have shared its axis with a removed one
        if len(methods) > 1 or fig.left_out:  # a lone kept panel still says which method it shows
            ax.set_title(method, fontsize="medium")
        if not ok:
            note_empty(ax, notes.get(method, "no valid pairs"))
    axes[0].set_ylabel(ylabel)
    full = [ax for ax, ok in zip(axes, drawn) if ok]
    for ax in axes:
        if ax.get_legend() is not None and (not full or ax is not full[-1]):
            ax.get_legend().remove()
    if full and full[-1].get_legend() is not None:
        legend_below(full[-1], fontsize="small")  # beside the panels it would widen the figure past a column
    return fig


def _with_n(values: list, counts: pd.Series, unit: str = "q") -> list[str]:
    """Tick labels 'TT\nq=12': each group's count of independent units below its name."""
    return [f"{v}\n{unit}={int(counts.get(v, 0))}" for v in values]


def _units(rows: pd.DataFrame) -> tuple[pd.Series, str]:
    """(each row's unit, its tick letter): the question ('q') where rows name their item, else the
    row itself ('n', a frame without question ids)."""
    if "item_id" in rows:
        return question_ids(rows), "q"
    return pd.Series(rows.index.astype(str), index=rows.index), "n"


def group_rates(rows: pd.DataFrame, x: str, value: str, hue: str) -> pd.DataFrame:
    """Per x and hue: the mean of a 0/1 column with the study's interval, questions resampled
    (`tables.rate_cell`; none below 10 questions, as in findings), and its n of questions."""
    out = []
    for (gx, gh), g in rows.groupby([x, hue], sort=False):
        c = rate_cell(g[value].astype(bool), _units(g)[0])
        low, high, _ = shown_interval(c["n_items"], c["ci_low"], c["ci_high"])
        out.append({x: gx, hue: gh, "rate": c["rate"], "ci_low": low, "ci_high": high, "n_items": c["n_items"]})
    return pd.DataFrame(out, columns=[x, hue, "rate", "ci_low", "ci_high", "n_items"])


def preference_bars(frames: dict, x: str, value: str, ylabel: str, xlabel: str = "", hue: str = "evaluator",
                    order: list | None = None, judged: dict | None = None, what: dict | None = None,
                    notes: dict | None = None, title: str = ""):
    """Mean of a 0/1 column per x and hue with 95% intervals over questions (the unit; none below 10
    questions), one panel per method ({method: rows}), each x group's questions under its name. The
    figure states n (pairs plotted) per method and, given `judged` ({method: pairs judged}), how many of
    them gave no usable choice, under its caption-like `title`."""
    judged, what = judged or {}, what or {}

    def draw(ax, method):
        rows = frames[method]
        if not len(rows):
            return False
        xs = order or list(dict.fromkeys(rows[x]))
        rates = group_rates(rows, x, value, hue)
        _errorbars(ax, rates, x, hue, "rate", "ci_low", "ci_high", xs, list(dict.fromkeys(rates[hue])), labels=False)
        units, letter = _units(rows)
        ax.set_xticks(range(len(xs)), _with_n(xs, units.groupby(rows[x].to_numpy()).nunique(), letter))
        ax.legend(title=hue, fontsize="small")
        return True

    fig = method_panels(list(frames), draw, ylabel, xlabel, notes)
    lines, per_question = [], False
    for method, rows in frames.items():
        of = judged.get(method)
        text = n_label(len(rows), "pairs")
        units, letter = _units(rows)
        if letter == "q":
            questions = units.nunique() if len(rows) else 0
            text += f" from {questions} question{'s' * (questions != 1)}"
            per_question = True
        if of is not None:
            text += "; " + failed_label(of - len(rows), of, what.get(method, "without a valid reply"))
        lines.append(count_line(method, text, method in fig.left_out) if len(frames) > 1 else text)
    if per_question:
        _with_q_note(fig)
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
                           title=f"Factual preference by prior knowledge ({BARS})")


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
                           title=f"Preference for the styled passage ({BARS})")


def _errorbars(ax, frame: pd.DataFrame, x: str, hue: str, y: str, low: str, high: str, order, hues,
               labels: bool = True):
    """Bars of y per x and hue with the given interval columns as error bars (and x's tick labels, unless
    `labels` is False: the caller sets its own)."""
    width = 0.8 / max(len(hues), 1)
    for j, h in enumerate(hues):
        part = frame[frame[hue] == h].set_index(x).reindex(order)
        pos = np.arange(len(order)) - 0.4 + width * (j + 0.5)
        ax.bar(pos, part[y], width, label=str(h))
        err = interval_errors(part[y], part[low], part[high], name=f"{y} of {h}")
        ax.errorbar(pos, part[y], yerr=err, fmt="none", ecolor="black", lw=1)
    if labels:
        ax.set_xticks(np.arange(len(order)), [str(o) for o in order])


SHORT_EXPECTED = {"lik_expected": "expected score after ###", "expected_score": "reply-token expected score"}


def pointwise_scores_figure(ratings: pd.DataFrame):
    """Mean parsed score and mean expected score per author, factuality and setting, with the findings'
    95% intervals over items (`unit_errorbar`: none below 10 items). The expected score is the one the
    findings report, the next-token distribution after '###' (`lik_expected`), where the ratings have it;
    else the reply tokens' (`expected_score`, a server's top log-probabilities)."""
    # short y labels: the full names are in EXPECTED_SCORE_NAMES
    expected = "lik_expected" if "lik_expected" in ratings and ratings["lik_expected"].notna().any() else "expected_score"
    names = {"score": "parsed score", expected: SHORT_EXPECTED[expected]}
    long = ratings.melt(id_vars=["evaluator", "setting", "factuality", "author", "item_id"],
                        value_vars=list(names), var_name="measure", value_name="value").replace({"measure": names})
    long["setting"] = long["setting"].map(label)  # "rag" -> "RAG prompt": the panel titles are phrases
    # one value per item and bar (its mean over evaluators), so the 95% bootstrap resamples items, the unit,
    # without seaborn's `units=` loop in Python over every unit and resample (minutes at 2,100 items)
    long = long.groupby(["setting", "measure", "author", "factuality", "item_id"], as_index=False,
                        sort=False)["value"].mean()
    hues = [f for f in ("true", "false") if f in set(long["factuality"])] + sorted(
        set(long["factuality"].astype(str)) - {"true", "false"})
    colours = dict(zip(hues, sns.color_palette(n_colors=len(hues))))
    # One measure to a row, named on its y axis, and one setting to a column, named above the top row:
    # "setting: measure" titles over two panels to a column's width wrapped onto three lines.
    g = sns.catplot(data=long, x="author", y="value", hue="factuality", hue_order=hues, palette=colours,
                    row="measure", col="setting", kind="bar", errorbar=unit_errorbar,
                    height=1.6, aspect=1.8, legend=False)
    g.set(ylim=(0, 5.2))
    for (row, col), ax in np.ndenumerate(g.axes):
        ax.set_title(g.col_names[col] if row == 0 else "", fontsize="medium")
        ax.set_xlabel("author" if row == len(g.row_names) - 1 else "")
        ax.set_ylabel(textwrap.fill(f"{g.row_names[row]} (1-5)", 16, break_on_hyphens=False) if col == 0 else "")
    # under the panels: beside them the legend would take a column's width from them
    # proxies in the colours drawn (seaborn desaturates a palette's bars): one container per hue level
    handles = [Patch(facecolor=_drawn_colour(g.axes.flat, len(hues), i, colours[h]), label=h) for i, h in enumerate(hues)]
    legend_below(g.axes[-1, 0], handles=handles, fontsize="small", title="factuality")
    return state_n(g.figure, "Mean rating per author and factuality (bars: 95% CI over items, none below 10)\n"
                   + _ratings_n(ratings))


def _drawn_colour(axes, n_hues: int, i: int, fallback):
    """The colour the i-th hue's bars were drawn in (the first panel that drew any), else `fallback`: a
    panel whose values are all missing (e.g. no expected score) draws empty containers."""
    for ax in axes:
        if len(ax.containers) == n_hues and len(ax.containers[i].patches):
            return ax.containers[i].patches[0].get_facecolor()
    return fallback


def _ratings_n(ratings: pd.DataFrame) -> str:
    """n in items, and the ratings whose reply did not parse."""
    unparsed = int((~ratings["parsed"].fillna(False).astype(bool)).sum())
    return n_label(ratings["item_id"].nunique(), "items", failed=unparsed, of=len(ratings), what="ratings unparsed")


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


COMBO_TITLE = f"Self-preference per factuality combination ({BARS})"
# where no bar has 10 questions the title does not promise bars it cannot draw
COMBO_TITLE_NO_BARS = "Self-preference per factuality combination (no 95% CI: under 10 questions a bar)"


def combo_title(tables) -> str:
    """COMBO_TITLE where any bar of `tables` has an interval shown (10 questions or more), else
    COMBO_TITLE_NO_BARS."""
    for t in tables:
        count = t["self_n_items"] if "self_n_items" in t else t.get("n_valid", pd.Series(0, index=t.index))
        if "self_ci_low" in t and any(not np.isnan(shown_interval(n, lo, hi)[0])
                                      for n, lo, hi in zip(count, t["self_ci_low"], t["self_ci_high"])):
            return COMBO_TITLE
    return COMBO_TITLE_NO_BARS


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
        # the unit is the question: each combination's questions under its name (the most of any series)
        count = "self_n_items" if "self_n_items" in table else "n_valid"
        n = table.groupby("combo")[count].max() if len(table) else pd.Series(dtype=float)
        ax.set_xticks(np.arange(len(combos)), _with_n(combos, n, "q" if count == "self_n_items" else "n"))
        ax.set_xlim(-0.5, len(combos) - 0.5)  # every combination keeps its slot, n=0 ones too
        if not table["self_rate"].notna().any():
            return False
        # one series per evaluator, or per evaluator and dataset when a combination has several rows:
        # averaging interval bounds across datasets gives no interval of anything
        several = table.duplicated(["combo", "evaluator"]).any() and "dataset" in table
        series = table.assign(series=[label(e) + (f" / {label(d)}" if several else "")  # "SmolLM2 / NQ"
                                      for e, d in zip(table["evaluator"].astype(str), table.get("dataset", table["evaluator"]))])
        if series.duplicated(["combo", "series"]).any():  # still several rows: their mean rate, no interval
            series = series.groupby(["combo", "series"], as_index=False)["self_rate"].mean().assign(
                self_ci_low=np.nan, self_ci_high=np.nan)
        _errorbars(ax, series, "combo", "series", "self_rate", "self_ci_low", "self_ci_high", combos,
                   list(series["series"].unique()), labels=False)
        ax.legend(title="evaluator / dataset" if several else "evaluator", fontsize="small")
        return True

    fig = method_panels(shown, draw, "self-preference", "factuality (self, other)")
    counts = [count_line(m, pairs_n(t, undecided=m != PAPER), m in fig.left_out) if len(frames) > 1
              else pairs_n(t) for m, t in frames.items()]
    _with_q_note(fig)
    return state_n(fig, "\n".join([combo_title(frames.values())] + counts))


def pairs_n(table: pd.DataFrame, undecided: bool = False) -> str:
    """n of a preference table in valid pairs, and the judged pairs whose reply did not parse (or, for a
    method that parses nothing, `undecided`: the pairs it did not decide, e.g. same answer in both)."""
    count = lambda col: int(table[col].sum()) if col in table else 0  # noqa: E731
    if undecided:
        return n_label(count("n_valid"), "valid pairs", failed=count("n_pairs") - count("n_valid"),
                       of=count("n_pairs"), what="pairs undecided")
    return n_label(count("n_valid"), "valid pairs", failed=count("n_unparsed"), of=count("n_pairs"),
                   what="pairs unparsed")


BY_METHOD_TITLE = "Self, order and factual preference per decision method (bars: 95% CI over questions, none below 10)"
# the findings' pooled rows the figure draws, by their label (findings_rows.PREF_LABELS) and the x name
BY_METHOD_BARS = {"self-preference rate": "self", "first-position rate": "first position",
                  "factual preference rate": "factual"}


def _method_rows(rows: pd.DataFrame, methods: list[str]) -> pd.DataFrame:
    """One row per method, model and drawn preference: the findings' estimate and n, and its interval
    where the findings' rule shows one (`shown_interval`, as `group_rates`)."""
    from lib.report.findings import slug

    out = []
    for method in methods if "measure_id" in rows else []:
        for label_, x in BY_METHOD_BARS.items():
            for r in rows[rows["measure_id"] == f"{slug(label_)}.{slug(method)}"].to_dict("records"):
                if int(r["n"] or 0) > 0 and pd.notna(r["estimate"]):
                    low, high, _ = shown_interval(r["n"], r["ci_low"], r["ci_high"])
                    out.append({"method": method, "model": r["model"], "preference": x, "rate": r["estimate"],
                                "ci_low": low, "ci_high": high, "n": int(r["n"])})
    return pd.DataFrame(out, columns=["method", "model", "preference", "rate", "ci_low", "ci_high", "n"])


def preferences_by_method_figure(rows, methods: list[str]):
    """Self, first-position and factual preference per decision method (`methods`, the paper's first):
    the notebook's own pooled findings rows (`rows`: findings_rows.preference_findings), so each bar is
    the findings' estimate with its interval over questions (none below 10). A method with no decided
    pair gets no bar and the heading names it; the likelihood decides no TT pair, so it has no
    self-preference bar (its self-related quantity is the TF-minus-FT asymmetry)."""
    drawn = _method_rows(rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows)), list(methods))
    name = drawn["method"].map(readable_method)  # 'likelihood per word', as findings names it
    if drawn["model"].nunique() > 1:
        name = name + ", " + drawn["model"].map(label)
    drawn["series"] = name + ", n = " + drawn.groupby(name)["n"].transform("max").astype(str)
    fig, ax = plt.subplots(figsize=(5.0, 3.2))
    xs = [x for x in BY_METHOD_BARS.values() if x in set(drawn["preference"])] or list(BY_METHOD_BARS.values())
    series = list(dict.fromkeys(drawn["series"]))
    _errorbars(ax, drawn, "preference", "series", "rate", "ci_low", "ci_high", xs, series)
    if series:
        legend_below(ax, fontsize="small")  # three method names beside the bars would widen it past a column
    else:
        note_empty(ax, "no method decided a pair")
    ax.axhline(0.5, color="grey", lw=1, ls="--")
    ax.set(ylim=(0, 1), ylabel="rate (pooled over authors)", xlabel="preference")
    gone = [readable_method(m) for m in methods if m not in set(drawn["method"])]
    return state_n(fig, "\n".join([BY_METHOD_TITLE] + ([f"no bar, no pair decided: {', '.join(gone)}"] if gone else [])))


def lengths_figure(lengths: pd.DataFrame):
    """Notebook 01's figure: query and human-passage length in words per dataset, as boxes (quartiles),
    one panel each; n counts items."""
    fig, axes = plt.subplots(1, 2, figsize=(5.2, 3.0))  # two panels in one column's width
    sns.boxplot(data=lengths, x="source", y="query_words", ax=axes[0])
    sns.boxplot(data=lengths, x="source", y="passage_words", ax=axes[1])
    axes[0].set(title="query", ylabel="length (words)", xlabel="")
    axes[1].set(title="human passage", ylabel="", xlabel="")
    return state_n(fig, "Query and passage length per dataset (boxes: quartiles, whiskers: 1.5 IQR)\n"
                   + n_label(len(lengths), "items"))


LEVEL_COLOURS = {"none (%)": "#d55e00", "partial (%)": "#f0e442", "full (%)": "#009e73"}


def knowledge_levels_figure(shares: pd.DataFrame):
    """Notebook 04's figure: the share of items at each knowledge level per dataset and model, stacked
    bars (a level at 0% in every row draws nothing: the finishing pass says so in its legend entry)."""
    plot = shares.set_index(["dataset", "model"])[list(LEVEL_COLOURS)]
    fig, ax = plt.subplots()
    plot.plot.barh(stacked=True, ax=ax, color=list(LEVEL_COLOURS.values()))
    ax.set_xlabel("% of items")
    ax.set_title(f"Knowledge level per dataset and model (n = {int(shares['n'].sum())} model x item probes)",
                 fontsize="medium")
    legend_below(ax)
    return fig
