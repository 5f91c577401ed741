"""The house style's checks on figures built here: an all-empty figure is not saved, an empty panel
says so in words, a figure without n warns, machine names become labels, counts get integer ticks,
a legend over the data moves out, reference lines alone are not data."""
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
import seaborn as sns  # noqa: E402

from lib.report.labels import humanize, label  # noqa: E402
from lib.report.outputs import FigureWarning, RunOutputs  # noqa: E402
from lib.report.figure_checks import is_empty, states_n  # noqa: E402
from lib.report.legends import legend_of  # noqa: E402
from lib.report.plotting import house_style, tidy  # noqa: E402


@pytest.fixture
def out():
    house_style()
    yield RunOutputs("t", "nb")
    plt.close("all")


def _saved(out, name):
    return sorted(p.name for p in out.figure_dir.glob(f"{name}.*"))


def test_all_empty_figure_is_not_saved(out, capsys):
    (out.figure_dir / "empty.png").write_bytes(b"an earlier run's figure")
    fig, axes = plt.subplots(1, 2)
    axes[0].bar(["a", "b"], [np.nan, np.nan])  # rates of n = 0: NaN bars
    axes[1].axhline(0.5, ls="--")  # a chance line alone is not data
    fig.suptitle("n = 0")
    assert out.figure(fig, "empty", empty_note="no reply in the paper's format") == []
    assert _saved(out, "empty") == []
    assert "not saved: every panel is empty" in capsys.readouterr().out


def test_partly_empty_figure_notes_the_empty_panel(out):
    fig, (full, empty) = plt.subplots(1, 2)
    full.bar(["x", "y"], [0.4, 0.6])
    empty.set_title("parsed replies")
    empty.plot([], [], label="smollm2")
    empty.legend(title="model")  # seaborn leaves such a legend of headers on an empty facet
    fig.suptitle("n = 12")
    paths = out.figure(fig, "partly", empty_note="no reply in the paper's format: see the likelihood panel")
    assert [p.suffix for p in paths] == [".png", ".pdf"] and all(p.stat().st_size > 0 for p in paths)
    assert [t.get_text() for t in full.texts] == []
    assert "no data: no reply in the paper's format" in empty.texts[0].get_text().replace("\n", " ")
    assert not empty.yaxis.get_tick_params()["labelleft"]  # an axis of its own: its meaningless ticks go
    assert empty.get_legend() is None


def test_panel_with_its_own_note_keeps_it(out):
    fig, (a, b) = plt.subplots(1, 2)
    a.plot([1, 2], [1, 2])
    b.text(0.5, 0.5, "no pair had a score gap", transform=b.transAxes)
    out.figure(fig, "own_note", caption="n = 2")
    assert [t.get_text() for t in b.texts] == ["no pair had a score gap"]


def test_missing_n_warns_and_stated_n_does_not(out):
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0.2, 0.3])
    with pytest.warns(FigureWarning, match="states no n"):
        out.figure(fig, "no_n")
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0.2, 0.3])
    with warnings.catch_warnings():
        warnings.simplefilter("error", FigureWarning)
        paths = out.figure(fig, "with_n", caption="Accuracy per model (n = 30 pairs).")
    assert (out.figure_dir / "with_n.caption.txt").read_text().startswith("Accuracy") and len(paths) == 3
    fig, ax = plt.subplots()
    ax.set_title("self-preference, n=14")
    assert states_n(fig) and not states_n(plt.subplots()[0], caption="nothing stated")


