"""A house figure on matplotlib's constrained layout: the switch to it (figure legends to its 'outside'
places, a legend made again at its new place), whether the maker laid the figure out itself, and the panels
keeping the height their maker gave them."""
from __future__ import annotations

from .figure_checks import draw, is_panel


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


def remake_legend(leg, handles, labels, owner=None, **changes):
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


def legend_entries(leg) -> tuple[list, list]:
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
            remake_legend(leg, *legend_entries(leg), loc="outside lower center" if under else "outside right upper",
                           bbox_to_anchor=None, bbox_transform=None)


def laid_out_by_maker(fig) -> bool:
    """True for a figure its maker laid out with constrained layout at its span (the forest plots, the
    bias card): the finishing pass keeps its layout and line breaks."""
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    return isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine) and not getattr(fig, "_house_layout", False)


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
