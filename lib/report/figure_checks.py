"""Checks that read a drawn figure: what it plots (`data_values`, `is_empty`), what its texts say (n, a
title, what its error bars are), how wide it saves and how small its text prints at its span, and what is
drawn over something else (`layout_problems`). `draw` draws it for them and notes a collapsed layout."""
from __future__ import annotations

import re
import warnings

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.text import Text

COLUMN_WIDTH = 3.3  # inches: one column of a two-column paper (a `figure`)
PAGE_WIDTH = 7.0  # inches: the text width of a two-column paper's page (a `figure*`)
SPANS = {"column": COLUMN_WIDTH, "page": PAGE_WIDTH}
# pt: the smallest text a printed figure may carry ("about 7 pt"); saved at its span's width the house
# fonts (8-11.5 pt) print as drawn, and seaborn's x-small (6.9 pt) passes; 6.5 catches text made smaller by hand
MIN_PRINTED_PT = 6.5


def figure_legends(fig) -> list:
    """The figure's legends: each axes' own and the figure legends."""
    found = [ax.get_legend() for ax in fig.axes] + list(fig.legends)
    return [leg for leg in found if leg is not None]


def line_xy(line) -> np.ndarray:
    """A line's points as an (n, 2) float array (categories and dates already converted)."""
    x, y = np.asarray(line.get_xdata(orig=False), float), np.asarray(line.get_ydata(orig=False), float)
    return np.column_stack([x, y]) if x.shape == y.shape else np.empty((0, 2))


def shows_value(width: float, height: float) -> bool:
    """True when a bar's rectangle stands for a value: finite, and not 0 x 0, the size of seaborn's
    stand-ins for bars of no data (NaN) and of its legend proxies. A bar of value 0 keeps its thickness
    (a vertical bar its width, a horizontal one its height), so it shows a value: 0."""
    return bool(np.isfinite([width, height]).all() and (width != 0 or height != 0))


def data_values(ax) -> tuple[np.ndarray, np.ndarray]:
    """The finite x and y values of what is plotted in data coordinates (lines, bars, points);
    reference lines (axhline / axvline) and spans are not data."""
    xs, ys = [], []
    for line in ax.lines:
        if line.get_transform() is ax.transData:
            xy = line_xy(line)
            xy = xy[np.isfinite(xy).all(axis=1)]
            xs.append(xy[:, 0]), ys.append(xy[:, 1])
    for p in ax.patches:
        if p.get_data_transform() is ax.transData and hasattr(p, "get_height"):
            w, h = p.get_width(), p.get_height()
            if shows_value(w, h):
                xs.append(np.array([p.get_x() + w])), ys.append(np.array([p.get_y() + h]))
    for c in ax.collections:
        arr = c.get_array()
        if arr is not None and np.size(arr):  # heatmaps and colour-mapped points: any finite cell
            if np.isfinite(np.ma.filled(np.ma.asarray(arr, float), np.nan)).any():
                xs.append(np.array([0.0])), ys.append(np.array([0.0]))
            continue
        if c.get_offset_transform() is ax.transData:  # scatter: the points are the offsets
            pts = np.asarray(c.get_offsets(), float).reshape(-1, 2)
        elif c.get_transform() is ax.transData:  # filled areas, violins, line collections
            paths = [p.vertices for p in c.get_paths() if len(p.vertices)]
            pts = np.vstack(paths) if paths else np.empty((0, 2))
        else:
            continue
        ok = np.isfinite(pts).all(axis=1)
        xs.append(pts[ok, 0]), ys.append(pts[ok, 1])
    xs += [np.array([0.0])] * len(ax.images)
    ys += [np.array([0.0])] * len(ax.images)
    cat = lambda parts: np.concatenate(parts) if parts else np.empty(0)  # noqa: E731
    return cat(xs), cat(ys)


def is_panel(ax) -> bool:
    """An axes that shows data (not a colorbar, not a switched-off axes holding only a legend)."""
    return ax.axison and not hasattr(ax, "_colorbar") and ax.get_label() != "<colorbar>"


def is_empty(ax) -> bool:
    """True when the panel has nothing plotted from data."""
    return data_values(ax)[1].size == 0


NOTE_GID = "empty-panel-note"  # the gid of note_empty's text


COLLAPSED = "axes sizes collapsed to zero"  # constrained layout's warning when the panels get no room