def test_empty_detection_by_artist_kind():
    g = sns.catplot(pd.DataFrame({"form": ["a", "a"], "f1": [np.nan] * 2, "level": ["none", "answer"]}),
                    x="form", y="f1", hue="level", kind="bar")
    assert is_empty(g.axes.flat[0])  # seaborn draws zero-width stand-ins for NaN bars
    plt.close(g.figure)
    fig, axes = plt.subplots(1, 5)
    axes[0].scatter([], [])
    axes[1].scatter([1], [2])
    axes[2].fill_between([0, 1], [0, 0], [1, 1])
    axes[3].plot([np.nan], [np.nan]); axes[3].axvspan(0, 1)
    sns.heatmap(pd.DataFrame([[1.0, np.nan]]), ax=axes[4], cbar=False)
    assert [is_empty(ax) for ax in axes] == [True, False, False, True, False]
    fig2, ax = plt.subplots()
    ax.plot(["nq", "marco"], [0.5, 0.7])  # a line over categories: its data are strings until converted
    assert not is_empty(ax)
    plt.close(fig2)
    plt.close(fig)


@pytest.mark.parametrize("key, want", [
    ("ok_first_try", "ok first try"), ("self_rate", "self-preference rate"),
    (("smollm2", "false answer (ours, fallback)"), "SmolLM2, false answer (ours, fallback)"),
    ("judge:smollm2;max_tokens:8;retries:0", "SmolLM2 judge (8 tokens, 0 retries)"),
    ("judge:local:smollm2;logprob", "SmolLM2 judge, log-prob"),
    ("implicit-mean:smollm2-ref:gemma3", "SmolLM2 implicit, mean (ref. Gemma-3)"),
    ("local:smollm2", "SmolLM2"), ("openai:gpt-4o-mini@http://127.0.0.1:8000/v1", "gpt-4o-mini"),
    ("nq", "NQ"), (3.0, "3"), (("nq", "rag"), "NQ, RAG prompt"),
    ("utility-judgments", "utility paper")])  # 16's per-table bars named the paper by its file
def test_label(key, want):
    assert label(key) == want


def test_humanize_leaves_sentences_and_numbers():
    for text in ["accuracy", "n = 3", "0.5", "-1.25", "share of pairs (%)", "gpt-4o-mini"]:
        assert humanize(text) == text
    assert humanize("('nq', 'rag')") == "NQ, RAG prompt" and humanize("n_pairs") == "n pairs"
    assert humanize("dataset,model") == "dataset, model"  # pandas' MultiIndex axis label
    assert humanize("rag | expected_score") == "RAG prompt | expected score"  # a facet title
    assert humanize("likelihood per_word") == "likelihood per word"
    assert humanize("Passage perplexity (local:gemma3)") == "Passage perplexity (Gemma-3)"
    # the sentence's own punctuation after a spec stays (03's title lost its ';')
    assert humanize("Passage perplexity (local:gemma3; boxes: quartiles)") == "Passage perplexity (Gemma-3; boxes: quartiles)"
    assert humanize("judged by local:smollm2;int8.") == "judged by SmolLM2 int8."


def test_empty_facet_leaves_the_other_facets_ticks(out):
    """Facets share their axes: the note on an empty facet must not strip the ticks of full ones."""
    df = pd.DataFrame({"setting": ["normal", "rag", "rag"], "author": ["human", "human", "smollm2"],
                       "score": [np.nan, 3.0, 4.0]})
    g = sns.catplot(df, x="author", y="score", col="setting", kind="bar", height=2.6)
    g.figure.suptitle("n = 2")
    out.figure(g.figure, "facets")
    empty, full = g.axes.flat
    assert empty.texts and "no data" in empty.texts[0].get_text()
    assert [t.get_text() for t in full.get_xticklabels()] == ["human", "SmolLM2"]
    assert full.xaxis.get_tick_params()["labelbottom"] and len(full.get_yticks()) > 1
    # the empty facet keeps the shared y scale that its full neighbour does not label itself
    assert empty.yaxis.get_tick_params()["labelleft"] and not full.yaxis.get_tick_params()["labelleft"]


