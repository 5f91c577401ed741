"""Forest plots of compared runs: per study, one panel per kind of measure, one row per measure and
entry (model or run) with its estimate and 95% interval, the null as a dashed line, the paper's value
as a black diamond labelled with the paper's model, and n beside every row (smoke rows and rows without an
interval hollow, with no bar; a panel of only points under 10 units on its measure's own scale, titled a
smoke test)."""
from __future__ import annotations

import os
import re
import textwrap

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator
from matplotlib.transforms import blended_transform_factory

from lib import stats
from lib.report import findings, measures
from lib.report.labels import humanize, label
from lib.report.plotting import PALETTE, n_label

from .join import entries

ROW_HEIGHT = 0.2  # inches per plotted row
WIDTH = 7.0  # inches: a page's text width (a figure*), labels on the left, n on the right
MAX_HEIGHT = 8.5  # inches: a page's text height less its caption; a longer forest goes on to a next page
CHROME = 1.4  # inches of a page that are not rows: heading and legend
PANEL_CHROME = 0.9  # inches of a panel that are not rows: its title, tick labels and an x label on two lines
LABEL_CHARS = 52  # a row label (x-small) wraps beyond this many characters, never cut short
XLABEL_CHARS = 56  # the x label (small) wraps to about the panel's width
HEADING_CHARS = 80  # characters of the medium heading on a page's width (about 0.55 em each)
# a panel's medium title wraps to the panel's width (a page less its labels and n): constrained layout
# wraps nothing, and a title wider than the page left the panels no room at all (0 in wide)
TITLE_CHARS = 48


def kind(measure_id: str) -> str:
    """The kind of a measure: its declared family's first id part (lib.report.measures), else its id
    up to the first '.'."""
    m = measures.find_or_none(measure_id)
    return m.kind if m else str(measure_id).split(".")[0]


def null_of(measure_id: str) -> float | None:
    """The null value drawn for a measure (its declaration's), or None."""
    m = measures.find_or_none(measure_id)
    return m.null if m else None


def axis_of(measure_ids) -> str:
    """How to read a panel's axis: the declaration's `axis` of its first measure, else 'estimate'."""
    m = measures.find_or_none(next(iter(measure_ids), ""))
    return (m.axis if m else "") or "estimate"


def split_measure(measure: str) -> tuple[str, str]:
    """('human-minus-self rating', 'nq, rag, self true, parsed score') from the readable measure."""
    head, sep, rest = str(measure).partition(" (")
    return (head, rest[:-1] if rest.endswith(")") else rest) if sep else (head, "")


def shared_head(heads: list[str]) -> str:
    """The panel title of measures of one kind: their common readable name, cut after its last whole
    part ('selected share, ground truth minus ...' and 'selected share, counterfactual minus ...' ->
    'selected share'), or '' when they share none."""
    if len(set(heads)) == 1:
        return heads[0]
    common = os.path.commonprefix(heads)
    return common[:common.rfind(", ")] if ", " in common else ""


_RANGE = re.compile(r"(-?\d+(?:\.\d+)?)\s*(?:-|to)\s*(-?\d+(?:\.\d+)?)")  # "share 0-1", "(-1 to 1)"


def natural_range(scale: str, axis: str = "", null: float | None = None) -> tuple[float, float] | None:
    """The range a measure's values can take, from its findings `scale` ('share 0-1' -> (0, 1), '% of
    questions' -> (0, 100), 'difference of shares (-1 to 1)' -> (-1, 1)); a difference of two values on
    a 0-based scale (the scale or axis says 'difference', 'minus' or 'change', or the null lies outside
    it) spans minus to plus its width; None when the scale names no range ('perplexity points')."""
    text = str(scale or "")
    found = _RANGE.search(text)
    if found:
        low, high = float(found.group(1)), float(found.group(2))
    elif "%" in text:
        low, high = 0.0, 100.0
    else:
        return None
    differs = any(w in f"{text} {axis}" for w in ("difference", "minus", "change")) or (
        null is not None and not low <= null <= high)
    if low >= 0 and differs:
        low, high = -(high - low), high - low
    return low, high


def title_and_label(head: str) -> tuple[str, str]:
    """A panel of one measure named by its head alone: ('<arm> of <notebook>', '<reading>: after minus
    before') from its first part and the rest, so its row reads the name rather than its id's tail;
    ('', head) when the head has one part."""
    first, sep, rest = head.partition(", ")
    return (first, rest) if sep and rest else ("", head)