def draw(fig) -> None:
    """Draw the figure; when constrained layout finds no room for the panels (it then leaves them where
    they were, and warns), the figure is marked `_collapsed` so that `narrowest_panel_in` says 0 in."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig.canvas.draw()
    fig._collapsed = any(COLLAPSED in str(w.message) for w in caught)
    for w in caught:
        if COLLAPSED not in str(w.message):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def text_outline(t: Text, renderer, shrink: float = 0.0) -> np.ndarray:
    """The four corners (display pixels) of the rectangle a text is drawn in, rotated with it, each side
    pulled in by `shrink` pixels: the window extent of a rotated text is the upright box around it, and
    upright boxes of neighbouring slanted labels overlap where the labels themselves do not."""
    box = t.get_window_extent(renderer)
    angle = np.deg2rad(t.get_rotation())
    c, s = abs(np.cos(angle)), abs(np.sin(angle))
    if np.isclose(np.sin(2 * angle), 0.0) or np.isclose(c, s):
        # upright or turned by 90 degrees the box is the text's own; at 45 degrees its size does not
        # tell the text's, and the upright box (larger) stands in for it
        w, h, angle = box.width, box.height, 0.0
    else:  # solve the upright box's size (W, H) for the rotated text's own (w, h)
        w, h = np.linalg.solve([[c, s], [s, c]], [box.width, box.height])
    w, h = max(w - 2 * shrink, 0.0), max(h - 2 * shrink, 0.0)
    corners = np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2
    rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    return corners @ rot.T + [box.x0 + box.width / 2, box.y0 + box.height / 2]


def _outlines_overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """True when two convex outlines (corners in order) overlap: no side of either separates them."""
    for poly in (a, b):
        for i in range(len(poly)):
            edge = poly[(i + 1) % len(poly)] - poly[i]
            normal = np.array([-edge[1], edge[0]])
            if not normal.any():
                continue
            pa, pb = a @ normal, b @ normal
            if pa.max() <= pb.min() or pb.max() <= pa.min():
                return False
    return bool(len(a) and len(b))


def texts_overlap(a: Text, b: Text, renderer, tolerance: float = 0.0) -> bool:
    """True when two texts are drawn over each other, rotated texts by their own outline;
    `tolerance` pixels of touching are allowed (a negative one asks for that gap between them)."""
    return _outlines_overlap(text_outline(a, renderer, tolerance), text_outline(b, renderer, tolerance))


_N_STATED = re.compile(r"\bn\s?=", re.IGNORECASE)


def states_n(fig, caption: str | None = None) -> bool:
    """True when the caption, the suptitle, a panel title or any other text of the figure says n."""
    texts = [caption or ""] + [t.get_text() for t in fig.findobj(Text)]
    return any(_N_STATED.search(t) for t in texts)


def saved_width(fig) -> float:
    """Width in inches of the figure as saved with bbox_inches='tight' (legends outside included)."""
    draw(fig)
    return fig.get_tightbbox(fig.canvas.get_renderer()).width


def smallest_text_pt(fig) -> float:
    """Size in points of the smallest visible, non-empty text of the figure (ticks, labels, legends, notes)."""
    draw(fig)
    sizes = [t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    return min(sizes, default=float(plt.rcParams["font.size"]))


def printed_text_pt(fig, span: str = "column") -> tuple[float, float, float]:
    """(smallest text in points once printed at the span's width, that text's size as drawn, the saved
    width in inches): a figure wider than its span is shrunk to it, and its text with it."""
    if span not in SPANS:
        raise ValueError(f"span {span!r}: use one of {sorted(SPANS)} (a column figure or a figure* over the page)")
    width, smallest = saved_width(fig), smallest_text_pt(fig)
    return smallest * min(1.0, SPANS[span] / width), smallest, width


MIN_PANEL_IN = 0.8  # inches: a panel narrower than this at its span's width shows little but its labels


def narrowest_panel_in(fig) -> float:
    """Width in inches of the narrowest data panel as the figure now stands (inf without panels)."""
    draw(fig)
    if getattr(fig, "_collapsed", False):
        return 0.0  # constrained layout found no room for the panels at this width
    return min((ax.get_position().width * fig.get_figwidth() for ax in fig.axes if is_panel(ax)),
               default=float("inf"))


# a line that only counts ("n = 119 items", "method: n = 3 pairs; 1 of 4 unparsed (25%)") says what was
# counted, not what the figure shows
_COUNT_LINE = re.compile(r"^\s*([^:]*:\s*)?n\s?=\s?\d[^\n]*$", re.IGNORECASE)


def title_text(fig) -> str:
    """The figure's caption-like title: its suptitle, else, in a figure of one data panel, that panel's
    title, where it says more than a count ('' when none); count lines are left out. The panel titles of a
    figure of several panels name the panels ("query", a model), not what the figure shows."""
    texts = [fig._suptitle.get_text() if fig._suptitle is not None else ""]
    panels = [ax for ax in fig.axes if is_panel(ax)]
    if len(panels) == 1:
        texts += [t.get_text() for t in (panels[0].title, panels[0]._left_title)]
    said = ["\n".join(line for line in t.splitlines() if not _COUNT_LINE.match(line)) for t in texts]
    return next((t for t in said if t.strip()), "")


# plurals too ("bands: 95% intervals"); "bars:" ends in no word character, so it is matched apart
_ERRORS_NAMED = re.compile(r"\b(CIs?|intervals?|error bars?|whiskers?|bands?|s\.?d\.|s\.?e\.|IQR|quartiles?)\b"
                           r"|\b(bars?|bands?|whiskers?):", re.I)


def has_error_bars(fig) -> bool:
    """True when a panel draws error bars (matplotlib's errorbar / bar yerr, seaborn's interval lines) or
    box plots (seaborn's: what the boxes and whiskers span is a choice a reader must be told)."""
    from matplotlib.collections import LineCollection

    for ax in fig.axes:
        if any(type(c).__name__ == "BoxPlotContainer" for c in ax.containers):
            return True
        if any(isinstance(c, LineCollection) and c.get_visible() and len(c.get_segments()) for c in ax.collections):
            return True
        if ax.containers and any(getattr(c, "has_yerr", False) or getattr(c, "errorbar", None) is not None
                                 for c in ax.containers):
            return True
    return False


def names_error_bars(fig, caption: str | None = None) -> bool:
    """True when the caption or a text of the figure says what its error bars are (an interval, CI...)."""
    texts = [caption or ""] + [t.get_text() for t in fig.findobj(Text)]
    return any(_ERRORS_NAMED.search(t) for t in texts)


def _drawn_texts(fig) -> list[Text]:
    """The visible, non-empty texts a saved figure shows: titles, axis labels, tick labels in view,
    notes, legends, the suptitle (not tick labels matplotlib keeps for ticks out of view)."""
    found = []
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        found += [ax.title, ax._left_title, ax._right_title, *ax.texts]
        if ax.axison:
            # _update_ticks: the ticks in view (get_ticklabels also returns the locator's ticks beyond the limits)
            ticks = [t for axis in (ax.xaxis, ax.yaxis) for t in axis._update_ticks()]
            found += [ax.xaxis.label, ax.yaxis.label, *(lab for t in ticks for lab in (t.label1, t.label2))]
    for leg in figure_legends(fig):
        found += [*leg.get_texts(), leg.get_title()]
    found += list(fig.texts) + ([fig._suptitle] if fig._suptitle is not None else [])
    found = list({id(t): t for t in found}.values())  # the suptitle is also one of fig.texts
    return [t for t in found if t.get_visible() and t.get_text().strip()]


def overlapping_texts(fig, tolerance: float = 1.0) -> list[tuple[str, str]]:
    """Pairs of texts of the figure that are drawn over each other (titles, labels, ticks, notes,
    legends), by their texts; `tolerance` pixels of touching are allowed."""
    draw(fig)
    renderer = fig.canvas.get_renderer()
    outlines = [(t.get_text(), text_outline(t, renderer, tolerance)) for t in _drawn_texts(fig)]
    return [(a, b) for i, (a, box_a) in enumerate(outlines) for b, box_b in outlines[i + 1:]
            if _outlines_overlap(box_a, box_b)]


def layout_problems(fig) -> list[str]:
    """What a reader of the saved figure would see drawn over something else: texts over texts (tick
    labels, labels, notes, titles, legends), an empty panel's note reaching out of its panel, an x label
    reaching under another panel. Call after the finishing pass (RunOutputs.figure)."""
    found = [f"{a!r} over {b!r}" for a, b in overlapping_texts(fig)]
    renderer = fig.canvas.get_renderer()
    panels = [ax for ax in fig.axes if is_panel(ax)]
    for ax in panels:
        box = ax.get_window_extent(renderer)
        for note in [t for t in ax.texts if t.get_gid() == NOTE_GID and t.get_visible()]:
            extent = note.get_window_extent(renderer)
            if not (box.contains(*extent.min) and box.contains(*extent.max)):
                found.append(f"note {' '.join(note.get_text().split())!r} out of its panel")
        label_ = ax.xaxis.label
        if label_.get_visible() and label_.get_text().strip():
            extent = label_.get_window_extent(renderer)
            for other in panels:
                # within the other panel's frame left to right, and its tick labels' height top to bottom
                frame, tight = other.get_window_extent(renderer), other.get_tightbbox(renderer)
                if other is not ax and extent.x1 > frame.x0 and extent.x0 < frame.x1 and extent.y1 > tight.y0 \
                        and extent.y0 < tight.y1:
                    found.append(f"x label {' '.join(label_.get_text().split())!r} under another panel")
    return found
