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
from lib.report import plotting
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
        assert plotting.narrowest_panel_in(fig) >= plotting.MIN_PANEL_IN
        assert plotting.printed_text_pt(fig, "page")[0] >= plotting.MIN_PRINTED_PT
        assert plotting.layout_problems(fig) == []
        assert abs(plotting.saved_width(fig) - plotting.PAGE_WIDTH) <= 0.05 * plotting.PAGE_WIDTH
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



def test_the_demo_rows_are_the_ones_the_forests_were_drawn_from():
    """The fixture keeps what these tests rely on: smoke rows with n < 10 and a mitigation measure without
    a parenthesised detail (a fixture that lost them would let the tests above pass on nothing)."""
    long = demo_rows()
    assert (long["n"] < 10).sum() >= 20 and np.isnan(long.loc[long["n"] < 10, "ci_low"]).all()
    assert "temperature.05.human_minus_self_rag" in set(long["measure_id"])
