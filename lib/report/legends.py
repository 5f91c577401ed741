"""Where a figure's legends go and what they list: off the data (beside the panel, or under the panels
as a figure legend that fits the figure's width), and only entries of series that show a value."""
from __future__ import annotations

import textwrap

import matplotlib
import numpy as np
from matplotlib.collections import Collection
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from .figure_checks import data_values, draw, figure_legends, is_panel, line_xy, shows_value
from .layout import keep_panel_height, legend_entries, remake_legend, use_constrained_layout


def _along_lines(ax, per_segment: int = 24) -> np.ndarray:
    """Points along every data line (not only its vertices), in display coordinates."""
    out = []
    for line in ax.lines:
        if line.get_transform() is ax.transData and line.get_visible() and line.get_linestyle() not in ("None", ""):
            xy = line_xy(line)
            xy = ax.transData.transform(xy[np.isfinite(xy).all(axis=1)])
            t = np.linspace(0, 1, per_segment)[:, None, None]
            if len(xy) > 1:
                out.append(((1 - t) * xy[:-1] + t * xy[1:]).reshape(-1, 2))
    return np.vstack(out) if out else np.empty((0, 2))


def legend_over_data(ax, leg, renderer) -> bool:
    """True when the legend box covers a bar, a plotted point or a stretch of a line of its axes."""
    box = leg.get_window_extent(renderer)
    for p in ax.patches:
        if p.get_data_transform() is ax.transData and box.overlaps(p.get_window_extent(renderer)):
            return True
    x, y = data_values(ax)
    if x.size == y.size and x.size and box.count_contains(ax.transData.transform(np.column_stack([x, y]))):
        return True
    return bool(box.count_contains(_along_lines(ax)))


def legends_outside(fig, renderer) -> None:
    """A panel's legend that covers its data moves beside it (constrained layout makes room); beside a
    panel with a neighbour on its right it would lie under that neighbour, so it goes beside the figure."""
    panels = [ax for ax in fig.axes if is_panel(ax)]
    right = max((ax.get_position().x1 for ax in panels), default=1.0)
    for ax in fig.axes:
        leg = ax.get_legend()
        if leg is None or getattr(leg, "below", False) or not legend_over_data(ax, leg, renderer):
            continue
        if ax.get_position().x1 < right - 1e-6:
            remake_legend(leg, *legend_entries(leg), owner=fig, loc="outside right upper", frameon=False,
                           bbox_to_anchor=None, bbox_transform=None)
        else:
            remake_legend(leg, *legend_entries(leg), loc="upper left", bbox_to_anchor=(1.01, 1.0),
                           bbox_transform=ax.transAxes, frameon=False)


def legend_below(ax, ncols: int | None = None, handles: list | None = None, **kw) -> None:
    """Put the axes' legend under the panels, as a figure legend at constrained layout's 'outside lower
    center': it adds height, not width, so the figure stays narrow enough for a column. `handles`: proxy
    artists (their labels) instead of the axes' own; without them, the entries of the axes' legend as
    shown (relabelled, empty series dropped), else its artists'. `legend_of(ax)` finds it again."""
    if handles is None and ax.get_legend() is not None:
        handles, labels = legend_entries(ax.get_legend())  # the finishing pass may have relabelled or dropped some
    elif handles is None:
        handles, labels = ax.get_legend_handles_labels()
    else:
        labels = [h.get_label() for h in handles]
    if ax.get_legend() is not None:
        kw.setdefault("title", ax.get_legend().get_title().get_text() or None)  # keeps its title
        ax.get_legend().remove()
    fig = ax.get_figure(root=True)
    old = _below_legend(ax)
    if old is not None:
        old.remove()
    if not handles:
        return
    use_constrained_layout(fig)  # the 'outside' place is constrained layout's
    ncols = ncols or min(len(labels), 3)
    while True:
        leg = fig.legend(handles, labels, loc="outside lower center", frameon=False, ncols=ncols, **kw)
        draw(fig)
        # matplotlib picks no number of columns: fewer entries to a row while the row is wider than the figure
        if ncols == 1 or leg.get_window_extent(fig.canvas.get_renderer()).width <= fig.bbox.width:
            break
        leg.remove()
        ncols -= 1
    if ncols == 1 and leg.get_window_extent(fig.canvas.get_renderer()).width > fig.bbox.width:
        size = max((t.get_fontsize() for t in leg.get_texts()), default=10.0)
        chars = max(int((fig.get_figwidth() - 0.5) * 72 / (0.5 * size)), 12)  # a character: about 0.5 em
        for t in leg.get_texts():  # one entry to a row and still too wide: its long labels wrap
            t.set_text(textwrap.fill(t.get_text(), chars, break_long_words=False))
    leg.below, leg._below_kw, leg._below_ax = True, dict(kw, handles=list(handles)), ax
    keep_panel_height(fig)


