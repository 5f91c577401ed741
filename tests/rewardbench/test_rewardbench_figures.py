"""Notebook 14's and 15's figures stay readable at a paper column's width: panels stacked with one
legend under them, an empty panel left out and said in the title, reward models told apart by marker
and legend rather than by labels beside points (which overlap when points are close)."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from lib.report.figure_checks import COLUMN_WIDTH, overlapping_texts  # noqa: E402
from lib.report.legends import legend_of  # noqa: E402
from lib.report.plotting import house_style, tidy  # noqa: E402
from lib.rewardbench import figures  # noqa: E402

RMS = ["implicit-mean:smollm2", "implicit:smollm2", "judge-logprob:smollm2", "judge:smollm2;max_tokens:8;retries:0"]


def _bins(scale=1.0):
    # the demo run's length bins: four reward models, three bins each
    return pd.DataFrame([{"rm": rm, "bin": b, "n": 10, "accuracy": a, "ci_low": max(a - 0.2, 0), "ci_high": min(a + 0.2, 1),
                          "mid": mid * scale} for rm in RMS for b, (mid, a) in enumerate([(-2.6, 0.5), (8.4, 0.3), (24.9, 1.0)])])


RESULTS = pd.DataFrame({"id": range(30), "kind": "implicit"})


@pytest.fixture(autouse=True)
def style():
    house_style()
    yield
    plt.close("all")


def _readable(fig):
    """As RunOutputs.figure saves it: tidied, brought to a column's width, nothing drawn over anything."""
    from lib.report.figure_checks import MIN_PANEL_IN, narrowest_panel_in
    from lib.report.text_fit import fit_to_span

    tidy(fig)
    assert fit_to_span(fig, "column") == pytest.approx(COLUMN_WIDTH, abs=0.05)
    assert overlapping_texts(fig) == [] and narrowest_panel_in(fig) >= MIN_PANEL_IN


def test_difficulty_panels_are_stacked_with_one_legend_below():
    fig = figures.difficulty_figure(_bins(0.1), _bins(), RESULTS)
    top, bottom = fig.axes
    assert top.get_position().y0 > bottom.get_position().y1  # one over the other, not side by side
    assert legend_of(top) is None and legend_of(bottom).below
    assert len(legend_of(bottom).get_texts()) == len(RMS)
    assert top.get_title() == "Accuracy by score gap"
    assert "bars: 95% CI over questions" in fig._suptitle.get_text()
    _readable(fig)


def test_difficulty_leaves_out_the_empty_score_gap_panel_and_says_why():
    fig = figures.difficulty_figure(_bins().iloc[:0], _bins(), RESULTS)
    assert len(fig.axes) == 1
    title = " ".join(fig.axes[0].get_title().split())
    assert title == "Accuracy by length gap (extra)"  # a caption, not a log message
    assert figures.NO_SCORES in fig._suptitle.get_text()  # what is left out: said with the n
    _readable(fig)


def test_best_of_n_names_models_in_a_legend_not_beside_close_points():
    # two models at nearly the same point: labels beside them would be drawn over each other
    bon = pd.DataFrame({"rm": RMS[:3], "items": 3, "accuracy": [0.2, 0.5, 0.52], "gain": [0.11, 0.11, 0.12],
                        "gain_ci_low": 0.0, "gain_ci_high": 0.33})
    fig = figures.best_of_n_figure(bon, "overall (these pairs have no reason subset)", 3)
    ax = fig.axes[0]
    assert len(ax.texts) == 0  # no label beside a point
    leg = legend_of(ax)
    assert leg.below and [t.get_text() for t in leg.get_texts()] == RMS[:3]
    points = [line for line in ax.lines if len(line.get_xdata()) == 1 and line.get_marker() not in ("None", "", "_")]  # not the caps
    assert len({line.get_marker() for line in points}) == 3 and len({line.get_color() for line in points}) == 3
    title, n, why = fig._suptitle.get_text().split("\n")
    assert title.startswith("Accuracy vs best-of-3 gain") and "Figure" not in title and n == "n = 3 questions"
    assert ax.get_xlabel() == "accuracy, all pairs" and "multi-hop reasoning pairs" in why
    _readable(fig)


def test_best_of_n_at_smoke_size_is_drawn_on_the_rates_whole_range_not_zoomed():
    """15 at n = 3 questions (the smoke job) drew its gains on a 0-0.11 axis, as if their spread were a
    result; at the smoke size both rates keep their whole range, at a study's size the axes fit the points."""
    from lib.report.findings import SMOKE_N

    bon = pd.DataFrame({"rm": RMS[:3], "items": 3, "accuracy": [0.2, 0.5, 0.52], "gain": [0.0, 0.11, 0.11],
                        "gain_ci_low": 0.0, "gain_ci_high": 0.33})
    ax = figures.best_of_n_figure(bon, "overall (these pairs have no reason subset)", 3).axes[0]
    low, high = ax.get_ylim()
    assert low <= -1 and high >= 1 and ax.get_xlim() == (0, 1)
    big = figures.best_of_n_figure(bon.assign(items=SMOKE_N), "overall (these pairs have no reason subset)", 3).axes[0]
    assert big.get_ylim()[1] - big.get_ylim()[0] < 1  # a result's points are not squeezed into the range
    plt.close("all")


