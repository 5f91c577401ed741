"""The finishing pass lays out narrow panels so that nothing is drawn over anything else, measured with
matplotlib's renderer: an empty panel's note stays inside its panel (off the tick labels beside it), an
x label stays under its own panel, tick labels of two lines that collide slanted stand upright, a legend
beside a lone panel does not leave it under half the column, and box plots say what their boxes are."""
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
import seaborn as sns  # noqa: E402

from lib.report.outputs import FigureWarning, RunOutputs  # noqa: E402
from lib.report.figure_checks import COLUMN_WIDTH, layout_problems, texts_overlap  # noqa: E402
from lib.report.legends import legend_of  # noqa: E402
from lib.report.plotting import house_style, note_empty, state_n  # noqa: E402

LONG_NOTE = "no reply in the paper's format: see the likelihood panel"


@pytest.fixture
def out():
    house_style()
    yield RunOutputs("t", "nb")
    plt.close("all")


def _two_panels(labels, note=True):
    """06/07's layout: two panels sharing the 0-1 axis, the left one empty with a long note, the right one
    with grouped bars over two-line 'name\\nn=..' tick labels and the same x label under each."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(5.0, 3.0), sharey=True)
    for ax in (left, right):
        ax.set_xticks(range(len(labels)), [f"{c}\nn={10 * i}" for i, c in enumerate(labels)])
        ax.set(xlabel="factuality (self, other)", ylim=(0, 1))
    if note:
        note_empty(left, LONG_NOTE)
    for j, colour in enumerate(("C0", "C1", "C2")):
        right.bar(np.arange(len(labels)) - 0.27 + 0.27 * j, [0.4, 0.5, 0.8, 0.3][:len(labels)], 0.27, color=colour)
    left.set_ylabel("self-preference")
    state_n(fig, "Self-preference per factuality (bars: rates)\nn = 60 pairs")
    return fig, left, right


def test_an_empty_panels_note_stays_inside_its_narrow_panel(out):
    """06_figure3_self_by_combo (demo run): the note, wrapped for the panel as first drawn, spilled over
    the shared y axis's tick labels once the figure was brought to a column's width."""
    fig, left, _ = _two_panels(["TT", "TF", "FT", "FF"])
    out.figure(fig, "note")
    renderer = fig.canvas.get_renderer()
    note = left.texts[0]
    frame, extent = left.get_window_extent(renderer), note.get_window_extent(renderer)
    assert frame.x0 <= extent.x0 and extent.x1 <= frame.x1 and frame.y0 <= extent.y0 and extent.y1 <= frame.y1
    ticks = [t for t in left.get_yticklabels() if t.get_text()]
    assert ticks and not any(texts_overlap(note, t, renderer) for t in ticks)
    assert " ".join(note.get_text().split()) == "no data: " + LONG_NOTE  # re-wrapped, not cut
    assert note.get_fontsize() >= 6.5
    assert layout_problems(fig) == []


def test_an_x_label_wider_than_its_panel_wraps_under_it(out):
    """06/07: the empty panel's x label (no tick labels above it) ran under the next panel's tick labels."""
    fig, left, right = _two_panels(["TT", "TF", "FT", "FF"])
    out.figure(fig, "xlabel")
    renderer = fig.canvas.get_renderer()
    for ax in (left, right):
        label, frame = ax.xaxis.label.get_window_extent(renderer), ax.get_window_extent(renderer)
        # within its panel's frame, give or take the gap to its neighbour
        assert label.width <= frame.width + 1
        assert " ".join(ax.get_xlabel().split()) == "factuality (self, other)"
    assert left.xaxis.label.get_window_extent(renderer).x1 < right.get_window_extent(renderer).x0
    assert layout_problems(fig) == []


def test_two_line_tick_labels_that_collide_slanted_stand_upright_on_one_line(out):
    """06/07: 'TT\\nn=0' labels slanted by 30 degrees still ran into each other in a 1-in panel."""
    fig, _, right = _two_panels(["TT", "TF", "FT", "FF"])
    out.figure(fig, "ticks")
    renderer = fig.canvas.get_renderer()
    labels = [t for t in right.get_xticklabels() if t.get_text()]
    assert [t.get_text() for t in labels] == ["TT n=0", "TF n=10", "FT n=20", "FF n=30"]
    assert not any(texts_overlap(a, b, renderer) for a, b in zip(labels, labels[1:]))
    assert layout_problems(fig) == []


def test_short_labels_that_fit_stay_as_they_are(out):
    """The upright turn is the last resort: two categories in a column's panel keep their two lines."""
    fig, ax = plt.subplots()
    ax.bar([0, 1], [0.4, 0.6])
    ax.set_xticks([0, 1], ["TT\nn=4", "TF\nn=5"])
    ax.set_title("Rate per combination (n = 9 pairs)")
    out.figure(fig, "short")
    assert [t.get_text() for t in ax.get_xticklabels()] == ["TT\nn=4", "TF\nn=5"]
    assert all(t.get_rotation() == 0 for t in ax.get_xticklabels())


