"""The house figure style: one seaborn theme, human labels for machine names (`label`), and the
finishing pass every saved figure gets (`tidy`: readable labels, integer ticks, legends off the data,
no overlapping tick labels)."""
from __future__ import annotations

import re
import textwrap
import warnings

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import seaborn as sns
from matplotlib.collections import Collection
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.text import Text
from matplotlib.ticker import AutoLocator, MaxNLocator
from matplotlib.transforms import blended_transform_factory

from lib.stats import bootstrap_ci, shown_interval

from .labels import humanize, label  # noqa: F401  (label is part of the house style's surface)

PALETTE = "colorblind"
# A paper's column is about 3.3 in wide and its full width about 7 in: at 5 x 3.2 in and these
# font sizes, a figure shrunk to one column still has text of about 7 pt.
FIGSIZE = (5.0, 3.2)
COLUMN_WIDTH = 3.3  # inches: one column of a two-column paper (a `figure`)
PAGE_WIDTH = 7.0  # inches: the text width of a two-column paper's page (a `figure*`)
SPANS = {"column": COLUMN_WIDTH, "page": PAGE_WIDTH}
# pt: the smallest text a printed figure may carry ("about 7 pt"); saved at its span's width the house
# fonts (8-11.5 pt) print as drawn, and seaborn's x-small (6.9 pt) passes; 6.5 catches text made smaller by hand
MIN_PRINTED_PT = 6.5


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
    texts += [t for leg in _legends(fig) for t in (*leg.get_texts(), leg.get_title())]
    if fig._suptitle is not None:
        texts.append(fig._suptitle)
    for t in texts:
        t.set_text(humanize(t.get_text()))
    for ax in fig.axes:
        _relabel_ticks(ax, wrap)


def _legends(fig) -> list:
    found = [ax.get_legend() for ax in fig.axes] + list(fig.legends)
    return [leg for leg in found if leg is not None]


def _line_xy(line) -> np.ndarray:
    """A line's points as an (n, 2) float array (categories and dates already converted)."""
    x, y = np.asarray(line.get_xdata(orig=False), float), np.asarray(line.get_ydata(orig=False), float)
    return np.column_stack([x, y]) if x.shape == y.shape else np.empty((0, 2))


def _shows_value(width: float, height: float) -> bool:
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
            xy = _line_xy(line)
            xy = xy[np.isfinite(xy).all(axis=1)]
            xs.append(xy[:, 0]), ys.append(xy[:, 1])
    for p in ax.patches:
        if p.get_data_transform() is ax.transData and hasattr(p, "get_height"):
            w, h = p.get_width(), p.get_height()
            if _shows_value(w, h):
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
            # x labels get fewer ticks from _unoverlap_ticks ("auto" left a 1-in wide x axis one tick)
            axis.set_major_locator(MaxNLocator(nbins="auto" if axis is ax.yaxis else 10, integer=True,
                                               steps=[1, 2, 5, 10], min_n_ticks=1))


def _along_lines(ax, per_segment: int = 24) -> np.ndarray:
    """Points along every data line (not only its vertices), in display coordinates."""
    out = []
    for line in ax.lines:
        if line.get_transform() is ax.transData and line.get_visible() and line.get_linestyle() not in ("None", ""):
            xy = _line_xy(line)
            xy = ax.transData.transform(xy[np.isfinite(xy).all(axis=1)])
            t = np.linspace(0, 1, per_segment)[:, None, None]
            if len(xy) > 1:
                out.append(((1 - t) * xy[:-1] + t * xy[1:]).reshape(-1, 2))
    return np.vstack(out) if out else np.empty((0, 2))


def _legend_over_data(ax, leg, renderer) -> bool:
    """True when the legend box covers a bar, a plotted point or a stretch of a line of its axes."""
    box = leg.get_window_extent(renderer)
    for p in ax.patches:
        if p.get_data_transform() is ax.transData and box.overlaps(p.get_window_extent(renderer)):
            return True
    x, y = data_values(ax)
    if x.size == y.size and x.size and box.count_contains(ax.transData.transform(np.column_stack([x, y]))):
        return True
    return bool(box.count_contains(_along_lines(ax)))


