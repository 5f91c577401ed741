"""The demo run's forest plots (its comparison_long rows kept in demo_forest_rows.csv) saved as run_table
saves them: panels wide enough to read at a page's width, no text over text, readable row labels, smoke
panels on their measure's own scale, one measure's rows on one page, one spelling per method."""
import re
import warnings
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from lib.compare import forest
from lib.report import figure_checks
from lib.report.outputs import FigureWarning, RunOutputs

ROWS = Path(__file__).with_name("demo_forest_rows.csv")


def demo_rows() -> pd.DataFrame:
    """The demo comparison's long rows, read as compare reads its own (empty text cells as '')."""
    long = pd.read_csv(ROWS)
    for column in ("unit", "paper_model", "no_interval", "scale"):
        long[column] = long[column].fillna("")
    return long


def saved(long: pd.DataFrame, study: str, span: str = "page"):
    """The study's forest pages after the finishing pass compare gives them, and the warnings it raised."""
    out = RunOutputs("forest_check", "compare")
    figs = forest.forest_figures(long, study)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i, fig in enumerate(figs):
            out.figure(fig, f"forest_{i}", span=span)
    return figs, [str(w.message) for w in caught if issubclass(w.category, (FigureWarning, UserWarning))]


def _tick_texts(ax, axis: str = "y") -> list[str]:
    return [t.get_text().replace("\n", " ") for t in getattr(ax, f"get_{axis}ticklabels")()]


@pytest.mark.parametrize("study", ["mitigation", "utility", "rewardbench", "self-preference"])
def test_every_demo_forest_fits_the_page_with_readable_text_and_nothing_drawn_over(study):
    """The demo's forest_mitigation: panels 0.3 in wide (constrained layout collapsed under a one-line
    title wider than the page), x tick labels printed over each other, text printing at 5.6 pt."""
    figs, said = saved(demo_rows(), study)
    assert not said, said
    for fig in figs:
        assert figure_checks.narrowest_panel_in(fig) >= figure_checks.MIN_PANEL_IN
        assert figure_checks.printed_text_pt(fig, "page")[0] >= figure_checks.MIN_PRINTED_PT
        assert figure_checks.layout_problems(fig) == []
        assert abs(figure_checks.saved_width(fig) - figure_checks.PAGE_WIDTH) <= 0.05 * figure_checks.PAGE_WIDTH
        plt.close(fig)


def test_row_labels_are_readable_names_never_an_id_slug():
    """forest_mitigation's temperature panel: its one measure titled the panel whole, its row read
    '05.human minus self RAG' (the id's tail)."""
    figs = forest.forest_figures(demo_rows(), "mitigation")
    labels = [t for fig in figs for ax in fig.axes for t in _tick_texts(ax)]
    slugs = [t for t in labels if re.search(r"\b\d+\.\w|_", t)]
    assert labels and not slugs, slugs
    temperature = [ax for fig in figs for ax in fig.axes if ax.get_title(loc="left").startswith("temperature")]
    assert len(temperature) == 1
    assert _tick_texts(temperature[0]) == ["human minus own rating, RAG prompt: after minus before"]
    for fig in figs:
        plt.close(fig)


def _panels(figs, title_start: str) -> list:
    found = [ax for fig in figs for ax in fig.axes if ax.get_title(loc="left").startswith(title_start)]
    assert found, [ax.get_title(loc="left") for fig in figs for ax in fig.axes]
    return found


def test_a_panel_of_only_smoke_points_keeps_its_measures_scale_and_says_so():
    """forest_utility_2: six n = 1 answer F1 points at 44.4 drawn on an x axis of 42-46.8, as if an
    estimate were known to a point; forest_rewardbench_2: three n = 3 points filled a 0-0.11 axis."""
    long = demo_rows()
    utility = forest.forest_figures(long, "utility")
    for answer in _panels(utility, "answer F1 %"):
        low, high = answer.get_xlim()
        assert low <= 0 and high >= 100
        assert "smoke test: n < 10" in answer.get_title(loc="left")
    (unreadable,) = _panels(utility, "unreadable replies")  # n = 30: an estimate, zoomed to its interval
    assert "smoke test" not in unreadable.get_title(loc="left") and unreadable.get_xlim()[0] > 50
    (best,) = _panels(forest.forest_figures(long, "rewardbench"), "best-of-N gain")
    low, high = best.get_xlim()
    assert low <= 0 and high >= 1  # a recall gain on recall's 0-1 scale, its null 0 in view
    assert "smoke test: n < 10" in best.get_title(loc="left")
    for fig in plt.get_fignums():
        plt.close(fig)