def test_slanted_neighbours_overlap_only_where_their_outlines_do():
    """Upright boxes of slanted labels overlap where the labels do not: the outline test tells them apart."""
    house_style()
    fig, ax = plt.subplots(figsize=(3.0, 2.0))
    ax.set_xticks([0, 1, 2], ["MS MARCO long name", "TriviaQA long name", "NQ"], rotation=30, ha="right",
                  rotation_mode="anchor")
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    a, b, _ = ax.get_xticklabels()
    assert a.get_window_extent(renderer).overlaps(b.get_window_extent(renderer))  # the upright boxes do
    assert not texts_overlap(a, b, renderer)
    c = ax.text(0.5, 0.5, "over", transform=ax.transAxes)  # a text set on the label itself does overlap
    c.set_position(a.get_position()), c.set_transform(a.get_transform())
    fig.canvas.draw()
    assert texts_overlap(a, c, renderer)
    plt.close(fig)


def _boxes(ax):
    rng = np.random.default_rng(0)
    data = pd.DataFrame({"dataset": np.repeat(["NQ", "MS MARCO", "TriviaQA"], 20),
                         "author": np.tile(["human", "SmolLM2"], 30), "v": rng.normal(1.1, 0.15, 60)})
    sns.boxplot(data=data, x="dataset", y="v", hue="author", ax=ax)


def test_a_legend_beside_a_lone_panel_that_leaves_it_under_half_the_column_moves_under_it(out):
    """03_perplexity (demo run): the legend beside the boxes left the panel 1.25 in of a 3.3-in column."""
    fig, ax = plt.subplots()
    _boxes(ax)
    sns.move_legend(ax, "upper left", bbox_to_anchor=(1.01, 1.0))
    ax.set_title("Passage perplexity (boxes: quartiles, whiskers: 1.5 IQR), n = 60 passages")
    with warnings.catch_warnings():
        warnings.simplefilter("error", FigureWarning)
        out.figure(fig, "perplexity")
    assert legend_of(ax).below
    assert ax.get_position().width * fig.get_figwidth() >= 0.5 * (COLUMN_WIDTH - 0.2)
    assert layout_problems(fig) == []


def test_box_plots_that_do_not_say_what_their_boxes_are_warn(out):
    fig, ax = plt.subplots()
    _boxes(ax)
    ax.set_title("Passage perplexity, n = 60 passages")
    with pytest.warns(FigureWarning, match="error bars that nothing names"):
        out.figure(fig, "boxes_unnamed")
    fig, ax = plt.subplots()
    _boxes(ax)
    ax.set_title("Passage perplexity (boxes: quartiles, whiskers: 1.5 IQR), n = 60 passages")
    with warnings.catch_warnings():
        warnings.simplefilter("error", FigureWarning)
        out.figure(fig, "boxes_named")


def test_labels_slanted_at_the_drawn_width_stand_upright_when_the_span_has_room(out):
    """11's Fig. 4 over the page: slanted by tidy at the 5-in drawn width, its three dataset names stayed
    slanted at 7 in, where they fit upright."""
    fig, axes = plt.subplots(1, 2, figsize=(2.5, 2.5))
    for ax in axes:
        ax.bar(["NQ", "HotpotQA", "MS MARCO"], [50, 60, 70])
        ax.set(xlabel="source", title="F1 (n = 45 questions)")
    fig.suptitle("Utility judgments by source (bars: values)")
    out.figure(fig, "upright", span="page")
    assert all(t.get_rotation() == 0 for ax in axes for t in ax.get_xticklabels())
    assert layout_problems(fig) == []