def _legend_kw(leg) -> dict:
    """The settings a legend is made again with (after entries are dropped or it moves): title, sizes,
    columns, frame, and its place: a figure legend's 'outside' place, else its loc and its anchor with
    the anchor's own transform (a legend under its panel keeps its offset below the tick labels)."""
    kw = dict(title=leg.get_title().get_text() or None, frameon=leg.get_frame_on(), fontsize=leg._fontsize,
              title_fontsize=leg.get_title().get_fontsize(), ncols=leg._ncols, loc=leg._loc)
    if getattr(leg, "_outside_loc", None):  # "outside right upper": constrained layout makes room for it
        name = {code: name for name, code in leg.codes.items()}[leg._loc]
        side = leg._outside_loc
        kw["loc"] = f"outside {side} {name.split()[0]}" if side in ("left", "right") else f"outside {name}"
    elif leg._bbox_to_anchor is not None:
        kw.update(bbox_to_anchor=leg._bbox_to_anchor._bbox, bbox_transform=leg._bbox_to_anchor._transform)
    return kw


def _remake_legend(leg, handles, labels, owner=None, **changes):
    """A legend made again with these entries (and `changes` to its settings) on its axes, else on its
    figure; the old one is removed. Returns the new legend (None without entries)."""
    fig = leg.get_figure(root=True)
    owner = owner if owner is not None else next((ax for ax in fig.axes if ax.get_legend() is leg), None)
    kw = {**_legend_kw(leg), **changes}
    kw["ncols"] = max(1, min(kw["ncols"], len(labels)))
    below = getattr(leg, "below", False)
    leg.remove()
    if not labels:
        return None
    new = (owner.legend if owner is not None else fig.legend)(list(handles), list(labels), **kw)
    new.below = below
    if below:  # a legend_below legend: its panel finds it again (legend_of), and it is reflowed as made
        new._below_kw, new._below_ax = getattr(leg, "_below_kw", {}), leg._below_ax
    return new


def _entries(leg) -> tuple[list, list]:
    """A legend's handles and its texts as shown (relabelled, entries without data dropped)."""
    return list(leg.legend_handles), [t.get_text() for t in leg.get_texts()]


def use_constrained_layout(fig) -> None:
    """Hand the figure's layout to matplotlib's constrained layout; a figure legend not yet placed
    outside the panels (seaborn's beside its facets, one anchored under them) takes the matching
    'outside' place, where the layout makes room for it."""
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    if not isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine):
        # the panels' height as the maker drew them: the layout keeps it (keep_panel_height)
        fig._panel_height_in = _lowest_panel_in(fig) if any(is_panel(ax) for ax in fig.axes) else None
        try:
            fig.set_layout_engine("constrained")
        except RuntimeError:  # a colorbar made under another engine: matplotlib refuses the switch
            return
        fig._house_layout = True  # switched here: the finishing pass lays it out (see `laid_out_by_maker`)
    draw(fig)
    for leg in list(fig.legends):
        if not getattr(leg, "_outside_loc", None):
            under = leg.get_window_extent(fig.canvas.get_renderer()).y1 <= 0.2 * fig.bbox.height
            _remake_legend(leg, *_entries(leg), loc="outside lower center" if under else "outside right upper",
                           bbox_to_anchor=None, bbox_transform=None)


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


def laid_out_by_maker(fig) -> bool:
    """True for a figure its maker laid out with constrained layout at its span (the forest plots, the
    bias card): the finishing pass keeps its layout and line breaks."""
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    return isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine) and not getattr(fig, "_house_layout", False)


def _legends_outside(fig, renderer) -> None:
    """A panel's legend that covers its data moves beside it (constrained layout makes room); beside a
    panel with a neighbour on its right it would lie under that neighbour, so it goes beside the figure."""
    panels = [ax for ax in fig.axes if is_panel(ax)]
    right = max((ax.get_position().x1 for ax in panels), default=1.0)
    for ax in fig.axes:
        leg = ax.get_legend()
        if leg is None or getattr(leg, "below", False) or not _legend_over_data(ax, leg, renderer):
            continue
        if ax.get_position().x1 < right - 1e-6:
            _remake_legend(leg, *_entries(leg), owner=fig, loc="outside right upper", frameon=False,
                           bbox_to_anchor=None, bbox_transform=None)
        else:
            _remake_legend(leg, *_entries(leg), loc="upper left", bbox_to_anchor=(1.01, 1.0),
                           bbox_transform=ax.transAxes, frameon=False)


