"""Figures of 10 and 11 plot the paper's F1 (from averaged P and R); per-question F1 only as a labelled extra."""
import matplotlib

matplotlib.use("Agg")
import pandas as pd
import pytest

from lib.report.legends import legend_of
from lib.utility import figures as F
from lib.utility.evaluate import SET_METRICS, RANK_METRICS, summarize


def _per_question():
    # two questions whose per-question F1 mean (0.5) differs from the F1 of the averaged P and R
    sets = [{"source": "nq", "judgment": j, "form": "listwise-set", "P": p, "R": r, "F1 per question": f,
             "failed": False} for j in ("utility", "relevance") for p, r, f in ((1.0, 1.0, 1.0), (0.0, 0.0, 0.0))]
    sets.append({"source": "nq", "judgment": "utility", "form": "listwise-set", "P": None, "R": None,
                 "F1 per question": None, "failed": True})
    ranks = [{"source": "nq", "judgment": "utility", "form": "listwise-rank", "NDCG@1": v, "NDCG@5": v, "MRR@5": v,
              "failed": False} for v in (1.0, 0.0)]
    return pd.DataFrame(sets + ranks)


def test_panels_carry_the_papers_f1_and_the_extra_apart():
    summary = summarize(_per_question(), ["source", "judgment", "form"], SET_METRICS + RANK_METRICS, n_boot=50)
    long = F.panels(summary)
    util = long[(long["judgment"] == "utility") & (long["form"] == "listwise-set")].set_index("panel")
    assert util.loc[f"listwise-set: {F.PAPER_F1}", "value"] == pytest.approx(summary.loc[0, "F1"])
    assert util.loc[f"listwise-set: {F.FAILURES}", "value"] == pytest.approx(100 / 3)
    assert "listwise-rank: NDCG@1" in set(long["panel"])
    assert not F.panels(summary, extra=False)["panel"].str.contains("extra").any()


def test_paper_f1_differs_from_the_per_question_mean_and_the_bars_show_the_papers():
    rows = pd.DataFrame([{"source": "nq", "judgment": "utility", "form": "listwise-set", "P": p, "R": r,
                          "F1 per question": 2 * p * r / (p + r) if p + r else 0.0, "failed": False}
                         for p, r in ((1.0, 0.2), (0.2, 1.0))])
    summary = summarize(rows, ["source", "judgment", "form"], SET_METRICS, n_boot=50)
    assert summary.loc[0, "F1"] == pytest.approx(60.0)              # P = R = 0.6 averaged
    assert summary.loc[0, "F1 per question"] == pytest.approx(100 / 3)  # each question 1/3
    long = F.panels(summary)
    fig = F.bar_figure(long, x="source", hue="judgment")
    titles = [" ".join(ax.get_title().split()) for ax in fig.axes]  # titles are wrapped to their panel
    paper_ax = fig.axes[titles.index(f"listwise-set: {F.PAPER_F1}")]
    assert [p.get_height() for p in paper_ax.patches] == [pytest.approx(60.0)]
    extra_ax = fig.axes[titles.index(f"listwise-set: {F.EXTRA_F1}")]
    assert [p.get_height() for p in extra_ax.patches] == [pytest.approx(100 / 3)]


def test_line_figure_one_panel_per_form_and_metric():
    rows = pd.DataFrame([{"source": "nq", "form": "listwise-set", "position": pos, "P": p, "R": 1.0,
                          "F1 per question": p, "failed": False} for pos in (1, 2) for p in (0.5, 1.0)])
    summary = summarize(rows, ["source", "form", "position"], SET_METRICS, n_boot=50)
    fig = F.line_figure(F.panels(summary, extra=False), x="position", hue="source")
    assert len(fig.axes) == 2 and len(fig.axes[0].lines) == 1


def test_panels_wrap_two_to_a_row_and_stay_readable_at_a_columns_width():
    """Figure 4's five panels (set F1, extra F1, failures; rank NDCG@1, failures) in rows of two, the
    unused sixth place removed, one legend under the panels; the smallest text prints at 5 pt or more
    in a 3.3-in column."""
    from lib.report.figure_checks import MIN_PRINTED_PT, printed_text_pt
    from lib.report.plotting import house_style, tidy

    house_style()
    summary = summarize(_per_question(), ["source", "judgment", "form"], SET_METRICS + RANK_METRICS, n_boot=50)
    fig = F.bar_figure(F.panels(summary), x="source", hue="judgment")
    assert len(fig.axes) == 5
    assert sorted({round(ax.get_position().x0, 2) for ax in fig.axes}) == sorted(
        {round(ax.get_position().x0, 2) for ax in fig.axes[:2]})  # two columns of panels
    assert [ax.get_legend() for ax in fig.axes] == [None] * 5 and len(fig.legends) == 1
    tidy(fig)
    from lib.report.text_fit import fit_to_span
    fit_to_span(fig, "column")  # as RunOutputs.figure saves it
    assert printed_text_pt(fig)[0] >= MIN_PRINTED_PT