def test_a_grid_whose_labels_turn_at_the_span_is_laid_out_again(out):
    """11's Fig. 6: upright at the drawn width, the labels turned at the span's and ran into the titles of
    the row below, the layout having been made for upright ones."""
    fig, axes = plt.subplots(3, 2, figsize=(9, 6))
    names = ["none", "requirement", "cot", "reasoning", "answer"]
    for i, ax in enumerate(axes.flat):
        ax.bar(names, [50, 52, 48, 47, 55])
        ax.set(xlabel="level", title=f"form {i}: F1 (paper: from averaged P, R)")
    fig.suptitle("Utility judgments by the requirement (bars: values), n = 45 questions")
    out.figure(fig, "grid", span="page")
    assert any(t.get_rotation() != 0 for t in axes[0, 0].get_xticklabels())
    assert layout_problems(fig) == []


def test_long_category_names_that_squeeze_a_lone_panel_wrap_narrower(out):
    """02_verification (fresh demo run): 22-character (author, kind) names left the bars 1.1 in of a
    3.3-in column; wrapped to 14 characters the panel takes half the span, and its count axis, wider
    now, keeps a gap between its numbers ("10152025" touched without overlapping)."""
    fig, ax = plt.subplots()
    report = pd.DataFrame({"author": "local:smollm2",
                           "kind": ["rewrite", "false answer", "false answer (ours, fallback)", "long", "qa"],
                           "ok_first_try": [28, 3, 31, 2, 3], "ok_after_retry": [5, 8, 0, 1, 0],
                           "dropped": [9, 31, 0, 0, 0]})
    report.set_index(["author", "kind"]).plot.barh(stacked=True, ax=ax)
    ax.set(xlabel="items", title="Verification of generated text (n = 121 texts)")
    with warnings.catch_warnings():
        warnings.simplefilter("error", FigureWarning)
        out.figure(fig, "verification")
    assert ax.get_position().width * fig.get_figwidth() >= 0.5 * (COLUMN_WIDTH - 0.2)
    assert "SmolLM2, false\nanswer (ours,\nfallback)" in [t.get_text() for t in ax.get_yticklabels()]
    renderer = fig.canvas.get_renderer()
    ticks = [t.label1 for t in ax.xaxis._update_ticks() if t.label1.get_text()]
    gaps = [b.get_window_extent(renderer).x0 - a.get_window_extent(renderer).x1 for a, b in zip(ticks, ticks[1:])]
    assert len(ticks) >= 2 and min(gaps) >= 0.4 * ticks[0].get_fontsize() * fig.dpi / 72
    assert layout_problems(fig) == []


def test_a_y_label_longer_than_its_panel_is_tall_wraps_to_it(out):
    """05_likelihood_vs_parsed (fresh demo run): 'next-token expected score after ###' ran past the
    panel's top into the title."""
    fig, ax = plt.subplots(figsize=(4.5, 3.5))
    ax.scatter([1, 3, 3], [2.4, 2.5, 2.6])
    ax.set(xlabel="parsed 1-5 score (paper method)", ylabel="next-token expected score after ### (1-5 scale)",
           ylim=(1, 5), title="Parsed score vs the likelihood's expected score (n = 3 ratings)")
    out.figure(fig, "ylabel")
    renderer = fig.canvas.get_renderer()
    assert ax.yaxis.label.get_window_extent(renderer).height <= ax.get_window_extent(renderer).height
    assert " ".join(ax.get_ylabel().split()) == "next-token expected score after ### (1-5 scale)"


def test_a_hyphenated_category_name_is_not_split_at_its_hyphen(out):
    """16_paper_check (fresh demo run): "utility-judgments Table 3" wrapped to "utility-" / "judgments"."""
    fig, ax = plt.subplots()
    ax.barh(["utility-judgments Table 3 (consistency)", "utility-judgments Table 2 (consistency)"], [29, 5])
    ax.set(xlabel="published cells", title="Published cells our code reproduces, per table (n = 36 cells)")
    out.figure(fig, "paper_check")
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert all("utility-judgments" in t for t in labels), labels