def legend_below(ax, ncols: int | None = None, handles: list | None = None, **kw) -> None:
    """Put the axes' legend under the panels, as a figure legend at constrained layout's 'outside lower
    center': it adds height, not width, so the figure stays narrow enough for a column. `handles`: proxy
    artists (their labels) instead of the axes' own; without them, the entries of the axes' legend as
    shown (relabelled, empty series dropped), else its artists'. `legend_of(ax)` finds it again."""
    if handles is None and ax.get_legend() is not None:
        handles, labels = _entries(ax.get_legend())  # the finishing pass may have relabelled or dropped some
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


def _set_height(fig, height: float) -> None:
    """The figure at this height (inches, its width kept), laid out again."""
    fig.set_size_inches(fig.get_figwidth(), height, forward=True)
    draw(fig)


def keep_panel_height(fig, tries: int = 4) -> None:
    """Make the figure taller by what constrained layout took from its panels' height (the height the
    maker gave them): a heading, wrapped titles, turned tick labels and a legend under the panels take
    room of their own, as they did when saved with bbox_inches='tight', instead of squeezing the panels
    (or collapsing them, when they need more than the figure's height)."""
    wanted = getattr(fig, "_panel_height_in", None)
    for _ in range(tries if wanted else 0):
        draw(fig)
        if getattr(fig, "_collapsed", False):
            # the layout left the panels where they were, so their height says nothing: a figure half as tall
            # again lays them out when height was short; when width is (fit_to_span's to fix), it goes back
            height = fig.get_figheight()
            _set_height(fig, height * 1.5)
            if fig._collapsed:
                _set_height(fig, height)
                return
            continue
        now = _lowest_panel_in(fig)
        if wanted - now < 0.02:
            break
        height = fig.get_figheight()
        _set_height(fig, height + wanted - now)
        if fig._collapsed or _lowest_panel_in(fig) - now < 0.5 * (wanted - now):
            # the panels' height is held by something else (a fixed aspect): a taller figure only adds space
            _set_height(fig, height)
            return


def _lowest_panel_in(fig) -> float:
    """Height in inches of the lowest data panel (inf without panels)."""
    return min((ax.get_position().height * fig.get_figheight() for ax in fig.axes if is_panel(ax)),
               default=float("inf"))


def _reflow_legends_below(fig) -> None:
    """A figure's legend under its panels wider than the figure (made at the drawn width) is made again
    at its width: fewer entries to a row, or wrapped labels."""
    draw(fig)
    renderer = fig.canvas.get_renderer()
    for leg in list(fig.legends):
        if getattr(leg, "below", False) and leg.get_window_extent(renderer).width > fig.bbox.width:
            kw = dict(getattr(leg, "_below_kw", {}))
            handles, labels = _entries(leg)
            for h, text in zip(handles, labels):
                h.set_label(text)
            kw.update(handles=handles, title=leg.get_title().get_text() or None)
            legend_below(leg._below_ax, ncols=leg._ncols, **kw)
            continue
        while getattr(leg, "_outside_loc", None) == "lower" and leg._ncols > 1 \
                and leg.get_window_extent(renderer).width > fig.bbox.width:  # another maker's legend likewise
            leg = _remake_legend(leg, *_entries(leg), owner=fig, ncols=leg._ncols - 1)
            draw(fig)
    keep_panel_height(fig)


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


def _x_ticks_overlap(ax, renderer) -> bool:
    """True when two neighbouring x tick labels in view are drawn over each other."""
    ticks = ax.xaxis._update_ticks()  # the ticks in view (get_ticklabels also returns those beyond the limits)
    labels = [t.label1 for t in ticks if t.label1.get_visible() and t.label1.get_text()]
    # upright labels need a gap of 0.3 em between them ("10152025" touches without overlapping),
    # slanted ones of 0.1 em (01's "NQ" touched "MS MARCO" at 30 degrees)
    pad = [-(0.15 if t.get_rotation() == 0 else 0.1) * t.get_fontsize() * ax.figure.dpi / 72 for t in labels]
    return any(texts_overlap(a, b, renderer, tolerance=p) for a, b, p in zip(labels, labels[1:], pad))