def test_tidy_relabels_ticks_legend_and_integer_axis():
    house_style()
    df = pd.DataFrame({"setting": ["ok_first_try", "self_rate"] * 2, "count": [1, 2, 1, 2],
                       "model": ["local:smollm2"] * 2 + ["judge:smollm2;max_tokens:8"] * 2})
    fig, ax = plt.subplots()
    sns.barplot(df, x="setting", y="count", hue="model", ax=ax)
    ax.annotate("implicit:smollm2", (0, 1))
    tidy(fig)
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert ticks == ["ok first try", "self-preference rate"]
    assert legend == ["SmolLM2", "SmolLM2 judge (8 tokens)"]
    assert ax.texts[0].get_text() == "SmolLM2 implicit"  # a point's annotation
    locs = ax.get_yticks()
    assert len(locs) >= 2 and np.all(np.mod(locs, 1) == 0)  # counts: no 0.25 tick
    plt.close(fig)


def test_legend_over_data_moves_outside():
    house_style()
    fig, ax = plt.subplots()
    xs = np.linspace(0, 1, 50)
    for k in range(3):
        ax.scatter(xs, np.full_like(xs, 0.5) + k * 0.01, label=f"series_{k}")
    ax.legend(loc="center")  # planted: right over the points
    tidy(fig)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    assert ax.get_legend().get_window_extent(renderer).x0 >= ax.get_window_extent(renderer).x1
    plt.close(fig)


def test_legend_of_a_left_panel_goes_beside_the_figure_not_under_the_next_panel():
    """Bars filling the left panel push its legend out; beside that panel it would lie under the right
    one (its labels hidden), so it goes right of the whole figure with every label kept."""
    house_style()
    fig, (left, right) = plt.subplots(1, 2)
    for ax in (left, right):
        ax.bar([0, 1], [100, 100], label="relevance")
        ax.bar([0.4, 1.4], [100, 100], label="utility")
    left.legend(loc="upper left")  # planted: over the bars
    tidy(fig)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    assert left.get_legend() is None and len(fig.legends) == 1
    box = fig.legends[0].get_window_extent(renderer)
    assert box.x0 >= right.get_window_extent(renderer).x1
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["relevance", "utility"]
    plt.close(fig)


def test_single_whole_number_gets_an_integer_tick():
    """A curve measured at k = 2 only: the axis shows 2, not 1.900 ... 2.100."""
    house_style()
    g = sns.relplot(pd.DataFrame({"k": [2, 2], "f1": [0.5, 0.5]}), x="k", y="f1", kind="line")
    tidy(g.figure)
    ax = g.axes.flat[0]
    assert 2 in ax.get_xticks() and np.all(np.mod(ax.get_xticks(), 1) == 0)
    assert ax.lines[0].get_marker() == "o"  # one point on a line without markers would draw nothing
    plt.close(g.figure)


def test_legend_crossed_by_a_line_moves_outside():
    """No vertex under the legend, but a line segment runs through it."""
    house_style()
    fig, ax = plt.subplots()
    ax.plot([0, 10], [0, 10], label="diagonal_line")
    ax.plot([0, 10], [10, 0], label="other_line")
    ax.legend(loc="center")
    tidy(fig)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    assert ax.get_legend().get_window_extent(renderer).x0 >= ax.get_window_extent(renderer).x1
    plt.close(fig)