def test_figures_state_n_in_questions_and_the_failed_judgments():
    from lib.report.figure_checks import states_n

    summary = summarize(_per_question(), ["source", "judgment", "form"], SET_METRICS + RANK_METRICS, n_boot=50)
    # per bar: 3 (utility set, one failed), 2 (relevance set), 2 (utility rank) questions
    assert F.questions_n(summary) == "n = 2 to 3 questions per bar; 1 of 7 question judgments failed (14%)"
    fig = F.bar_figure(F.panels(summary), x="source", hue="judgment")
    assert states_n(fig) and fig._suptitle.get_text() == F.questions_n(summary) + "; bars: 95% intervals"
    fig = F.bar_figure(F.panels(summary), x="source", hue="judgment", title="Utility by order (Fig. 4)")
    assert fig._suptitle.get_text() == "Utility by order (Fig. 4)\n" + F.questions_n(summary) + "; bars: 95% intervals"
    one = summary[summary["judgment"] == "relevance"]
    fig = F.line_figure(F.panels(one), x="source", hue="judgment")
    assert fig._suptitle.get_text().startswith("n = 2 questions per point; 0 of 2 ")


def _per_q_rq1(failed: bool):
    rows = [{"source": "nq", "judgment": j, "form": f, "failed": failed, "n_ok": 0 if failed else 1, "n_repaired": 0,
             "n_failed": 1 if failed else 0, "n_asked_again": 0, "headline": None if failed else 0.5 + 0.1 * q}
            for j in ("relevance", "utility") for f in ("listwise-set", "listwise-rank") for q in range(3)]
    return pd.DataFrame(rows)


def test_rq1_figure_names_the_metric_or_says_that_no_reply_parsed():
    import matplotlib.pyplot as plt

    summary = pd.DataFrame({"n": [3] * 4, "n_failed_questions": [0] * 4})
    fig = F.relevance_vs_utility_figure(_per_q_rq1(failed=False), summary)
    assert fig.axes[0].get_ylabel() == F.YLABEL and "F1 per question" in fig.axes[0].get_title()
    assert "NDCG@1" in fig.axes[1].get_title()
    plt.close(fig)
    fig = F.relevance_vs_utility_figure(_per_q_rq1(failed=True), summary.assign(n_failed_questions=3))
    said = " ".join(fig._suptitle.get_text().split())
    assert "no reply parsed (0 of 12)" in said and "F1" not in fig.axes[0].get_ylabel()
    assert sorted({round(p.get_height(), 6) for ax in fig.axes for p in ax.patches if p.get_width()}) == [100.0]
    plt.close(fig)


def test_rq1_bars_state_their_readable_n_and_few_are_hatched_not_findings():
    """The demo's case: 118 of 120 judgments failed, so a bar rests on 0 or 1 readable question; each bar
    says its own n, one of fewer than 5 is hatched with a legend entry saying it is not a finding, a form
    with no readable reply is left out and named, and nothing is drawn over anything at a column's width."""
    import matplotlib.pyplot as plt

    from lib.report.figure_checks import COLUMN_WIDTH, overlapping_texts, saved_width
    from lib.report.plotting import house_style, tidy

    house_style()
    rows = [{"source": s, "judgment": j, "form": f, "failed": True, "headline": None}
            for s in ("nq", "hotpotqa", "marco") for j in ("relevance", "utility")
            for f in ("listwise-set", "listwise-rank") for _ in range(10)]
    per_q = pd.DataFrame(rows)
    ok = per_q.index[(per_q["source"] == "marco") & (per_q["form"] == "listwise-set")]
    per_q.loc[ok[::10], ["failed", "headline"]] = [False, 1.0]  # one readable question per marco set bar
    per_q.loc[ok[1:8], ["failed", "headline"]] = [False, 0.5]   # and 7 more for marco relevance: n = 8
    fig = F.relevance_vs_utility_figure(per_q, pd.DataFrame({"n": [10], "n_failed_questions": [9]}))
    assert len(fig.axes) == 1 and fig.axes[0].get_title().startswith("listwise-set")
    ax = fig.axes[0]
    assert sorted(t.get_text() for t in ax.texts) == ["n=0"] * 4 + ["n=1", "n=8"]
    bars = [p for p in ax.patches if p.get_width()]
    assert sorted((p.get_hatch() or "") for p in bars) == ["", "////"]  # n=8 solid, n=1 hatched
    said = fig._suptitle.get_text()
    assert " ".join(said.split()).startswith(F.RQ1_TITLE + " n = 0 to 8 readable questions per bar (of 10)")
    assert "no readable reply, not shown: listwise-rank" in said
    assert F.FEW_LABEL in [t.get_text() for t in legend_of(ax).get_texts()]
    tidy(fig)
    assert overlapping_texts(fig) == []
    assert saved_width(fig) <= COLUMN_WIDTH + 0.2
    assert ax.yaxis.label.get_window_extent().height <= ax.get_window_extent().height  # the y label fits its panel
    plt.close(fig)
    enough = per_q.copy()
    enough.loc[ok, ["failed", "headline"]] = [False, 0.5]  # 10 readable per bar: no hatch, no legend note
    fig = F.relevance_vs_utility_figure(enough, pd.DataFrame({"n": [10], "n_failed_questions": [0]}))
    assert F.FEW_LABEL not in [t.get_text() for t in legend_of(fig.axes[0]).get_texts()]
    assert not any(p.get_hatch() for p in fig.axes[0].patches)
    plt.close(fig)


