"""The house figure style: one seaborn theme, human labels for machine names (`lib.report.labels`), the
finishing pass every saved figure gets (`tidy`: readable labels, integer ticks, legends off the data, no
overlapping tick labels), and the small helpers figures are drawn with (error bars from intervals, n
labels, a note in an empty panel)."""
from __future__ import annotations

import re
import textwrap
import warnings

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import seaborn as sns
from matplotlib.ticker import AutoLocator, MaxNLocator

from lib.stats import bootstrap_ci, shown_interval

from .figure_checks import NOTE_GID, data_values, figure_legends, is_empty, is_panel, line_xy
from .labels import humanize
from .layout import keep_panel_height, laid_out_by_maker, use_constrained_layout
from .legends import drop_empty_legend_entries, legends_outside
from .text_fit import unoverlap_ticks, wrap_to_panels

PALETTE = "colorblind"
# A paper's column is about 3.3 in wide and its full width about 7 in: at 5 x 3.2 in and these
# font sizes, a figure shrunk to one column still has text of about 7 pt.
FIGSIZE = (5.0, 3.2)


def house_style() -> None:
    """Apply the house style (call once per notebook, before plotting)."""
    sns.set_theme(context="paper", style="whitegrid", palette=PALETTE, font_scale=1.2)
    plt.rcParams.update({"figure.dpi": 110, "savefig.dpi": 200, "savefig.bbox": "tight",
                         "axes.titleweight": "bold", "figure.figsize": FIGSIZE,
                         "legend.frameon": False, "pdf.fonttype": 42})


WRAP_Y_TICKS = 22  # characters: a longer category name on the y axis (a barh chart's) wraps


def _relabel_ticks(ax, wrap: bool = True) -> None:
    """Categorical tick labels that are machine names become labels (numbers never match); long category
    names on the y axis wrap (unless `wrap` is False: a figure that set its own line breaks), so they do
    not widen the figure."""
    for axis, setter in ((ax.xaxis, ax.set_xticks), (ax.yaxis, ax.set_yticks)):
        texts = [t.get_text() for t in axis.get_ticklabels()]
        new = [humanize(t) for t in texts]
        if texts and all(re.fullmatch(r"-?\d+\.0", t) for t in texts):
            new = [t.removesuffix(".0") for t in texts]  # float categories of whole numbers: 3.0 -> 3
        if axis is ax.yaxis and wrap:
            new = [t if "\n" in t else textwrap.fill(t, WRAP_Y_TICKS, break_long_words=False) for t in new]
        if new != texts:
            setter(axis.get_ticklocs(), new)


def _relabel_texts(fig, wrap: bool = True) -> None:
    # set_text on the Text objects themselves: set_title / set_xlabel would reset their font settings
    texts = [t for ax in fig.axes for t in (ax.xaxis.label, ax.yaxis.label, ax.title, ax._left_title, ax._right_title,
                                             *ax.texts)]  # ax.texts: annotations naming points
    texts += [t for leg in figure_legends(fig) for t in (*leg.get_texts(), leg.get_title())]
    if fig._suptitle is not None:
        texts.append(fig._suptitle)
    for t in texts:
        t.set_text(humanize(t.get_text()))
    for ax in fig.axes:
        _relabel_ticks(ax, wrap)


def note_empty(ax, reason: str) -> None:
    """Write a centred note in the panel ('no data: <reason>'); its reference lines and ticks,
    meaningless without data, are hidden."""
    text = reason if reason.lower().startswith("no data") else f"no data: {reason}"
    for artist in ax.lines + ax.patches:
        artist.set_visible(False)
    if ax.get_legend() is not None:
        ax.get_legend().remove()  # a legend of nothing: headers without entries
    ax.grid(False)
    # wrapped to the panel's width (a character is about 0.55 em wide)
    size = matplotlib.font_manager.FontProperties(size="medium").get_size_in_points()
    chars = int(ax.get_position().width * ax.figure.get_figwidth() * 72 / (0.55 * size))
    note = ax.text(0.5, 0.5, textwrap.fill(text, max(12, min(chars - 2, 40))), transform=ax.transAxes, ha="center",
                   va="center", fontsize="medium", color="0.3")
    note.set_gid(NOTE_GID)  # fit_to_span re-wraps it to the panel's final width
    note.set_in_layout(False)  # inside its panel: the layout need not make room for it
    # Only an axis of its own loses its ticks: a facet's shared axis may carry the scale of its
    # neighbours (which hide their own tick labels), and set_xticks([]) would empty theirs too.
    if len(ax.get_shared_x_axes().get_siblings(ax)) == 1:
        ax.tick_params(bottom=False, labelbottom=False)
    if len(ax.get_shared_y_axes().get_siblings(ax)) == 1:
        ax.tick_params(left=False, labelleft=False)


def empty_reason(axes, default: str) -> str:
    """Why these empty panels show nothing: their own notes (each once, in panel order), else `default`."""
    notes = [" ".join(t.get_text().split()) for ax in axes for t in ax.texts if t.get_text().strip()]
    return "; ".join(dict.fromkeys(notes)) or default


