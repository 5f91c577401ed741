"""Notebook 18's figure: each arm's reading before and after, per source, quantity and model (the only
module of the study that imports matplotlib)."""
from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, MaxNLocator

from lib.report.labels import spec_label

from .findings_rows import ARM_NAMES, GENERATED, reward_reading

# panels by scale: rates (06, 12, 13) and 05's rating points do not share an axis. Titles no wider
# than the panel: constrained layout keeps a centred title inside the figure by narrowing every panel
# of the column (05's old title, "05: human minus own rating", left the panels 0.3 in wide)
PANELS = (("rates (06, 12, 13)", lambda t: t["source"] != "05"),
          ("05: rating points", lambda t: t["source"] == "05"))
# a row's quantity in a few words: the arm is the heading above its rows, the source the label's start
QUANTITY = {"self": "self-preference", "factual": "factual preference", "position": "first position",
            "accuracy": "accuracy", "gt_hit": "ground truth selected", "first_shown": "first shown selected",
            "human_minus_self_rag": "human minus own, RAG", "human_minus_self_normal": "human minus own, normal",
            "long": "long passage preferred"}
MIN_UNITS = 10  # below it a row has no interval (the findings' rule) and is a smoke test: not drawn
LABEL_CHARS = 26  # a row's label wraps at this many characters (the label column of a one-column figure)


def _kind(model: str) -> str:
    """13's reward model in words: 'log-prob judge', 'judge, parsed reply', 'implicit mean reward'."""
    reading = reward_reading(model)
    if reading is None:  # not a reward spec (a table written by hand): its short name
        return spec_label(str(model))
    return {"": "log-prob judge", GENERATED: "judge, parsed reply"}.get(reading, reading.replace("_", " "))


def _label(r, kinds: bool) -> str:
    """'13: accuracy', with 13's reward model where several of 13's models are shown."""
    text = f"{r['source']}: {QUANTITY.get(str(r['quantity']), str(r['quantity']))}"
    return f"{text}, {_kind(r['model'])}" if kinds and r["source"] == "13" else text


def _labels(part: pd.DataFrame, kinds: bool) -> list[str]:
    """Row labels, unique within an arm; two rows of one arm that would read alike (two judges of one
    kind, 'sim' and 'sim_b') get the model's short name."""
    rows = part.to_dict("records")
    texts = [_label(r, kinds) for r in rows]
    keyed = [(r["arm"], t) for r, t in zip(rows, texts)]
    return [f"{t} ({spec_label(r['model']).split(' ')[0]})" if keyed.count(k) > 1 else t
            for r, t, k in zip(rows, texts, keyed)]


def _wrapped(label: str) -> str:
    """A label over `LABEL_CHARS` breaks after its quantity ('13: accuracy,' over 'implicit mean reward')."""
    if len(label) <= LABEL_CHARS:
        return label
    head, sep, tail = label.partition(", ")
    if sep and len(head) < LABEL_CHARS:
        return f"{head},\n{textwrap.fill(tail, LABEL_CHARS, break_on_hyphens=False)}"
    return textwrap.fill(label, LABEL_CHARS, break_on_hyphens=False)


def _rows_with_headings(part: pd.DataFrame, kinds: bool) -> tuple[list[str], list[int | None]]:
    """The panel's tick labels top to bottom, each arm's full name as a heading over its rows, and for
    each tick the row of `part` it draws (None: a heading)."""
    labels, index = _labels(part, kinds), []
    texts: list[str] = []
    for arm in dict.fromkeys(part["arm"]):
        texts.append(ARM_NAMES.get(arm, str(arm)))
        index.append(None)
        for i in np.flatnonzero(part["arm"].to_numpy() == arm):
            texts.append(_wrapped(labels[i]))
            index.append(int(i))
    return texts, index


def _places(texts: list[str]) -> np.ndarray:
    """Each tick's height on the axis: a label of two lines takes 1.6 rows, so it does not touch the next."""
    room = np.array([1.0 + 0.6 * t.count("\n") for t in texts])
    return np.cumsum(room) - room / 2 - 0.5