def _below_legend(ax):
    """The figure legend `legend_below` put under the panels for the axes (None without)."""
    return next((leg for leg in ax.get_figure(root=True).legends if getattr(leg, "_below_ax", None) is ax), None)


def legend_of(ax):
    """The axes' legend: its own, else the one `legend_below` put under the panels for it (None without)."""
    return ax.get_legend() or _below_legend(ax)


def reflow_legends_below(fig) -> None:
    """A figure's legend under its panels wider than the figure (made at the drawn width) is made again
    at its width: fewer entries to a row, or wrapped labels."""
    draw(fig)
    renderer = fig.canvas.get_renderer()
    for leg in list(fig.legends):
        if getattr(leg, "below", False) and leg.get_window_extent(renderer).width > fig.bbox.width:
            kw = dict(getattr(leg, "_below_kw", {}))
            handles, labels = legend_entries(leg)
            for h, text in zip(handles, labels):
                h.set_label(text)
            kw.update(handles=handles, title=leg.get_title().get_text() or None)
            legend_below(leg._below_ax, ncols=leg._ncols, **kw)
            continue
        while getattr(leg, "_outside_loc", None) == "lower" and leg._ncols > 1 \
                and leg.get_window_extent(renderer).width > fig.bbox.width:  # another maker's legend likewise
            leg = remake_legend(leg, *legend_entries(leg), owner=fig, ncols=leg._ncols - 1)
            draw(fig)
    keep_panel_height(fig)


def _rgb(colors) -> list[tuple]:
    """Colours as rounded RGB tuples; alpha is ignored (a series' bars and its legend patch may differ
    in it) and invisible colours ('none') are left out."""
    return [tuple(np.round(c[:3], 3)) for c in matplotlib.colors.to_rgba_array(colors) if c[3] > 0]


def _artist_colors(artist) -> list[tuple]:
    """The colours an artist (or a legend handle) is drawn in: a line's and its markers', a patch's face,
    a collection's faces and edges."""
    if isinstance(artist, Line2D):
        return _rgb([artist.get_color(), artist.get_markerfacecolor()])
    if isinstance(artist, Patch):
        return _rgb([artist.get_facecolor()])
    if isinstance(artist, Collection):
        return _rgb(artist.get_facecolor()) + _rgb(artist.get_edgecolor())
    return []


def _zero_bar(artist, ax) -> bool:
    """True for a data bar of value 0: a rectangle of no length that keeps its thickness."""
    w, h = artist.get_width(), artist.get_height()
    return artist.get_data_transform() is ax.transData and shows_value(w, h) and (w == 0 or h == 0)