def _turn_ticks_back(ax) -> None:
    """Undo _unoverlap_ticks' turn of the axes' x tick labels (their locator, formatter and rotation)."""
    saved = getattr(ax, "_ticks_before_turn", None)
    if saved is None:
        return
    ax.xaxis.set_major_locator(saved[0]), ax.xaxis.set_major_formatter(saved[1])
    for t in ax.get_xticklabels():
        t.set_rotation(0), t.set_ha("center"), t.set_rotation_mode("default")
    ax._ticks_before_turn = None
    draw(ax.figure)


def _unoverlap_ticks(fig, renderer) -> None:
    """x tick labels that overlap their neighbours: a numeric axis gets fewer ticks (rotated numbers are
    hard to read), then, still overlapping, or categorical, the labels slant (30, then 45 degrees); slanted and still
    overlapping (labels of two lines, "TF\nn=34", in a narrow panel), they stand upright, on one line."""
    for ax in fig.axes:
        locator = ax.xaxis.get_major_locator()
        if isinstance(locator, MaxNLocator):  # AutoLocator is one: numeric ticks, not categories
            for nbins in (5, 4, 3, 2):
                if not _x_ticks_overlap(ax, renderer):
                    break
                locator.set_params(nbins=nbins)
                draw(fig)
        if _x_ticks_overlap(ax, renderer):
            ax._ticks_before_turn = (ax.xaxis.get_major_locator(), ax.xaxis.get_major_formatter())
            for angle in (30, 45):  # steeper slants put neighbours further apart
                for t in ax.get_xticklabels():
                    t.set_rotation(angle), t.set_ha("right"), t.set_rotation_mode("anchor")
                draw(fig)
                if not _x_ticks_overlap(ax, renderer):
                    break
        if _x_ticks_overlap(ax, renderer):
            # set through the axis: tick labels set one by one are re-made from the formatter
            ax.set_xticks(ax.get_xticks(), [" ".join(t.get_text().split("\n")) for t in ax.get_xticklabels()],
                          rotation=90, ha="center", rotation_mode="default")
            draw(fig)


def _mark_lone_points(ax) -> None:
    """A line through one finite point draws nothing: give it a marker so the value shows."""
    for line in ax.lines:
        if line.get_transform() is ax.transData and line.get_marker() in (None, "None", "", " "):
            if np.count_nonzero(np.isfinite(_line_xy(line)).all(axis=1)) == 1:
                line.set_marker("o")


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
    return artist.get_data_transform() is ax.transData and _shows_value(w, h) and (w == 0 or h == 0)


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
                shows = artist.get_transform() is not ax.transData or np.isfinite(_line_xy(artist)).all(axis=1).any()
            elif isinstance(artist, Patch) and hasattr(artist, "get_height"):
                shows = (artist.get_data_transform() is not ax.transData
                         or _shows_value(artist.get_width(), artist.get_height()))
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
            and np.isfinite(_line_xy(line)).all(axis=1).any()}


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
    for leg in _legends(fig):
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
        new = _remake_legend(leg, *(zip(*keep) if keep else ([], [])))
        if new is not None and getattr(new, "below", False):
            new._below_kw = dict(new._below_kw, handles=list(new.legend_handles))


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
    _legends_outside(fig, renderer)
    _unoverlap_ticks(fig, renderer)
    _wrap_to_panels(fig)
    keep_panel_height(fig)


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


def _center_titles(fig) -> None:
    """The title of a panel alone in its row centred on the figure, not on the panel (its tick labels
    push it off-centre): there a title as wide as the figure fits, and constrained layout, which
    keeps a title inside the figure, does not shrink the panel for it. x in figure, y in axes units."""
    for ax in fig.axes:
        if is_panel(ax) and _alone_in_row(fig, ax) and ax.title.get_text().strip():
            ax.title.set_transform(blended_transform_factory(fig.transFigure, ax.transAxes) + ax.titleOffsetTrans)
            ax.title.set_x(0.5)