_COMPOUND = re.compile(r"\b[A-Za-z]+(?:-[A-Za-z]+)+\b")  # "generate-and-parse", "log-probability"


def compounds(texts) -> list[str]:
    """The hyphenated words of a study's readable measure names, longest first: the spelling its rows
    keep where an id's snake case gives the same words apart ('generate_and_parse')."""
    found = {w for t in texts for w in _COMPOUND.findall(str(t))}
    return sorted(found, key=len, reverse=True)


def one_spelling(text: str, words: list[str]) -> str:
    """`text` with every spaced or underscored form of `words` written as the word ('generate and parse'
    -> 'generate-and-parse'), so a method reads the same in every row of a study."""
    for w in words:
        text = re.sub(r"\b" + r"[ _]".join(map(re.escape, w.split("-"))) + r"\b", w, text)
    return text


def _colors(names) -> dict:
    return dict(zip(names, sns.color_palette(PALETTE, max(len(names), 1))))


def _estimated(rows: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """The rows of measures with an estimate in some entry, and how many measures have none (a panel of
    only those would be empty)."""
    if rows.empty:
        return rows, 0
    has = rows.groupby("measure_id", sort=False)["estimate"].transform(lambda s: s.notna().any()).astype(bool)
    return rows[has], rows.loc[~has, "measure_id"].nunique()


def pages(long: pd.DataFrame, study: str) -> list[list[str]]:
    """The study's estimated measure ids split into pages of a forest, in order: a page holds as many
    kinds of measure (panels) as fit MAX_HEIGHT at ROW_HEIGHT per row, a kind's rows kept on one page
    (its readings may come interleaved with other kinds'); only a kind longer than a page goes on over a
    page break, begun where the last page has room (its later part titled 'continued')."""
    rows, _ = _estimated(long[long["study"] == study])
    kinds = rows["measure_id"].map(kind)
    names = entries(long)
    out, height = [[]], CHROME
    for k in dict.fromkeys(kinds):
        ids = list(dict.fromkeys(rows.loc[kinds == k, "measure_id"]))
        per_measure = (len(_panel_entries(rows[kinds == k], names)) + _gap(long)) * ROW_HEIGHT
        whole = PANEL_CHROME + per_measure * len(ids)
        if out[-1] and height + whole > MAX_HEIGHT and CHROME + whole <= MAX_HEIGHT:
            out.append([])
            height = CHROME
        height += PANEL_CHROME
        for mid in ids:
            if out[-1] and height + per_measure > MAX_HEIGHT:  # a kind longer than a page goes on
                out.append([])
                height = CHROME + PANEL_CHROME
            out[-1].append(mid)
            height += per_measure
    return [p for p in out if p]


def _panel_entries(rows: pd.DataFrame, names: list) -> list:
    """The entries a panel gives rows to: those that measured any of its measures (a run's judges measure
    no self-preference: three rows per measure of which two say "not measured" told a reader nothing)."""
    return [e for e in names if e in set(rows["entry"])]


def _gap(long: pd.DataFrame) -> float:
    """Rows of space between measures: one entry needs little to tell the groups apart."""
    return 0.6 if len(entries(long)) > 1 else 0.5  # 0.5: a label on two lines still clears the next


def forest_figures(long: pd.DataFrame, study: str) -> list:
    """The forest plot of one study, one figure per page (`pages`); a single page when it fits."""
    parts = pages(long, study)
    if len(parts) <= 1:
        return [forest_figure(long, study)]
    return [forest_figure(long, study, only=ids, part=(i + 1, len(parts))) for i, ids in enumerate(parts)]


def forest_figure(long: pd.DataFrame, study: str, only: list | None = None, part: tuple[int, int] | None = None):
    """The forest plot of one study's rows (the long table of `join.join_runs`; `only`: these measure ids,
    page `part` = (i, of k) of `forest_figures`), a page wide, laid out by matplotlib's constrained layout.
    Measures without an estimate in any entry get no row: the heading counts them."""
    rows, left_out = _estimated(long[long["study"] == study])
    words = compounds(long.loc[long["study"] == study, "measure"])  # every page spells as the study's names do
    first_of_kind = rows.drop_duplicates("measure_id").assign(k=lambda f: f["measure_id"].map(kind)) \
        .drop_duplicates("k").set_index("k")["measure_id"]  # a kind whose first reading is on an earlier page
    if only is not None:
        rows = rows[rows["measure_id"].isin(only)]
    names = entries(long)
    colors = _colors(names)
    gap = _gap(long)
    kinds = list(dict.fromkeys(rows["measure_id"].map(kind)))
    groups = {k: list(dict.fromkeys(rows.loc[rows["measure_id"].map(kind) == k, "measure_id"])) for k in kinds}
    shown = {k: _panel_entries(rows[rows["measure_id"].isin(ids)], names) for k, ids in groups.items()}
    heights = [len(m) * (len(shown[k]) + gap) for k, m in groups.items()] or [1.0]
    fig, axes = plt.subplots(max(len(kinds), 1), 1, squeeze=False, gridspec_kw={"height_ratios": heights},
                             figsize=(WIDTH, CHROME + PANEL_CHROME * len(kinds) + ROW_HEIGHT * sum(heights)),
                             layout="constrained")
    for ax, k in zip(axes[:, 0], kinds):
        _panel(ax, rows, k, groups[k], shown[k], colors, gap, continued=first_of_kind[k] not in groups[k],
               words=words)
    n = rows["n"].dropna().astype(int)
    units = sorted(u for u in rows["unit"].unique() if u)
    unit = f"{units[0]}s" if len(units) == 1 else "units"
    n_text = "n = 0" if not len(n) else n_label(n.min(), unit) if n.nunique() == 1 else \
        f"n = {n.min()}-{n.max()} {unit} per row"
    smoke = " (all smoke tests: n < 30)" if len(rows) and rows["smoke"].all() else ""
    gone = (f"; {left_out} measure{'s' * (left_out != 1)} without an estimate left out (comparison.csv lists them)"
            if left_out else "")
    here = _panel_entries(rows, names)  # the entries this study's rows come from
    handles = [Line2D([], [], color=colors[e], marker="o", ls="-", label=e) for e in here]
    if rows["smoke"].any():
        handles.append(Line2D([], [], color="0.3", marker="o", mfc="white", ls="", label=f"smoke (n < {findings.SMOKE_N})"))
    if rows["paper_value"].notna().any():
        handles.append(Line2D([], [], color="black", marker="D", ls="", label="paper's value (its model beside it)"))
    if any(null_of(ids[0]) is not None for ids in groups.values()):
        handles.append(Line2D([], [], color="0.4", ls="--", label="null (no effect)"))
    page = f" (page {part[0]} of {part[1]})" if part else ""
    heading = [f"{findings.STUDIES.get(study, study)}: {' vs '.join(here)}{page}", f"{n_text}{smoke}{gone}"]
    # constrained layout wraps nothing: a line wider than the page would widen the saved figure
    fig.suptitle("\n".join(textwrap.fill(line, HEADING_CHARS) for line in heading), fontsize="medium")
    fig.legend(handles=handles, loc="outside lower center", ncols=min(len(handles), 4), frameon=False,
               fontsize="small")
    return fig


def _panel(ax, rows: pd.DataFrame, k: str, measure_ids: list, names: list, colors: dict, gap: float = 0.6,
           continued: bool = False, words: list | None = None) -> None:
    """One kind of measure: a group of rows per measure, one row per entry (`continued`: the later part
    of a kind begun on an earlier page; `words`: the study's hyphenated words, `one_spelling`)."""
    right = blended_transform_factory(ax.transAxes, ax.transData)
    ticks, tick_labels, y = [], [], 0.0
    heads = {mid: split_measure(rows.loc[rows["measure_id"] == mid, "measure"].iloc[0])[0] for mid in measure_ids}
    common = shared_head(list(heads.values()))
    own_label = ""
    alone = rows.loc[rows["measure_id"] == measure_ids[0], "measure"].iloc[0]
    if len(measure_ids) == 1 and not split_measure(alone)[1]:
        common, own_label = title_and_label(common)  # the whole name: title its first part, label the rest
    title = (common or label(k)) + (" (continued)" if continued else "")
    drawn_n, drawn_x = [], []  # the n and values (estimates, paper values) this panel draws
    for mid in measure_ids:
        group = rows[rows["measure_id"] == mid]
        detail = split_measure(group["measure"].iloc[0])[1]
        own_head = own_label or heads[mid][len(common):].lstrip(", ")
        if detail or not own_head:
            detail = detail or mid.partition(".")[2] or mid
            detail = ", ".join(humanize(part) for part in detail.split(", "))  # "nq, rag" -> "NQ, RAG prompt"
        if own_head:  # measures of one kind that differ: the row says which ("ground truth minus ...")
            # a name without a parenthesised detail says it all: its id's tail would repeat it
            detail = f"{own_head}: {detail}" if detail else own_head
        ys = []
        for entry in names:
            r = group[group["entry"] == entry]
            ys.append(y)
            if len(r) and pd.notna(r.iloc[0]["estimate"]):
                r = r.iloc[0]
                c = colors[entry]
                # the findings' one rule: no interval below MIN_CI_UNITS units, whatever the row carries
                low, high, _ = stats.shown_interval(r["n"], r["ci_low"], r["ci_high"])
                bar = pd.notna(low) and pd.notna(high)
                if bar:
                    ax.plot([low, high], [y, y], color=c, lw=1.6)
                drawn_n.append(int(r["n"]))
                drawn_x.append(float(r["estimate"]))
                # hollow: a smoke row, or no interval (too few units / no spread), never read as a 95% claim
                ax.plot([r["estimate"]], [y], marker="o", ls="", color=c, ms=5,
                        mfc="white" if (r["smoke"] or not bar) else c, mew=1.4)
                ax.text(1.02, y, f"n = {int(r['n'])}" + (" (smoke)" if r["smoke"] else ""), transform=right,
                        va="center", fontsize="x-small", color=c)
            else:
                ax.text(1.02, y, "no estimate" if len(r) else "not measured", transform=right, va="center",
                        fontsize="x-small", color="0.5")
            y -= 1
        centre = float(np.mean(ys))
        paper = group["paper_value"].dropna()
        if len(paper):
            drawn_x.append(float(paper.iloc[0]))
            model = next((m for m in group["paper_model"] if m), "paper")
            ax.plot([paper.iloc[0]], [centre], marker="D", color="black", ls="", ms=5, zorder=3)
            ax.annotate(model, (paper.iloc[0], centre), xytext=(4, 3), textcoords="offset points",
                        fontsize="x-small")
        ticks.append(centre)
        tick_labels.append(textwrap.fill(one_spelling(detail, words or []), LABEL_CHARS))
        y -= gap
    null = null_of(measure_ids[0])
    if null is not None:
        ax.axvline(null, color="0.4", ls="--", lw=1)
    title, interval = textwrap.fill(title, TITLE_CHARS), ", 95% interval"
    if drawn_n and max(drawn_n) < stats.MIN_CI_UNITS:
        # a smoke test's points are no estimates: show them on the measure's own scale, not zoomed in
        note = f"(smoke test: n < {stats.MIN_CI_UNITS})"
        last = title.rsplit("\n", 1)[-1]
        title += (" " if len(last) + len(note) < TITLE_CHARS else "\n") + note  # the note whole, on one line
        _smoke_limits(ax, rows[rows["measure_id"].isin(measure_ids)], measure_ids, drawn_x, null)
        interval = ""  # its points have none
    ax.set_yticks(ticks, tick_labels, fontsize="x-small")
    ax.xaxis.set_major_locator(MaxNLocator(nbins=5))  # a narrow panel's default ticks ran into each other
    ax.set_ylim(y + 0.3, 0.7)
    ax.grid(axis="y", visible=False)
    ax.set_title(title, fontsize="medium", loc="left")
    ax.set_xlabel(textwrap.fill(f"{axis_of(measure_ids)}{interval}", XLABEL_CHARS), fontsize="small")


def _smoke_limits(ax, rows: pd.DataFrame, measure_ids: list, values: list, null: float | None) -> None:
    """x limits of a panel of smoke points: the measure's natural range (`natural_range`) and the null,
    widened to any value beyond them; the null and the values alone when the scale names no range."""
    scale = next((str(v) for v in rows.get("scale", pd.Series(dtype=object)) if isinstance(v, str) and v), "")
    span = natural_range(scale, axis_of(measure_ids), null) or (min(values), max(values))
    points = [*span, *values] + ([null] if null is not None else [])
    low, high = min(points), max(points)
    pad = 0.03 * (high - low) if high > low else 1.0
    ax.set_xlim(low - pad, high + pad)