def _drawn_colors(fig, zero_bars: bool = True) -> set:
    """Colours of everything that shows a value: data artists with a finite value anywhere in the figure,
    and reference lines (a legend entry may name a chance line, which is not data); `zero_bars=False`
    leaves out bars of value 0, which show their value but draw nothing."""
    found = set()
    for ax in fig.axes:
        for artist in [*ax.lines, *ax.patches, *ax.collections]:
            if not artist.get_visible():
                continue
            if isinstance(artist, Line2D):
                shows = artist.get_transform() is not ax.transData or np.isfinite(line_xy(artist)).all(axis=1).any()
            elif isinstance(artist, Patch) and hasattr(artist, "get_height"):
                shows = (artist.get_data_transform() is not ax.transData
                         or shows_value(artist.get_width(), artist.get_height()))
                shows = shows and (zero_bars or not _zero_bar(artist, ax))
            elif isinstance(artist, Collection):
                pts = np.asarray(artist.get_offsets(), float).reshape(-1, 2)
                paths = [p.vertices for p in artist.get_paths() if len(p.vertices)]
                shows = np.isfinite(pts).all(axis=1).any() or any(np.isfinite(v).all(axis=1).any() for v in paths)
            else:
                shows = True
            if shows:
                found.update(_artist_colors(artist))
    return found


def _header(handle) -> bool:
    """A legend entry that draws nothing: a header of seaborn's legend of several semantics ("source",
    "retriever"), its handle a line of no width and no marker."""
    return isinstance(handle, Line2D) and handle.get_linewidth() == 0 and handle.get_marker() in ("", "None", None, " ")


def _drawn_styles(fig) -> set:
    """(line style, marker) of every data line with a finite point: what a style key of a legend
    (seaborn's `style=`, drawn in grey) stands for."""
    return {(line.get_linestyle(), line.get_marker()) for ax in fig.axes for line in ax.lines
            if line.get_visible() and line.get_transform() is ax.transData
            and np.isfinite(line_xy(line)).all(axis=1).any()}


def _style_key(handle, styles: set) -> bool:
    """A legend entry in grey whose line style and marker a data line draws: a style key (seaborn's
    `style=`), which stands for a style in every colour; a coloured line of that style stands for its own series."""
    colors = _artist_colors(handle)
    return (isinstance(handle, Line2D) and bool(colors) and all(c[0] == c[1] == c[2] for c in colors)
            and (handle.get_linestyle(), handle.get_marker()) in styles)


def _headers_with_entries(entries, shown) -> list[bool]:
    """Per legend entry: False for a header none of whose entries (up to the next header) is shown."""
    out = [True] * len(entries)
    for i, (h, _) in enumerate(entries):
        if _header(h):
            j = i + 1
            while j < len(entries) and not _header(entries[j][0]):
                j += 1
            out[i] = any(shown[i + 1:j])
    return out


ZERO_NOTE = " (0 in every bar)"


def drop_empty_legend_entries(fig) -> None:
    """A legend names only series with data: an entry whose colour no plotted value in the figure
    carries (every bar of that series NaN, a line of no finite point) is removed, and a legend left
    with no entry goes. A series whose every bar is 0 draws nothing but has values: its entry stays and
    says so (ZERO_NOTE)."""
    drawn, visible = _drawn_colors(fig), _drawn_colors(fig, zero_bars=False)
    for leg in figure_legends(fig):
        for h, t in zip(leg.legend_handles, leg.get_texts()):
            colors = set(_artist_colors(h))
            if colors & drawn and not colors & visible and "0 in every" not in t.get_text():
                t.set_text(t.get_text() + ZERO_NOTE)
        entries = list(zip(leg.legend_handles, [t.get_text() for t in leg.get_texts()]))
        styles = _drawn_styles(fig)
        shown = [not _artist_colors(h) or bool(set(_artist_colors(h)) & drawn) or _header(h) or _style_key(h, styles)
                 for h, _ in entries]
        keep = [e for e, ok, useful in zip(entries, shown, _headers_with_entries(entries, shown)) if ok and useful]
        if len(keep) == len(entries):
            continue
        new = remake_legend(leg, *(zip(*keep) if keep else ([], [])))
        if new is not None and getattr(new, "below", False):
            new._below_kw = dict(new._below_kw, handles=list(new.legend_handles))