def _integer_ticks(ax) -> None:
    """Integer ticks on a numeric axis whose plotted values are all whole numbers (counts, sizes)."""
    x, y = data_values(ax)
    for values, axis in ((x, ax.xaxis), (y, ax.yaxis)):
        # only the default numeric locator: categorical and hand-set ticks stay as they are
        if values.size and np.all(np.mod(values, 1) == 0) and type(axis.get_major_locator()) is AutoLocator:
            # steps: 0, 20, 40 rather than 0, 15, 30; min_n_ticks=1: one whole tick even on a narrow range;
            # nbins="auto" on the y axis only: there crowded labels have no other remedy, while crowded
            # x labels get fewer ticks from unoverlap_ticks ("auto" left a 1-in wide x axis one tick)
            axis.set_major_locator(MaxNLocator(nbins="auto" if axis is ax.yaxis else 10, integer=True,
                                               steps=[1, 2, 5, 10], min_n_ticks=1))


def _mark_lone_points(ax) -> None:
    """A line through one finite point draws nothing: give it a marker so the value shows."""
    for line in ax.lines:
        if line.get_transform() is ax.transData and line.get_marker() in (None, "None", "", " "):
            if np.count_nonzero(np.isfinite(line_xy(line)).all(axis=1)) == 1:
                line.set_marker("o")


def tidy_content(fig) -> None:
    """The finishing pass's part that is not layout (every figure gets it, one laid out by matplotlib's
    constrained layout too): machine names become labels, legend entries of series without data go, axes
    of whole numbers get integer ticks, a one-point line gets a marker. A figure its maker laid out keeps
    its own line breaks (its width was laid out for them)."""
    _relabel_texts(fig, wrap=not laid_out_by_maker(fig))
    drop_empty_legend_entries(fig)
    for ax in fig.axes:
        if is_panel(ax) and not is_empty(ax):
            _integer_ticks(ax)
            _mark_lone_points(ax)


def tidy(fig) -> None:
    """The finishing pass before a figure is saved: `tidy_content`, then the house layout on matplotlib's
    constrained layout: a legend covering data moves outside, overlapping tick labels rotate."""
    tidy_content(fig)
    use_constrained_layout(fig)
    renderer = fig.canvas.get_renderer()
    legends_outside(fig, renderer)
    unoverlap_ticks(fig, renderer)
    wrap_to_panels(fig)
    keep_panel_height(fig)


ROUNDING = 1e-9  # an estimate this close outside its interval is off by rounding, not by computation


def interval_errors(values, low, high, name: str = "", n=None) -> np.ndarray:
    """Error bar lengths (2 x n: below, above) from an estimate and its interval's bounds, for matplotlib's
    `yerr`: an unknown bound draws no bar on its side, and an estimate outside its interval no bar on that
    side either (matplotlib stops on a negative length); outside by more than rounding, it warns, naming
    `name`, since the interval then belongs to another estimate. Given `n` (the units of each value), an
    interval the findings would withhold (`lib.stats.shown_interval`) draws no bar; a value without either
    bound gets NaN lengths (no bar, no cap)."""
    v, lo, hi = (np.asarray(a, dtype=float).ravel() for a in (values, low, high))
    if n is not None:
        shown = [shown_interval(k, a, b)[:2] for k, a, b in zip(np.asarray(n, dtype=float).ravel(), lo, hi)]
        lo, hi = (np.array([s[i] for s in shown], dtype=float) for i in (0, 1))
    err = np.vstack([v - lo, hi - v])
    if np.nanmin(err, initial=0.0) < -ROUNDING:
        warnings.warn(f"{name or 'a bar'}: an estimate lies outside its interval by {-np.nanmin(err):.3g}; "
                      "no error bar drawn on that side", RuntimeWarning, stacklevel=2)
    # no bound on either side (withheld, or unknown): NaN, so matplotlib draws no bar and no cap either
    # (a 0 on both sides draws a flat cap on the estimate, which reads as a zero-width interval)
    none = np.isnan(err).all(axis=0)
    err = np.nan_to_num(err, nan=0.0).clip(min=0.0)
    err[:, none] = np.nan
    return err


def unit_errorbar(values) -> tuple[float, float]:
    """seaborn's `errorbar=` for bars over one value per unit: the findings' percentile bootstrap of the
    mean (`lib.stats.bootstrap_ci`), and no bar where the findings withhold the interval (fewer than
    MIN_CI_UNITS units, or all equal): seaborn's own ("ci", 95) draws one over any 2 values."""
    v = np.asarray(values, dtype=float)
    low, high = bootstrap_ci(v)  # NaNs below 2 values; it drops NaN values itself
    low, high, _ = shown_interval(int((~np.isnan(v)).sum()), low, high)
    return low, high


def n_label(n, unit: str, failed=None, of=None, what: str = "replies unreadable") -> str:
    """'n = 14 items', and with `failed` (of `of` replies) ': 3 of 20 replies unreadable (15%)'."""
    text = f"n = {int(n)} {_singular(unit) if int(n) == 1 else unit}"
    if failed is not None:
        text += f"; {failed_label(failed, of if of is not None else n, what)}"
    return text


def _singular(unit: str) -> str:
    """'valid pairs' -> 'valid pair', 'questions per bar' -> 'question per bar': the first plural word."""
    words = unit.split(" ")
    for i, w in enumerate(words):
        if len(w) > 3 and w.endswith("s"):
            words[i] = w[:-1]
            break
    return " ".join(words)


def failed_label(failed, of, what: str = "replies unreadable") -> str:
    """'3 of 20 replies unreadable (15%)': the failure count and rate where replies can fail."""
    share = f" ({int(failed) / int(of):.0%})" if int(of) else ""
    return f"{int(failed)} of {int(of)} {what}{share}"


def state_n(fig, text: str):
    """Write `text` (from `n_label`) above the figure as a small suptitle, clear of the panel titles."""
    fig.suptitle(text, fontsize="small", fontweight="normal", y=1.0, va="bottom")
    return fig