def test_k_curve_draws_a_line_only_through_two_or_more_points():
    import matplotlib.pyplot as plt

    curve = pd.DataFrame({"model": ["smollm2"] * 3, "source": ["nq", "nq", "marco"], "k": [1, 2, 2],
                          "score": [40.0, 50.0, 30.0], "n": [1, 1, 1]})
    fig = F.k_curve_figure(curve)
    ax = fig.axes[0]
    styles = {line.get_label(): (line.get_linestyle(), len(line.get_xdata())) for line in ax.lines}
    assert styles == {"nq": ("-", 2), "marco": ("None", 1)}
    assert "one point, not a curve: MS MARCO: k = 2 only" in ax.get_xlabel()
    plt.close(fig)
    fig = F.k_curve_figure(curve[curve["source"] == "nq"])
    assert "not a curve" not in fig.axes[0].get_xlabel()
    assert fig._suptitle.get_text() == F.K_CURVE_TITLE + "\nn = 1 question per point (smoke test: n < 30)"
    plt.close(fig)


def test_k_curve_shows_the_whole_score_scale_not_a_zoom_into_a_flat_line():
    """The demo's k-sampling curve (1 question, score 50 at every k) filled its panel with a flat line
    whose y ticks read 49.96 to 50.04: a result to the eye, though nothing moved."""
    import matplotlib.pyplot as plt

    curve = pd.DataFrame({"model": "smollm2", "source": "nq", "k": [1, 2, 3], "score": [50.0, 50.0, 50.02],
                          "n": 40})
    fig = F.k_curve_figure(curve)
    assert fig.axes[0].get_ylim() == (0.0, 100.0) and "smoke" not in fig._suptitle.get_text()
    plt.close(fig)


def test_a_group_keeps_its_slot_when_a_hue_has_no_bar_there():
    summary = summarize(_per_question(), ["source", "judgment", "form"], SET_METRICS + RANK_METRICS, n_boot=50)
    fig = F.bar_figure(F.panels(summary), x="source", hue="judgment")
    rank = next(ax for ax in fig.axes if "NDCG@1" in ax.get_title())  # utility only: relevance has no rank row
    assert rank.get_xlim() == (-0.5, 0.5) and list(rank.get_xticks()) == [0]


def test_a_figure_of_too_few_readable_replies_is_a_note_and_not_saved(tmp_runs, capsys):
    """Figures 4-6 at n = 1 with every reply unreadable: 'not enough readable replies', nothing plotted."""
    from lib.report.outputs import RunOutputs
    from lib.report.plotting import house_style

    house_style()
    per_q = _per_question().assign(failed=True, P=None, R=None)
    summary = summarize(per_q, ["source", "judgment", "form"], SET_METRICS + RANK_METRICS, n_boot=50)
    assert F.not_enough_readable(F.panels(summary)).startswith("not enough readable replies: 0 of ")
    for fig in (F.bar_figure(F.panels(summary), x="source", hue="judgment"),
                F.line_figure(F.panels(summary), x="source", hue="judgment")):
        assert len(fig.axes) == 1 and "not enough readable replies" in fig.axes[0].texts[0].get_text().replace("\n", " ")
        assert RunOutputs("r", "11").figure(fig, "utility_fig4_question_passage_order") == []
    assert "not saved" in capsys.readouterr().out
    readable = summarize(_per_question(), ["source", "judgment", "form"], SET_METRICS + RANK_METRICS, n_boot=50)
    assert F.not_enough_readable(F.panels(readable)) is None