def test_figures_are_saved_at_their_declared_width_and_warn_when_unreadable_there(out):
    """Saved as wide as the span declared (column 3.3 in, page 7 in), so text prints as drawn (>= 7 pt);
    four panels in a column are too narrow and warn unless declared full width (a paper's figure*)."""
    from PIL import Image

    from lib.report.figure_checks import MIN_PRINTED_PT, printed_text_pt

    def wide():
        fig, axes = plt.subplots(1, 4, figsize=(9.5, 3))  # four panels in a row: about 9.5 in as drawn
        for ax in axes:
            ax.plot([0, 1], [0, 1])
        fig.suptitle("Growth per model, n = 2")
        return fig

    with pytest.warns(FigureWarning, match="narrowest panel is .* in wide"):
        out.figure(wide(), "wide")
    with warnings.catch_warnings():
        warnings.simplefilter("error", FigureWarning)
        out.figure(wide(), "wide_page", span="page")  # declared a figure*: saved 7 in wide
    dpi = plt.rcParams["savefig.dpi"]
    assert Image.open(out.figure_dir / "wide_page.png").width / dpi == pytest.approx(7.0, abs=0.05)
    assert Image.open(out.figure_dir / "wide.png").width / dpi == pytest.approx(3.3, abs=0.05)
    fig, ax = plt.subplots()  # the house size, one column
    ax.plot([0, 1], [0, 1])
    ax.set_title("Growth, n = 2")
    with warnings.catch_warnings():
        warnings.simplefilter("error", FigureWarning)
        out.figure(fig, "house")
    printed, drawn, width = printed_text_pt(fig)
    assert printed >= MIN_PRINTED_PT and printed == pytest.approx(drawn, rel=0.02)  # printed as drawn
    assert Image.open(out.figure_dir / "house.png").width / dpi == pytest.approx(3.3, abs=0.05)
    ax.text(0.5, 0.5, "tiny note", fontsize=4)  # planted: a 4 pt note is unreadable at any width
    with pytest.warns(FigureWarning, match="smallest text \\(4.0 pt\\)"):
        out.figure(fig, "tiny_text")
    with pytest.raises(ValueError, match="span"):
        out.figure(plt.subplots()[0], "bad_span", span="double")


def test_a_figure_without_title_or_with_unnamed_error_bars_warns(out):
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0.2, 0.3])
    with pytest.warns(FigureWarning, match="has no title"):
        out.figure(fig, "untitled")
    fig, ax = plt.subplots()
    ax.bar(["a", "b"], [0.4, 0.6], yerr=[0.1, 0.1])
    ax.set_title("Accuracy per model, n = 30 pairs")
    with pytest.warns(FigureWarning, match="error bars that nothing names"):
        out.figure(fig, "bars")
    fig, ax = plt.subplots()
    ax.bar(["a", "b"], [0.4, 0.6], yerr=[0.1, 0.1])
    ax.set_title("Accuracy per model, n = 30 pairs; bars: 95% CI over pairs")
    with warnings.catch_warnings():
        warnings.simplefilter("error", FigureWarning)
        out.figure(fig, "bars_named")


def test_n_label_names_the_unit_and_the_failures():
    from lib.report.plotting import failed_label, n_label

    assert n_label(14, "items") == "n = 14 items"
    assert n_label(1, "questions per bar") == "n = 1 question per bar"
    assert n_label(3, "valid pairs", failed=1, of=4, what="pairs unparsed") == \
        "n = 3 valid pairs; 1 of 4 pairs unparsed (25%)"
    assert failed_label(0, 0) == "0 of 0 replies unreadable"


def test_series_without_data_has_no_legend_entry():
    """A method with no value anywhere in the figure takes no legend entry; a series with data only in
    another panel, and a labelled chance line, keep theirs; a legend left with no entry goes."""
    house_style()
    df = pd.DataFrame({"x": ["a", "b"] * 3, "y": [0.4, 0.6] + [np.nan] * 4,
                       "method": ["paper"] * 2 + ["likelihood"] * 2 + ["per word"] * 2})
    fig, (left, right, lines) = plt.subplots(1, 3)
    sns.barplot(df, x="x", y="y", hue="method", ax=left)
    # the likelihood has data in the middle panel only (same hue order, so the same colours)
    sns.barplot(df.assign(y=[np.nan] * 2 + [0.3, 0.2] + [np.nan] * 2), x="x", y="y", hue="method", ax=right)
    lines.plot([0, 1], [np.nan, np.nan], label="never")
    lines.plot([0, 1], [0.2, 0.3], label="drawn")
    lines.axhline(0.5, color="grey", ls="--", label="chance")
    lines.legend()
    tidy(fig)
    # a legend over its bars moves beside the figure (a figure legend): look in every legend
    legends = sorted([t.get_text() for t in leg.get_texts()] for leg in [*fig.legends, *(
        legend_of(ax) for ax in fig.axes if legend_of(ax) is not None)])
    assert legends == [["drawn", "chance"], ["paper", "likelihood"], ["paper", "likelihood"]]
    plt.close(fig)
    g = sns.catplot(df[df["method"] != "paper"], x="x", y="y", hue="method", kind="bar")
    tidy(g.figure)  # no series has data: the figure legend goes
    assert g.figure.legends == []
    plt.close(g.figure)


