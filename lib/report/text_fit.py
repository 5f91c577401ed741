"""Text fitted to the figure's width: tick labels that overlap get fewer ticks, slant or stand upright;
titles, axis labels and empty panels' notes wrap to their room; `fit_to_span` lays a figure out as wide as
a paper's column or page with its text at the size it was drawn."""
from __future__ import annotations

import re
import textwrap

import matplotlib.pyplot as plt
from matplotlib.ticker import MaxNLocator
from matplotlib.text import Text
from matplotlib.transforms import blended_transform_factory

from .figure_checks import MIN_PANEL_IN, NOTE_GID, SPANS, draw, is_panel, narrowest_panel_in, saved_width, texts_overlap
from .layout import use_constrained_layout
from .legends import legend_below, legend_over_data, reflow_legends_below


def _x_ticks_overlap(ax, renderer) -> bool:
    """True when two neighbouring x tick labels in view are drawn over each other."""
    ticks = ax.xaxis._update_ticks()  # the ticks in view (get_ticklabels also returns those beyond the limits)
    labels = [t.label1 for t in ticks if t.label1.get_visible() and t.label1.get_text()]
    # upright labels need a gap of 0.3 em between them ("10152025" touches without overlapping),
    # slanted ones of 0.1 em (01's "NQ" touched "MS MARCO" at 30 degrees)
    pad = [-(0.15 if t.get_rotation() == 0 else 0.1) * t.get_fontsize() * ax.figure.dpi / 72 for t in labels]
    return any(texts_overlap(a, b, renderer, tolerance=p) for a, b, p in zip(labels, labels[1:], pad))


def _turn_ticks_back(ax) -> None:
    """Undo unoverlap_ticks' turn of the axes' x tick labels (their locator, formatter and rotation)."""
    saved = getattr(ax, "_ticks_before_turn", None)
    if saved is None:
        return
    ax.xaxis.set_major_locator(saved[0]), ax.xaxis.set_major_formatter(saved[1])
    for t in ax.get_xticklabels():
        t.set_rotation(0), t.set_ha("center"), t.set_rotation_mode("default")
    ax._ticks_before_turn = None
    draw(ax.figure)


def unoverlap_ticks(fig, renderer) -> None:
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


def wrap_to_panels(fig) -> None:
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
        wrap_to_panels(fig)
        reflow_legends_below(fig)
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
    covering = any(legend_over_data(ax, ax.get_legend(), renderer) for ax in fig.axes
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
    unoverlap_ticks(fig, fig.canvas.get_renderer())
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