def _wrap_to(t: Text, renderer, room: float, original: str, min_chars: int = 8) -> None:
    """Wrap `original` into `t` on lines short enough for the drawn text to be at most `room` pixels long
    (or its lines `min_chars` characters long, words unbroken)."""
    t.set_text(original)
    chars = max(len(line) for line in original.split("\n"))
    # a text turned upright (a y label) runs along its box's height
    length = (lambda: t.get_window_extent(renderer).height) if t.get_rotation() % 180 == 90 else (
        lambda: t.get_window_extent(renderer).width)
    while length() > room and chars > min_chars:
        chars -= 2
        t.set_text("\n".join(textwrap.fill(_one_line(line), chars, break_long_words=False)
                             for line in original.split("\n")))


def _one_line(text: str) -> str:
    """The text on one line (no-break spaces kept: "n = 2" stays together when wrapped again)."""
    return re.sub(r"[ \n]+", " ", text).strip()


def _unwrapped(t: Text, keep_breaks: bool = False) -> str:
    """The text as first set, before this module wrapped it (each layout pass wraps again from it, kept on
    the text): its own line breaks kept with `keep_breaks`, else on one line."""
    if not getattr(t, "_unwrapped", None):
        t._unwrapped = t.get_text() if keep_breaks else _one_line(t.get_text())
    return t._unwrapped


def _wrap_to_panels(fig) -> None:
    """A y label longer than its panel is tall wraps to its height; in a row of panels, an x label wider
    than its panel wraps to the panel's width, and a title to the room its neighbours' titles leave it;
    the x label of a panel alone in its row wraps to the figure's width around the panel's centre.
    Constrained layout counts only the height of titles and x labels (their width is not kept apart from
    the next panel's) and never wraps text."""
    draw(fig)
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        label_ = ax.yaxis.label
        if is_panel(ax) and label_.get_visible() and label_.get_text().strip():
            # a y label longer than its panel is tall runs past it into the title (05_likelihood_vs_parsed)
            # its own line breaks (a label set on two lines on purpose) kept
            _wrap_to(label_, renderer, ax.get_window_extent(renderer).height, _unwrapped(label_, keep_breaks=True))
        if not is_panel(ax):
            continue
        box = ax.get_window_extent(renderer)
        centre = (box.x0 + box.x1) / 2
        if _alone_in_row(fig, ax):
            # centred on its panel, a long x label ("one point, not a curve: ...") may run out of the
            # figure, and the saved figure then widens past its span; one that fits the figure's width moves
            # off the panel's centre as far as it must (wrapping it to the room on both sides of the centre
            # split 05's "parsed score (paper method)" for 1 px)
            label_ = ax.xaxis.label
            if label_.get_visible() and label_.get_text().strip():
                _fit_lone_x_label(label_, renderer, box, fig.bbox.width)
            continue
        # two titles centred on their panels meet when their half widths add up to the centres' distance:
        # a title beside a short one may take what that one leaves ("human passage" beside "query")
        rooms = []
        for other in _row_mates(fig, ax):
            o_box, o_title = other.get_window_extent(renderer), other.title
            gap = abs((o_box.x0 + o_box.x1) / 2 - centre) - 4
            o_width = o_title.get_window_extent(renderer).width if o_title.get_text().strip() else 0.0
            rooms.append(max(gap, 2 * gap - o_width))
        for text, room in ((ax.xaxis.label, box.width), (ax.title, min(rooms))):
            if not (text.get_visible() and text.get_text().strip()):
                continue
            _wrap_to(text, renderer, room, _unwrapped(text))  # the panel's width changed: wrap the whole text


def _fit_lone_x_label(label_: Text, renderer, box, width: float, pad: float = 2.0) -> None:
    """A lone panel's x label centred on the panel (`box`): as set when its lines fit the figure's width
    less `pad` px a side, shifted only as far as it must to stay inside the figure; else wrapped to the
    room on both sides of the centre (x in axes units; y is the axis's)."""
    label_.set_x(0.5)
    original, centre = _unwrapped(label_, keep_breaks=True), (box.x0 + box.x1) / 2
    label_.set_text(original)
    half = label_.get_window_extent(renderer).width / 2
    if 2 * half > width - 2 * pad:  # a label that must wrap anyway stays centred on its panel
        _wrap_to(label_, renderer, 2 * (min(centre, width - centre) - pad), original)
        return
    centre = min(max(centre, half + pad), width - half - pad)
    label_.set_x((centre - box.x0) / box.width)