def test_not_saved_figure_gives_its_panels_reasons(out, capsys):
    fig, (a, b) = plt.subplots(1, 2)
    a.text(0.5, 0.5, "no reply in the paper's\nformat", transform=a.transAxes)
    b.bar(["x"], [np.nan])
    assert out.figure(fig, "reasons", empty_note="no data: fallback") == []
    assert out.not_saved == {"reasons": "no reply in the paper's format"}
    fig, ax = plt.subplots()
    out.figure(fig, "bare", empty_note="no data: fallback")
    assert out.not_saved["bare"] == "no data: fallback"


def test_legend_below_stays_under_rotated_tick_labels_and_adds_no_width():
    from lib.report.legends import legend_below

    house_style()
    fig, ax = plt.subplots()
    names = [f"category_{i}_with_a_long_name" for i in range(6)]
    for k in range(3):
        ax.bar(np.arange(6) + k * 0.25, np.full(6, 0.9), 0.25, label=f"reward model {k}")
    ax.set_xticks(np.arange(6), names)
    legend_below(ax)
    tidy(fig)  # the long tick labels overlap, so they rotate and reach further down
    renderer = fig.canvas.get_renderer()
    legend_box = legend_of(ax).get_window_extent(renderer)
    lowest_tick = min(t.get_window_extent(renderer).y0 for t in ax.get_xticklabels())
    assert legend_box.y1 <= lowest_tick + 1 and ax.get_xticklabels()[0].get_rotation() == 30
    assert legend_box.width <= fig.bbox.width  # its rows fold rather than widen the figure
    plt.close(fig)


def test_dropping_an_empty_legend_entry_keeps_the_legend_on_the_figure():
    import matplotlib.pyplot as plt

    from lib.report import plotting

    # a stacked bar of one series with no data (NaN bars: a count of 0 is a value, and keeps its entry)
    rows, left = ["true", "false"], np.array([1.0, 1.0])
    for anchor in (None, (1.01, 1.0)):
        fig, ax = plt.subplots(figsize=(4, 3))
        ax.barh(rows, [1, 1], label="ok")
        ax.barh(rows, [np.nan, np.nan], left=left, label="retried")
        ax.barh(rows, [0, 1], left=left, label="dropped")
        ax.legend(**({"loc": "upper left", "bbox_to_anchor": anchor} if anchor else {}))
        plotting.tidy(fig)
        assert [t.get_text() for t in ax.get_legend().get_texts()] == ["ok", "dropped"]
        box = fig.get_tightbbox()
        assert box.width < 3 * 4 and box.height < 3 * 3  # inches: the legend stays beside the axes
        plt.close(fig)


def test_overlapping_texts_finds_titles_drawn_over_each_other_and_passes_apart_ones():
    """The check the figure tests lean on: two narrow panels with long titles collide (as notebook 14's
    old side-by-side layout did); the same titles on stacked panels do not."""
    from lib.report.figure_checks import overlapping_texts

    house_style()
    fig, axes = plt.subplots(1, 2, figsize=(3.3, 2.4))
    axes[0].set_title("Figure 5: accuracy by score gap"), axes[1].set_title("beyond the paper: by length gap")
    assert ("Figure 5: accuracy by score gap", "beyond the paper: by length gap") in overlapping_texts(fig)
    fig, axes = plt.subplots(2, 1, figsize=(3.3, 4.8), layout="constrained")
    axes[0].set_title("Figure 5: accuracy by score gap"), axes[1].set_title("beyond the paper: by length gap")
    assert overlapping_texts(fig) == []
    plt.close("all")