def test_a_lone_panels_long_x_label_wraps_rather_than_widen_the_figure(out):
    """12's k curve at the smoke size: its x label ("one point, not a curve: ...") ran out of the figure,
    which constrained layout does not count in a panel's width, and the saved figure was 3.7 in wide."""
    from lib.report.figure_checks import saved_width

    fig, ax = plt.subplots(figsize=(2.8, 2.8))
    ax.plot([2], [0.0], marker="o", ls="none", label="NQ")
    ax.set(xlabel="k (shuffles voted)\none point, not a curve: NQ: k = 2 only", ylim=(0, 100),
           ylabel="answer F1 (factoid) /\nROUGE-L (marco), x100", title="SmolLM2 (n = 1 question)")
    with warnings.catch_warnings():
        warnings.simplefilter("error", FigureWarning)
        out.figure(fig, "k_curve")
    assert saved_width(fig) + 0.2 == pytest.approx(COLUMN_WIDTH, abs=0.05)
    assert ax.get_position().width * fig.get_figwidth() >= 0.5 * (COLUMN_WIDTH - 0.2)
    assert layout_problems(fig) == []


def test_a_lone_panels_x_label_that_fits_the_figure_stays_on_one_line_inside_it(out):
    """05's likelihood figure: its panel sits right of the figure's centre (a two-line y label on the left),
    and "parsed score (paper method)", wider than twice the room right of the panel's centre, was split
    in two though the figure had room for it: it now moves left only as far as it must."""
    fig, ax = plt.subplots(figsize=(4.5, 3.5))
    ax.plot([1, 2, 3, 4, 5], [2.1, 2.9, 3.4, 3.9, 4.3], "o")
    ax.set(xlabel="parsed 1-5 score (paper method)", ylim=(1, 5),
           ylabel="next-token expected score after ###")
    out.figure(fig, "lone_x_label")
    renderer = fig.canvas.get_renderer()
    label_, box = ax.xaxis.label, ax.get_window_extent(renderer)
    extent = label_.get_window_extent(renderer)
    assert "\n" not in label_.get_text()
    # the case the old rule wrapped: centred on the panel, the label would run out of the figure
    assert extent.width > 2 * (fig.bbox.width - (box.x0 + box.x1) / 2)
    assert 0 <= extent.x0 and extent.x1 <= fig.bbox.width
    assert layout_problems(fig) == []


def test_a_wrapped_heading_keeps_n_and_its_bound_together(out):
    """12's smoke-size heading wrapped as "(smoke test: n <" / "30)": "n < 30" and "n = 1" stay whole."""
    fig, ax = plt.subplots(figsize=(2.8, 2.8))
    ax.plot([1, 2], [44.0, 44.0], marker="o")
    state_n(fig, "Answer score over k, the number of shuffled orders voted (no intervals: one run per k)\n"
                 "n = 1 question per point (smoke test: n < 30)")
    out.figure(fig, "k_heading")
    lines = fig._suptitle.get_text().split("\n")
    assert len(lines) > 2  # it did wrap
    assert not any(line.rstrip().endswith(("n <", "n =", "n\u00a0<", "n\u00a0=")) for line in lines)


def test_slanted_dataset_names_that_touch_turn_steeper(out):
    """01's lengths: at 30 degrees "NQ" touched "MS MARCO" in a half-column panel; the labels keep a gap
    (a steeper slant, else upright)."""
    from lib.self_preference.figures import lengths_figure

    rng = np.random.default_rng(0)
    lengths = pd.DataFrame({"source": np.repeat(["nq", "marco", "triviaqa"], 20),
                            "query_words": rng.integers(3, 20, 60), "passage_words": rng.integers(50, 210, 60)})
    fig = lengths_figure(lengths)
    out.figure(fig, "01_lengths")
    assert {t.get_rotation() for ax in fig.axes for t in ax.get_xticklabels()} <= {45.0, 90.0}
    assert layout_problems(fig) == []