def test_figures_4_to_6_say_what_they_show_over_their_panels():
    """The panel titles of 11's figures name a form and a metric; with the stricter title rule (panel
    titles of several panels are no figure title) each figure needs its own caption-like heading."""
    from lib.report.figure_checks import title_text

    base = _per_question().assign(model="smollm2")
    order = summarize(base.assign(level="question-first"), ["model", "source", "form", "level"],
                      SET_METRICS + RANK_METRICS, n_boot=50)
    position = summarize(base.assign(position=1), ["model", "source", "form", "position"],
                         SET_METRICS + RANK_METRICS, n_boot=50)
    requirement = summarize(base.assign(level="answer"), ["model", "form", "level"], SET_METRICS + RANK_METRICS,
                            n_boot=50)
    for fig, said in ((F.order_figure(order), "order of question and passages"),
                      (F.position_figure(position), "position of the ground-truth passage"),
                      (F.requirement_figure(requirement), "requirement added")):
        assert len(fig.axes) > 1 and said in title_text(fig)
    assert title_text(F.bar_figure(F.panels(order), x="source", hue="level", row="model")) == ""  # counts only


def _fig5_summary():
    """Figure 5's summary as 11 writes it: 3 sources x 10 positions x the two listwise forms."""
    rows = []
    for form, metric in (("listwise-set", "F1"), ("listwise-rank", "NDCG@1")):
        for source in ("nq", "hotpotqa", "marco"):
            for pos in range(1, 11):
                v = 50 + 2 * pos
                rows.append({"model": "sim", "source": source, "form": form, "position": pos, "n": 45,
                             "n_failed_questions": 2, "failure rate": 4.4, "failure lo": 1.2, "failure hi": 14.8,
                             metric: v, f"{metric} lo": v - 10, f"{metric} hi": v + 10,
                             **({"F1 per question": v, "F1 per question lo": v - 10, "F1 per question hi": v + 10}
                                if form == "listwise-set" else {})})
    return pd.DataFrame(rows)


def test_figures_4_to_6_are_page_figures_and_readable_there():
    """Figs. 4-6 of notebook 11 put two 2.4-in panels to a row with long titles: squeezed into a 3.3-in
    column by the hand-made layout their panels came out 0.17 in wide (seen on a known-truth run); laid
    out by constrained layout, with the legend's row folded to the column, they keep about 1.1 in and
    nothing overlaps. They are declared `span="page"` in the notebook, and at a page's width they save
    without a warning."""
    import json
    import warnings

    from lib import paths
    from lib.report.outputs import FigureWarning, RunOutputs
    from lib.report.figure_checks import MIN_PANEL_IN, layout_problems, narrowest_panel_in
    from lib.report.plotting import house_style

    house_style()
    out = RunOutputs("t", "11_utility_factors")
    column = F.position_figure(_fig5_summary())
    with warnings.catch_warnings():
        warnings.simplefilter("error", FigureWarning)
        out.figure(column, "fig5_column")
    assert narrowest_panel_in(column) >= MIN_PANEL_IN and layout_problems(column) == []
    with warnings.catch_warnings():
        warnings.simplefilter("error", FigureWarning)
        out.figure(F.position_figure(_fig5_summary()), "fig5_page", span="page")
    code = "\n".join("".join(c["source"]) for c in json.loads(
        (paths.ROOT / "notebooks" / "11_utility_factors.ipynb").read_text())["cells"] if c["cell_type"] == "code")
    for name in ("utility_fig4_question_passage_order", "utility_fig5_position", "utility_fig6_requirements"):
        assert f'"{name}", span="page")' in code, name


def test_rq1_figure_has_a_title_naming_its_bars_and_lays_out_cleanly(tmp_path, monkeypatch):
    """utility_rq1 of a run with readable replies: its heading was counts only (no title, error bars that
    nothing named: two FigureWarnings), and the dataset names slanted at the end ran into the next panel."""
    import warnings

    import matplotlib.pyplot as plt

    from lib.report.outputs import FigureWarning, RunOutputs
    from lib.report.figure_checks import layout_problems
    from lib.report.plotting import house_style

    monkeypatch.setenv("RAGBIAS_RUNS", str(tmp_path / "runs"))
    monkeypatch.setenv("RAGBIAS_FIGURES", str(tmp_path / "figures"))
    house_style()
    rows = [{"source": s, "judgment": j, "form": f, "failed": False, "headline": (i % 4) / 4}
            for s in ("nq", "hotpotqa", "marco") for j in ("relevance", "utility")
            for f in ("listwise-set", "listwise-rank") for i in range(30)]
    fig = F.relevance_vs_utility_figure(pd.DataFrame(rows), pd.DataFrame({"n": [30], "n_failed_questions": [0]}))
    with warnings.catch_warnings():
        warnings.simplefilter("error", FigureWarning)
        assert RunOutputs("t", "10").figure(fig, "rq1")
    assert layout_problems(fig) == []
    plt.close(fig)



def test_figures_name_no_paper_figure():
    """11's figures were titled '... (Fig. 4)' to '(Fig. 6)': a figure of ours is not the paper's figure."""
    for make in (F.order_figure, F.position_figure, F.requirement_figure):
        assert not any("Fig." in str(c) for c in make.__code__.co_consts), make.__name__