def test_legend_below_takes_proxy_handles():
    from matplotlib.patches import Patch

    from lib.report.legends import legend_below

    house_style()
    fig, ax = plt.subplots(figsize=(3.3, 2.4))
    ax.bar([0, 1], [1, 2])  # bars without labels: the legend names only the proxies
    legend_below(ax, handles=[Patch(facecolor="C0", label="relevance"), Patch(hatch="//", label="n < 5")])
    leg = legend_of(ax)
    assert [t.get_text() for t in leg.get_texts()] == ["relevance", "n < 5"] and leg.below
    plt.close(fig)


def test_a_legend_beside_a_panel_that_leaves_it_too_narrow_moves_under_it(out):
    """02_verification: long category names and a legend beside the bars left a 0.4-in panel."""
    from lib.report.figure_checks import MIN_PANEL_IN, narrowest_panel_in

    fig, ax = plt.subplots()
    names = ["SmolLM2, QA", "SmolLM2, false answer (ours, fallback)", "SmolLM2, false answer", "SmolLM2, rewrite"]
    ax.barh(names, [3, 3, 0, 2], label="ok first try")
    ax.barh(names, [0, 0, 3, 1], left=[3, 3, 0, 2], label="dropped")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.set_title("Verification of generated text (n = 12 texts)")
    with warnings.catch_warnings():
        warnings.simplefilter("error", FigureWarning)
        out.figure(fig, "verification")
    assert narrowest_panel_in(fig) >= MIN_PANEL_IN and legend_of(ax).below


def test_wide_category_labels_and_a_best_placed_legend_fit_a_column(out):
    """02_verification as the demo run drew it: long (author, kind) labels push the panel right of the
    figure's centre, pandas puts its legend at 'best'. The title is centred on the figure (not on the
    panel's left edge, where half of it stuck out and the fit shrank the panel to 0.1 in), the legend
    that lands on the bars at the column's width moves under the panel with its relabelled entries,
    and the count axis gets fewer ticks rather than a rotated heap of numbers."""
    from lib.report.figure_checks import MIN_PANEL_IN, narrowest_panel_in, overlapping_texts, saved_width

    kinds = ["rewrite", "false answer", "false answer (ours, fallback)", "long", "qa"]
    report = pd.DataFrame({"author": "local:smollm2", "kind": kinds, "ok_first_try": [28, 3, 31, 2, 3],
                           "ok_after_retry": [5, 8, 0, 1, 0], "dropped": [9, 31, 0, 0, 0]})
    fig, ax = plt.subplots()
    report.set_index(["author", "kind"]).plot.barh(stacked=True, ax=ax)
    ax.set(xlabel="items", title="Verification of generated text (n = 121 texts)")
    with warnings.catch_warnings():
        warnings.simplefilter("error", FigureWarning)
        out.figure(fig, "verification_column")
    assert saved_width(fig) + 0.2 == pytest.approx(3.3, abs=0.05)
    assert narrowest_panel_in(fig) >= MIN_PANEL_IN
    leg = legend_of(ax)
    assert leg.below and [t.get_text() for t in leg.get_texts()] == ["ok first try", "ok after a retry", "dropped"]
    assert all(t.get_rotation() == 0 for t in ax.get_xticklabels())
    assert overlapping_texts(fig) == []


def test_a_count_alone_is_no_title(out):
    """A figure headed only by 'n = 119 items' names what was counted, not what it shows."""
    from lib.report.figure_checks import title_text
    from lib.report.plotting import n_label, state_n

    def panel():
        fig, ax = plt.subplots()
        ax.plot([0, 1], [3, 5])
        return fig

    fig = state_n(panel(), n_label(119, "items"))
    assert title_text(fig) == ""
    with pytest.warns(FigureWarning, match="has no title"):
        out.figure(fig, "count_only")
    fig = state_n(panel(), "Query and passage length per dataset\n" + n_label(119, "items"))
    assert title_text(fig) == "Query and passage length per dataset"
    with warnings.catch_warnings():
        warnings.simplefilter("error", FigureWarning)
        out.figure(fig, "count_and_caption")