def drawn_rows(table: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The rows the figure draws (before and after read, `MIN_UNITS` units or more) and the smoke rows
    it leaves out and names; when no row has the units, every row is drawn (the title says smoke test)."""
    shown = table[table["quantity"] != "flipped"].dropna(subset=["before", "after"])
    shown = shown.assign(source=shown["source"].astype(str).str.zfill(2))  # '05' whether read from a CSV or not
    enough = shown["n"].astype(int) >= MIN_UNITS
    if not enough.any():
        return shown.reset_index(drop=True), shown.iloc[:0]
    return shown[enough].reset_index(drop=True), shown[~enough].reset_index(drop=True)


def _left_out(smoke: pd.DataFrame) -> str:
    """'not drawn, n < 10: listwise order averaging of 12 (n = 1)'."""
    arms = smoke.groupby(["arm", "source"], sort=False)["n"].max()
    names = [f"{ARM_NAMES.get(a, a)} of {s} (n = {int(n)})" for (a, s), n in arms.items()]
    return f"not drawn, n < {MIN_UNITS}: " + "; ".join(names)


def before_after_figure(table: pd.DataFrame):
    """Before (open) and after (filled) per arm, source and quantity, stacked panels by scale, each arm
    a heading over its rows; the bar is before plus the 95% interval of the paired change (bootstrap
    over questions), so a bar that misses the open circle is a change. Rows under `MIN_UNITS` units
    are left out and named under the legend."""
    shown, smoke = drawn_rows(table)
    parts = [(title, shown[keep(shown)].reset_index(drop=True)) for title, keep in PANELS]
    parts = [(t, p) for t, p in parts if len(p)] or [("no arm had its input", shown)]
    several = shown.loc[shown["source"] == "13", "model"].nunique() > 1
    layouts = [_rows_with_headings(p, several) for _, p in parts]
    places = [_places(texts) for texts, _ in layouts]
    ticks = [max(float(p[-1]) + 1 if len(p) else 1.0, 1.0) for p in places]
    fig, axes = plt.subplots(len(parts), 1, figsize=(3.3, 1.4 + sum(0.2 * t + 0.6 for t in ticks)), squeeze=False,
                             gridspec_kw={"height_ratios": [t + 0.6 for t in ticks]}, layout="constrained")
    for ax, (title, part), (texts, index), place in zip(axes[:, 0], parts, layouts, places):
        rows = np.array([i for i in index if i is not None], dtype=int)
        y = np.array([place[k] for k, i in enumerate(index) if i is not None], dtype=float)
        part = part.iloc[rows]
        ax.hlines(y, part["before"], part["after"], color="0.6", lw=1)
        ax.plot(part["before"], y, "o", mfc="white", color="C0", ms=4)
        lo = (part["after"] - (part["before"] + part["ci_low"])).clip(lower=0)
        hi = ((part["before"] + part["ci_high"]) - part["after"]).clip(lower=0)
        ax.errorbar(part["after"], y, xerr=np.vstack([lo.fillna(0), hi.fillna(0)]), fmt="o", color="C1", ms=4,
                    capsize=2)
        ax.set_yticks(place, texts, fontsize="small")
        for label, i in zip(ax.get_yticklabels(), index):
            if i is None:
                label.set_fontweight("bold")
        ax.tick_params(axis="y", length=0)
        ax.set_ylim(place[-1] + 0.6, -0.6)  # top to bottom, headings included
        ax.margins(x=0.1)  # an open circle at the end of the range is drawn whole
        ax.xaxis.set_major_locator(MaxNLocator(nbins=3))  # a narrow panel's default ticks ran into each other
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))  # '0', not '0.000'
        ax.set_title(title, fontsize="medium", loc="right")  # over the labels, not past the figure's edge
    legend = fig.legend(handles=[Line2D([], [], marker="o", ls="", mfc="white", color="C0", ms=4, label="before"),
                                 Line2D([], [], marker="o", ls="-", color="C1", ms=4,
                                        label="after; bar: before + 95% CI of the change")],
                        loc="outside lower center", ncols=1, frameon=False, fontsize="x-small")
    if len(smoke):
        legend.set_title(textwrap.fill(_left_out(smoke), 60), prop={"size": "x-small"})
        legend._legend_box.align = "left"  # the note reads as a sentence, not a centred heading
    n = shown["n"].astype(int)
    smoke_only = len(n) and n.max() < MIN_UNITS
    head = "Smoke test: before and after each arm" if smoke_only else "Before and after each arm"
    span = "0" if not len(n) else str(n.min()) if n.min() == n.max() else f"{n.min()}-{n.max()}"
    fig.suptitle(f"{head}, n = {span}", fontsize="medium")
    return fig