NOTE_PAD_PX = 4  # pixels kept between an empty panel's note and the panel's frame


def _fit_notes(fig) -> None:
    """An empty panel's note (note_empty's, outside the layout) re-wrapped to the panel's final width,
    in a smaller size if its lines are still wider: spilling out of the panel it covers the tick labels beside it."""
    draw(fig)
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        box = ax.get_window_extent(renderer)
        room_w, room_h = box.width - 2 * NOTE_PAD_PX, box.height - 2 * NOTE_PAD_PX
        for note in [t for t in ax.texts if t.get_gid() == NOTE_GID and t.get_visible()]:
            original = _unwrapped(note)
            for size in ("medium", "small", "x-small"):  # x-small: 6.9 pt, still above MIN_PRINTED_PT
                note.set_fontsize(size)
                _wrap_to(note, renderer, room_w, original)
                extent = note.get_window_extent(renderer)
                if extent.width <= room_w and extent.height <= room_h:
                    break


def _fit_width(fig, target: float, tries: int) -> float:
    """Set the figure's width so that its tight bounding box is `target` inches wide (constrained layout
    lays the panels out in it); labels and legends are wrapped and reflowed to the width at each step."""
    for _ in range(tries):
        _wrap_to_panels(fig)
        _reflow_legends_below(fig)
        width = saved_width(fig)
        if abs(width - target) < 0.02:
            break
        # within MAX_WIDTH_STEP of the span: content that cannot fit (a legend beside long names) makes
        # constrained layout give up, and a narrower figure would only fit less
        step = min(max(target - width, -MAX_WIDTH_STEP), MAX_WIDTH_STEP)
        fig.set_size_inches(min(max(fig.get_figwidth() + step, target - MAX_WIDTH_STEP), target + MAX_WIDTH_STEP),
                            fig.get_figheight(), forward=True)
    return saved_width(fig)


MAX_WIDTH_STEP = 0.3  # inches: how far the figure's width may move from its span's to make the saved width fit


def fit_to_span(fig, span: str = "column", tries: int = 4) -> float:
    """Lay the figure out (matplotlib's constrained layout) as wide as its span once saved with
    bbox_inches='tight' (3.3 in for a column, 7 in for the page): text keeps its size, so what prints is
    what was drawn. Only the width changes; tick labels that then overlap are rotated. Returns the saved
    width in inches (padding included)."""
    # bbox_inches='tight' adds savefig.pad_inches on each side of the drawn content
    target = SPANS[span] - 2 * float(plt.rcParams["savefig.pad_inches"])
    use_constrained_layout(fig)
    for ax in fig.axes:
        _turn_ticks_back(ax)  # turned by tidy at the drawn width, they may fit upright at the span's
    fig.set_size_inches(target, fig.get_figheight(), forward=True)
    _center_titles(fig)
    _wrap_titles(fig, target)
    _fit_width(fig, target, tries)
    if _narrow_y_labels(fig, target):
        _fit_width(fig, target, tries)
    renderer = fig.canvas.get_renderer()
    # a legend placed at 'best' for the drawn width may lie over the data at the span's width
    covering = any(_legend_over_data(ax, ax.get_legend(), renderer) for ax in fig.axes
                   if ax.get_legend() is not None and not getattr(ax.get_legend(), "below", False))
    too_wide = saved_width(fig) > target + 0.05
    if narrowest_panel_in(fig) < MIN_PANEL_IN or covering or too_wide or _squeezed_by_legend(fig, target):
        # a legend beside the panel takes the width it needs: under the panel it takes height instead
        fig.set_size_inches(target, fig.get_figheight(), forward=True)
        for ax in fig.axes:
            if ax.get_legend() is not None and not getattr(ax.get_legend(), "below", False):
                legend_below(ax)
        _fit_width(fig, target, tries)
    draw(fig)
    _unoverlap_ticks(fig, fig.canvas.get_renderer())
    _fit_width(fig, target, tries)
    _fit_notes(fig)
    return saved_width(fig) + 2 * float(plt.rcParams["savefig.pad_inches"])


MIN_LONE_PANEL_SHARE = 0.5  # of the span: a panel alone in its row narrower than this gave its width to a legend