def test_a_wrapped_title_keeps_its_count_on_one_line(out):
    """quickstart_perplexity's title wrapped as '... (n =' / '2 texts)'."""
    fig, ax = plt.subplots()
    ax.bar(["fluent", "shuffled"], [16, 2210])
    ax.set_title("Fluent vs shuffled text: perplexity under Gemma-3 (n = 2 texts)")
    out.figure(fig, "wrapped")
    lines = ax.get_title().splitlines()
    assert len(lines) > 1 and any("n\u00a0=\u00a02" in line for line in lines)


def _lengths():
    rng = np.random.default_rng(0)
    return pd.DataFrame({"source": np.repeat(["nq", "marco", "triviaqa"], 40), "query_words": rng.integers(3, 20, 120),
                         "passage_words": rng.integers(50, 210, 120)})


def test_a_count_heading_over_side_by_side_panels_leaves_no_gap(out):
    """01_lengths of the fresh run: tight_layout kept the height of state_n's three-line heading free
    under the figure's top edge, though the heading sits above it: a gap of about 0.7 in over the panels.
    And "human passage" wrapped onto two lines though its half of the row had room for it."""
    from lib.self_preference.figures import lengths_figure

    fig = lengths_figure(_lengths())
    with warnings.catch_warnings():
        warnings.simplefilter("error", FigureWarning)
        out.figure(fig, "lengths")
    renderer = fig.canvas.get_renderer()
    heading_bottom = fig._suptitle.get_window_extent(renderer).y0
    titles_top = max(ax.title.get_window_extent(renderer).y1 for ax in fig.axes)
    assert 0 <= (heading_bottom - titles_top) / fig.dpi < 0.25  # inches between heading and panel titles (was 0.83)
    assert [ax.get_title() for ax in fig.axes] == ["query", "human passage"]


def test_a_series_at_zero_everywhere_keeps_its_legend_entry_and_says_so(out):
    """04_knowledge_levels: the 'full (%)' level was 0 in every row; its horizontal bars have no width,
    which the finishing pass took for seaborn's no-data stand-ins (0 x 0) and dropped from the legend."""
    from lib.report.legends import ZERO_NOTE
    from lib.self_preference.figures import knowledge_levels_figure

    shares = pd.DataFrame({"dataset": ["nq", "marco"], "model": "smollm2", "none (%)": [60.0, 70.0],
                           "partial (%)": [40.0, 30.0], "full (%)": [0.0, 0.0], "n": [7, 7]})
    fig = knowledge_levels_figure(shares)
    out.figure(fig, "levels")
    texts = [t.get_text() for t in legend_of(fig.axes[0]).get_texts()]
    assert texts == ["none (%)", "partial (%)", "full (%)" + ZERO_NOTE]
    assert not is_empty(fig.axes[0])


def test_an_estimate_a_rounding_step_outside_its_interval_draws_its_figure(out):
    """06 at --size 12 stopped on "yerr must not contain negative values": a rate of 1.0 over 7 questions
    whose every question chose its own passage gets the Wilson interval over units, whose upper bound
    statsmodels computes as 0.9999999999999999. The same rate and interval come from one computation
    (`stats.cluster_bootstrap`); the bound, not the estimate, is off."""
    from lib import stats
    from lib.self_preference.figures import self_by_combo_figure

    cell = stats.cluster_bootstrap(np.ones(14), np.repeat(np.arange(7), 2), null=0.5)
    assert cell["estimate"] == 1.0 and cell["ci_low"] <= 1.0 <= cell["ci_high"]
    table = pd.DataFrame({"dataset": "nq", "evaluator": "smollm2", "combo": ["TT", "TF"], "n_pairs": 14,
                          "n_valid": 14, "n_unparsed": 0, "self_rate": [1.0, 0.5],
                          "self_ci_low": [0.6456695649333125, 0.2], "self_ci_high": [0.9999999999999999, 0.8]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a rounding step is no warning
        out.figure(self_by_combo_figure(table, ["TT", "TF"]), "combo_rounding")
    table.loc[1, "self_ci_high"] = 0.4  # an interval of another estimate: drawn, and said
    with pytest.warns(RuntimeWarning, match="outside its interval by 0.1"):
        out.figure(self_by_combo_figure(table, ["TT", "TF"]), "combo_outside")


def test_panel_titles_of_several_panels_are_no_figure_title(out):
    """The panel titles of 06's, 12's and 14's figures ("paper (parsed reply)", a model's name) named
    their panels; the figure said nothing of what it shows."""
    from lib.report.figure_checks import title_text
    from lib.report.plotting import n_label, state_n

    fig, axes = plt.subplots(1, 2)
    for ax, name in zip(axes, ("paper (parsed reply)", "likelihood sum")):
        ax.plot([0, 1], [0.2, 0.6])
        ax.set_title(name)
    state_n(fig, n_label(12, "pairs"))
    assert title_text(fig) == ""
    with pytest.warns(FigureWarning, match="has no title"):
        out.figure(fig, "panels_only")
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0.2, 0.6])
    ax.set_title("Accuracy by score gap")
    assert title_text(state_n(fig, n_label(12, "pairs"))) == "Accuracy by score gap"  # one panel: its title is the figure's