def test_natural_ranges_are_read_from_the_findings_scale():
    assert forest.natural_range("share 0-1") == (0.0, 1.0)
    assert forest.natural_range("% of questions") == (0.0, 100.0)
    assert forest.natural_range("difference of shares (-1 to 1)", null=0.0) == (-1.0, 1.0)
    assert forest.natural_range("share 0-1 (difference)", null=0.0) == (-1.0, 1.0)
    assert forest.natural_range("rating points (1-5 scale)", "human minus own-passage rating", 0.0) == (-4.0, 4.0)
    assert forest.natural_range("share 0-1", "share choosing the first passage", 0.5) == (0.0, 1.0)
    assert forest.natural_range("perplexity points", null=0.0) is None


def test_a_point_of_fewer_than_ten_units_gets_no_interval_bar_even_when_its_row_has_one():
    """The findings withhold an interval below 10 units; a row that still carries one (an older run's
    findings) must not get a bar in the forest."""
    long = demo_rows()
    rows = long[long["measure_id"].str.startswith("best_of_n_gain.")].copy()
    rows["ci_low"], rows["ci_high"] = rows["estimate"] - 0.05, rows["estimate"] + 0.05  # planted intervals, n = 3
    ax = forest.forest_figure(rows, "rewardbench").axes[0]
    bars = [line for line in ax.lines if len(line.get_xdata()) == 2 and line.get_linestyle() == "-"]
    assert bars == []
    dots = [line for line in ax.lines if line.get_marker() == "o"]
    assert len(dots) == 3 and all(d.get_markerfacecolor() == "white" for d in dots)
    plt.close(ax.figure)


def test_a_measure_stays_on_one_page():
    """forest_self_preference: 'first-position rate' on page 2 and again on page 3 (its readings came
    interleaved with the other measures' and the page break fell between them). Only a kind longer than
    a page (the demo's 24 human-minus-self readings) goes on, on the next page, titled 'continued'."""
    long = demo_rows()
    for study in dict.fromkeys(long["study"]):
        pages = forest.pages(long, study)
        seen = {}
        for i, ids in enumerate(pages):
            for k in dict.fromkeys(forest.kind(m) for m in ids):
                if k in seen:
                    assert k == "human_minus_self" and seen[k] == i - 1, f"{study}: {k} on pages {seen[k] + 1} and {i + 1}"
                seen[k] = i
        titles = [ax.get_title(loc="left") for fig in forest.forest_figures(long, study) for ax in fig.axes]
        assert len(titles) == len(set(titles)), titles
    titles = [ax.get_title(loc="left") for fig in forest.forest_figures(long, "self-preference") for ax in fig.axes]
    assert sum(t.startswith("human-minus-self rating") for t in titles) == 2
    assert "human-minus-self rating (continued)" in titles
    first = {forest.kind(m) for m in forest.pages(long, "self-preference")[0]}
    assert first == {"ppl_human_minus_model", "human_minus_self"}  # the long kind begins where page 1 has room
    plt.close("all")


def test_the_heading_counts_one_unit_in_the_singular():
    """forest_utility_2's heading: 'n = 1 questions'."""
    long = demo_rows()
    rows = long[long["measure_id"].str.startswith("answer_score.")]
    fig = forest.forest_figure(rows, "utility")
    heading = fig._suptitle.get_text()
    assert "n = 1 question " in heading + " " and "n = 1 questions" not in heading
    many = forest.forest_figure(long[long["measure_id"].str.startswith("unreadable_share.")], "utility")
    assert "n = 30 questions" in many._suptitle.get_text()
    plt.close("all")


def test_a_method_is_spelled_one_way_in_a_study():
    """forest_rewardbench: 'generate-and-parse' in one panel, 'generate and parse' in the next (the second
    from the id's snake case), and 'log-probability verdict' beside 'log probability verdict'."""
    long = demo_rows()
    labels = " | ".join(t for fig in forest.forest_figures(long, "rewardbench") for ax in fig.axes
                        for t in _tick_texts(ax))
    assert "generate-and-parse" in labels and "generate and parse" not in labels
    assert "log-probability verdict" in labels and "log probability verdict" not in labels
    plt.close("all")


def test_the_demo_rows_are_the_ones_the_forests_were_drawn_from():
    """The fixture keeps what these tests rely on: smoke rows with n < 10 and a mitigation measure without
    a parenthesised detail (a fixture that lost them would let the tests above pass on nothing)."""
    long = demo_rows()
    assert (long["n"] < 10).sum() >= 20 and np.isnan(long.loc[long["n"] < 10, "ci_low"]).all()
    assert "temperature.05.human_minus_self_rag" in set(long["measure_id"])