def test_best_of_n_names_its_error_bars_and_keeps_its_x_label_over_its_panel():
    # seen on a known-truth run: the x label ran wider than the square panel and nothing named the bars
    from lib.report.figure_checks import layout_problems, names_error_bars

    bon = pd.DataFrame({"rm": RMS[:3], "items": 137, "accuracy": [0.46, 0.65, 0.82], "gain": [0.02, 0.27, 0.31],
                        "gain_ci_low": [-0.04, 0.22, 0.26], "gain_ci_high": [0.09, 0.32, 0.36]})
    fig = figures.best_of_n_figure(bon, "overall (these pairs have no reason subset)", 4)
    _readable(fig)
    assert names_error_bars(fig) and layout_problems(fig) == []
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[0]
    label, panel = ax.xaxis.label.get_window_extent(renderer), ax.get_window_extent(renderer)
    assert label.width <= panel.width * 1.35, (label.width, panel.width)
    # the fresh demo run's panel was under 1 in tall and its y label ran to four lines
    assert panel.height / fig.dpi >= 1.5 and ax.yaxis.label.get_text().count("\n") <= 1, (
        panel.height / fig.dpi, ax.yaxis.label.get_text())


def test_a_reward_model_at_zero_everywhere_is_named_so_and_marked():
    """rewardbench_accuracy: a legend entry whose bars are all 0 (nothing drawn) says so, and a mark at 0
    shows where its bars stand."""
    df = pd.DataFrame([{"name": c, "rm": rm, "accuracy": a, "ci_low": a, "ci_high": a}
                       for c in ("cat a", "cat b") for rm, a in (("judge", 0.0), ("implicit", 0.5))])
    ax = figures.grouped_bars(df, x="name", hue="rm")
    labels = [t.get_text() for t in legend_of(ax).get_texts()]
    assert labels == ["judge (0 in every group)", "implicit"]
    assert any(line.get_marker() == "_" and list(line.get_ydata()) == [0, 0] for line in ax.lines)


def test_a_single_bar_at_zero_is_marked_and_overall_reads_lower_case():
    """The demo's rewardbench_accuracy: the implicit model's abstain bar was 0 and drew nothing, and the
    x axis read 'abstain conflict helpful Overall'."""
    df = pd.DataFrame([{"name": c, "rm": rm, "accuracy": a, "ci_low": a, "ci_high": a}
                       for c, rm, a in (("abstain", "implicit", 0.0), ("Overall", "implicit", 0.4),
                                        ("abstain", "judge", 0.5), ("Overall", "judge", 0.5))])
    ax = figures.grouped_bars(df, x="name", hue="rm")
    marks = [line for line in ax.lines if line.get_gid() == "zero mark"]
    assert len(marks) == 1 and list(marks[0].get_ydata()) == [0], marks
    assert [t.get_text() for t in ax.get_xticklabels()] == ["abstain", "overall"]
    assert [t.get_text() for t in legend_of(ax).get_texts()] == ["implicit", "judge"]


def test_the_difficulty_figure_says_what_it_shows_over_its_two_panels():
    """Its panel titles ("Accuracy by score gap") name panels: the heading says what the whole
    figure shows and what its bars are."""
    from lib.report.figure_checks import names_error_bars, title_text

    fig = figures.difficulty_figure(_bins(0.1), _bins(), RESULTS)
    assert title_text(fig) == figures.DIFFICULTY_TITLE and names_error_bars(fig)


def test_a_judge_that_parsed_nothing_takes_no_slot_and_the_heading_names_it():
    """The demo's rewardbench_accuracy: the 8-token judge parsed no verdict, so it had no accuracy, yet it kept
    a legend entry and an empty slot in every group, and nothing said why."""
    df = pd.DataFrame([{"name": c, "rm": rm, "accuracy": a, "ci_low": a, "ci_high": a}
                       for c in ("cat a", "cat b") for rm, a in (("judge", float("nan")), ("implicit", 0.5))])
    fig, ax = plt.subplots()
    figures.grouped_bars(df, x="name", hue="rm", ax=ax)
    assert [t.get_text() for t in legend_of(ax).get_texts()] == ["implicit"] and len(ax.patches) == 2
    results = pd.DataFrame({"rm": ["judge"] * 3 + ["implicit"] * 3, "kind": ["judge"] * 3 + ["implicit"] * 3,
                            "unparsed": [2, 2, 2, 0, 0, 0], "id": list(range(3)) * 2})
    assert fig is figures.with_n(fig, results)
    assert fig._suptitle.get_text().endswith("left out, no verdict parsed: judge")