@pytest.mark.parametrize("said", ["bars: 95% intervals over pairs", "bands: 95% intervals", "95% CIs"])
def test_error_bars_named_in_the_plural_are_named(said):
    """The utility figures' and 14's headings ("...; bars: 95% intervals") were not taken as naming their
    bars: the pattern wanted "interval" and "band" followed by a word boundary, and "bars:" one after the colon."""
    from lib.report.figure_checks import names_error_bars

    fig, ax = plt.subplots()
    ax.errorbar([0, 1], [0.4, 0.6], yerr=[0.1, 0.1])
    assert not names_error_bars(fig) and names_error_bars(fig, caption=said)
    plt.close(fig)


def test_a_legend_of_colour_and_line_style_keeps_its_style_keys(out):
    """utility_retrieval_recall of the fresh run: seaborn's legend of hue=dataset and style=retriever
    draws its style keys in grey and its headers in white, colours no data line carries, so the
    finishing pass dropped both and the legend explained only the colours. A hue level without data still goes."""
    recall = pd.DataFrame([{"source": s, "retriever": r, "k": k, "recall": min(1.0, 0.2 * k + (r == "dense") * 0.1)}
                           for s in ("nq", "marco") for r in ("bm25", "dense") for k in (1, 2, 4)])
    recall.loc[recall["source"] == "marco", "recall"] = np.nan  # a dataset without values: its entry goes
    fig, ax = plt.subplots()
    sns.lineplot(data=recall, x="k", y="recall", hue="source", style="retriever", markers=True, ax=ax)
    ax.set_title("Recall@k (n = 2 questions)")
    out.figure(fig, "recall_styles")
    texts = [t.get_text() for leg in [ax.get_legend(), *fig.legends] if leg is not None for t in leg.get_texts()]
    assert texts == ["source", "NQ", "retriever", "BM25", "dense"]


def test_a_withheld_interval_draws_neither_a_bar_nor_a_flat_cap():
    """utility_rq1 and rewardbench_accuracy drew a flat cap on bars of 1 unit: a zero-width interval to a
    reader. A withheld interval gives NaN lengths, so matplotlib draws nothing for that bar."""
    from lib.report.plotting import interval_errors

    err = interval_errors([0.5, 0.6], [0.4, 0.5], [0.6, 0.7], n=[1, 20])
    assert np.isnan(err[:, 0]).all() and err[:, 1] == pytest.approx([0.1, 0.1])
    fig, ax = plt.subplots()
    bars = ax.bar([0, 1], [0.5, 0.6], yerr=err, capsize=2)
    caps = [xy for cap in bars.errorbar.lines[1] for xy in cap.get_xydata() if np.isfinite(xy).all()]
    assert {x for x, _ in caps} == {1.0}  # caps on the 20-unit bar only
    plt.close(fig)
