"""16's figure: the legend lies outside the panel (under it), where it neither covers a bar nor leaves
the right part of the panel to a key."""
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from lib import paper_check  # noqa: E402
from lib.paper_check import consistency, figures  # noqa: E402
from lib.report.outputs import FigureWarning, RunOutputs  # noqa: E402
from lib.report.figure_checks import layout_problems, narrowest_panel_in  # noqa: E402
from lib.report.legends import legend_of  # noqa: E402
from lib.report.plotting import house_style  # noqa: E402


@pytest.fixture
def out(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGBIAS_RUNS", str(tmp_path / "runs"))
    monkeypatch.setenv("RAGBIAS_FIGURES", str(tmp_path / "figures"))
    house_style()
    yield RunOutputs("t", "16_paper_check")
    plt.close("all")


def test_the_paper_check_legend_sits_outside_its_panel(out):
    check = consistency.utility_f1_rows()[paper_check.COLUMNS]
    fig = figures.matches_figure(check)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FigureWarning)
        assert out.figure(fig, "16_paper_check")
    (ax,) = fig.axes
    leg = legend_of(ax)
    renderer = fig.canvas.get_renderer()
    panel, key = ax.get_window_extent(renderer), leg.get_window_extent(renderer)
    assert not panel.overlaps(key), (panel, key)  # not inside the panel: in the old figure at its lower right
    assert key.y1 <= ax.get_tightbbox(renderer).y0 + 1  # under the tick labels and the x label
    assert [t.get_text() for t in leg.get_texts()] == ["cells", "match"]
    assert narrowest_panel_in(fig) >= 0.8 and layout_problems(fig) == []