NARROW_WRAP_Y_TICKS = 14  # characters: category names of a squeezed panel's y axis wrap to this


def _narrow_y_labels(fig, target: float) -> bool:
    """Category names on the y axis of a panel alone in its row that leave it under half the span
    (02_verification: a 1.1-in panel beside 22-character names) wrap to NARROW_WRAP_Y_TICKS characters;
    True when any did."""
    changed = False
    for ax in fig.axes:
        if not _squeezed_lone_panel(fig, ax, target):
            continue
        texts = [t.get_text() for t in ax.get_yticklabels()]
        if not texts or all(re.fullmatch(r"[-\u2212\d.,e+ ]*", t) for t in texts):
            continue  # numbers, not names
        # a hyphenated name stays whole ("utility-judgments Table 3" split after "utility-" read badly)
        new = [textwrap.fill(_one_line(t), NARROW_WRAP_Y_TICKS, break_long_words=False, break_on_hyphens=False)
               for t in texts]
        if new != texts:
            ax.set_yticks(ax.get_yticks(), new)
            changed = True
    return changed


def _squeezed_by_legend(fig, target: float) -> bool:
    """True when a panel alone in its row has a legend beside it and is left narrower than half the
    span (03_perplexity: a 1.25-in panel beside its legend in a 3.3-in column)."""
    draw(fig)
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        leg = ax.get_legend()
        if leg is None or getattr(leg, "below", False) or not _squeezed_lone_panel(fig, ax, target):
            continue
        if leg.get_window_extent(renderer).x0 >= ax.get_window_extent(renderer).x1 - 1:  # beside the panel
            return True
    return False


def _squeezed_lone_panel(fig, ax, target: float) -> bool:
    """True for a data panel alone in its row left narrower than MIN_LONE_PANEL_SHARE of the span."""
    return (is_panel(ax) and _alone_in_row(fig, ax)
            and ax.get_position().width * fig.get_figwidth() < MIN_LONE_PANEL_SHARE * target)


def _row_mates(fig, ax) -> list:
    """The other data panels that share the axes' height band (its row)."""
    box = ax.get_position()
    return [o for o in fig.axes
            if o is not ax and is_panel(o) and o.get_position().y0 < box.y1 and o.get_position().y1 > box.y0]


def _panels_in_row(fig, ax) -> int:
    """How many data panels share the axes' height band, the axes included."""
    return 1 + len(_row_mates(fig, ax))


def _alone_in_row(fig, ax) -> bool:
    """True when no other data panel shares the axes' height band (a panel alone in its row)."""
    return _panels_in_row(fig, ax) == 1


def _wrap_titles(fig, width_in: float) -> None:
    """Titles (the suptitle, each panel's) wider than their room wrap onto more lines: a caption-like
    title must not widen the figure beyond its span."""
    draw(fig)
    renderer = fig.canvas.get_renderer()
    texts = [(fig._suptitle, width_in)] if fig._suptitle is not None else []
    for ax in fig.axes:
        box = ax.get_position()
        # a panel's title may take its share of the row (the whole width for a panel alone in it): the
        # gaps between panels are room too, so a title as wide as its panel's slot does not wrap
        room = 0.95 * width_in / _panels_in_row(fig, ax) if is_panel(ax) else width_in * max(box.width, 1 / 3)
        texts += [(t, room) for t in (ax.title, ax._left_title)]
    for t, room in texts:
        text = t.get_text()
        if not text.strip() or t.get_window_extent(renderer).width / fig.dpi <= room:
            continue
        chars = max(int(room * 72 / (0.5 * t.get_fontsize())), 12)  # a character is about 0.5 em wide
        # "n = 2" and "n < 30" stay on one line: textwrap does not break at a no-break space
        text = _N_STATED_SPACES.sub("n\u00a0\\1\u00a0", text)
        while True:  # narrower lines until the drawn text fits its room (or lines are short already)
            t.set_text("\n".join(textwrap.fill(line, chars, break_long_words=False) for line in text.split("\n")))
            if chars <= 12 or t.get_window_extent(renderer).width / fig.dpi <= room:
                break
            chars -= 3


_N_STATED_SPACES = re.compile(r"\bn ([=<>≤≥]) (?=\d)")
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
    for leg in _legends(fig):
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
