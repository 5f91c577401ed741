"""Figures of notebooks 07 and 08 (lib.self_preference.figures): bars are the rates of the rows given."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from lib.paths import ROOT  # noqa: E402
from lib.report.figure_checks import is_empty  # noqa: E402
from lib.report.legends import legend_of  # noqa: E402
from lib.self_preference import figures  # noqa: E402
from lib.self_preference import pairwise as pr  # noqa: E402


def _bars(fig):
    """Bar heights drawn (seaborn's bar containers; legend proxies are not bars)."""
    from matplotlib.container import BarContainer

    return sorted(round(float(b.get_height()), 6) for c in fig.axes[0].containers if isinstance(c, BarContainer)
                  for b in c if b.get_height() == b.get_height())


def test_fact_by_knowledge_bars_are_the_shares_per_level_in_order():
    scored = pd.DataFrame({"item_id": ["a", "a", "b", "b", "c"], "evaluator": ["m"] * 5,
                           "chose_true": [True, False, True, True, None]})
    knowledge = pd.DataFrame({"item_id": ["a", "b"], "model": ["m", "m"], "level": ["full", "no"]})
    fig = figures.fact_by_knowledge(scored, knowledge)
    ax = fig.axes[0]
    # 'no' becomes 'none'; item c is unparsed (dropped); a: 1 of 2 true, b: 2 of 2; one question per level
    assert [t.get_text() for t in ax.get_xticklabels()] == ["none\nq=1", "full\nq=1"]  # questions per level
    assert _bars(fig) == [0.5, 1.0]
    plt.close(fig)


def test_style_preference_uses_valid_pairs_only_and_says_when_there_are_none():
    scored = pd.DataFrame({"kind": ["long", "long", "long"], "evaluator": ["m"] * 3,
                           "valid": [True, True, False], "chose_a": [True, False, True]})
    fig = figures.style_preference(scored)
    assert _bars(fig) == [0.5]  # the invalid pair's choice would make it 0.67
    plt.close(fig)
    empty = figures.style_preference(scored.assign(valid=False))
    note = " ".join(empty.axes[0].texts[0].get_text().split())
    assert note == "no data: " + figures.STYLE_NO_REPLY and _bars(empty) == []
    plt.close(empty)


def _suptitle(fig):
    """The figure's count lines, under its caption-like first line (which must name the bars' interval)."""
    title, *counts = fig._suptitle.get_text().splitlines() if fig._suptitle is not None else [""]
    assert "bars: 95% CI over questions" in title
    return "\n".join(counts)


def test_preference_figures_state_n_in_pairs_and_the_pairs_without_a_reply():
    from lib.report.figure_checks import states_n

    scored = pd.DataFrame({"item_id": ["a", "a", "b", "b", "c"], "evaluator": ["m"] * 5,
                           "a_fact": ["true"] * 4 + ["false"], "b_fact": ["false"] * 4 + ["true"],
                           "chose_true": [True, False, True, None, None]})
    knowledge = pd.DataFrame({"item_id": ["a", "b", "c"], "model": ["m"] * 3, "level": ["full", "no", "full"]})
    fig = figures.fact_by_knowledge(scored, knowledge)
    assert states_n(fig) and _suptitle(fig).startswith("n = 3 pairs from 2 questions; 2 of 5 ")  # the unit resampled
    assert "q = " not in _suptitle(fig) and fig.axes[0].get_xlabel().endswith("; q: questions")
    plt.close(fig)
    style = pd.DataFrame({"kind": ["long"] * 4, "evaluator": ["m"] * 4,
                          "valid": [True, True, True, False], "chose_a": [True, False, True, True]})
    fig = figures.style_preference(style)
    assert _suptitle(fig) == "n = 3 pairs; 1 of 4 pairs without a valid reply (25%)"
    plt.close(fig)


def _fact_pairs(parsed: bool):
    """True-vs-false pairs of two questions decided by likelihood (passage 1 each time), parsed or not."""
    rows = [{"item_id": q, "evaluator": "m", "order": o, "a_fact": "true", "b_fact": "false", "status": "ok",
             "design": "answer", "choice": 1 if parsed else None, "lik_choice": 1}
            for q in ("a", "b") for o in ("a_first", "b_first")]
    p = pr.derive_preferences(pd.DataFrame(rows))
    p["choice"] = pd.array(p["choice"], dtype="Int64")
    p["lik_choice"] = pd.array(p["lik_choice"], dtype="Int64")
    return p


def test_fact_by_knowledge_drops_the_empty_paper_panel_and_says_so_in_its_title():
    """07's demo figure was half empty: a paper panel that only said "no data" beside the likelihood's."""
    knowledge = pd.DataFrame({"item_id": ["a", "b"], "model": ["m", "m"], "level": ["full", "no"]})
    fig = figures.fact_by_knowledge(_fact_pairs(parsed=False), knowledge)
    (lik,) = fig.axes
    assert lik.get_title() == figures.LIKELIHOOD and not is_empty(lik)
    assert lik.yaxis.get_label().get_text() == "factual preference"
    # passage 1 is the true one in the a_first order only: half the pairs chose the true passage
    assert sorted(round(b.get_height(), 6) for b in lik.patches) == [0.5, 0.5]
    assert legend_of(lik) is not None
    lines = _suptitle(fig).splitlines()
    assert lines[0].startswith("no panel, paper (parsed reply): 4 of 4")
    assert lines[1].startswith("likelihood sum: n = 4 pairs from 2 questions")
    plt.close(fig)
    both = figures.fact_by_knowledge(_fact_pairs(parsed=True), knowledge)
    assert len(both.axes) == 2 and not any(is_empty(ax) for ax in both.axes) and both.left_out == []
    plt.close(both)


def test_an_all_empty_method_figure_is_not_saved_and_says_why(tmp_path, monkeypatch, capsys):
    from lib.report.outputs import RunOutputs

    monkeypatch.setenv("RAGBIAS_RUNS", str(tmp_path / "runs"))
    monkeypatch.setenv("RAGBIAS_FIGURES", str(tmp_path / "figures"))
    out = RunOutputs("t", "nb")
    style = pd.DataFrame({"kind": ["long"] * 2, "evaluator": ["m"] * 2, "valid": [False] * 2, "chose_a": [None] * 2})
    assert out.figure(figures.style_preference(style), "style") == []
    assert out.not_saved["style"] == "no data: " + figures.STYLE_NO_REPLY
    assert figures.STYLE_NO_REPLY in " ".join(capsys.readouterr().out.split())
    assert not list(out.figure_dir.glob("style.*"))


def test_an_interval_ending_a_rounding_error_short_of_its_rate_still_draws():
    """A rate of 1 whose Wilson bound came out 1 - 2e-16 (06's likelihood choice on a simulated base LM,
    every TF pair to the true passage): matplotlib refuses a negative error bar, so it is clipped to 0."""
    import numpy as np

    combo = pd.DataFrame({"dataset": "nq", "evaluator": "m", "combo": ["TF", "FT"], "method": "paper (parsed reply)",
                          "n_valid": [40, 40], "self_rate": [1.0, 0.25],
                          "self_ci_low": [0.91, 0.14], "self_ci_high": [1.0 - 2.220446049250313e-16, 0.39]})
    fig = figures.self_by_combo_figure(combo, ["TF", "FT"])
    assert sorted(round(b.get_height(), 6) for b in fig.axes[0].patches) == [0.25, 1.0]
    caps = [seg for c in fig.axes[0].collections for seg in c.get_segments()]
    assert any(np.isclose(seg[:, 1], [0.91, 1.0]).all() for seg in caps)  # the bar at 1 keeps its lower arm
    plt.close(fig)


def test_the_by_method_figure_draws_the_findings_rows_with_their_intervals():
    """06_preferences_by_method averaged the table's rows by hand, said "no intervals" although the
    findings give them, and drew a likelihood self-preference the findings do not report. Its bars are
    now the findings' pooled rows: estimate, interval (withheld below 10 questions) and n."""
    import numpy as np

    from lib.report.figure_checks import title_text
    from lib.self_preference.figures import BY_METHOD_TITLE, preferences_by_method_figure

    def row(measure_id, n, estimate, low, high):
        return {"measure_id": measure_id, "model": "local:m", "n": n, "estimate": estimate, "ci_low": low,
                "ci_high": high}

    rows = pd.DataFrame([row("self_preference_rate.paper_parsed_reply", 0, np.nan, np.nan, np.nan),
                         row("first_position_rate.likelihood_sum", 17, 0.5, 0.37, 0.63),
                         row("factual_preference_rate.likelihood_sum", 17, 0.56, 0.30, 0.80),
                         row("first_position_rate.likelihood_per_word", 4, 0.25, 0.0, 0.75)])
    fig = preferences_by_method_figure(rows, ["paper (parsed reply)", "likelihood sum", "likelihood per_word"])
    ax = fig.axes[0]
    assert title_text(fig).splitlines()[0] == BY_METHOD_TITLE
    assert "no bar, no pair decided: paper (parsed reply)" in fig._suptitle.get_text()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["first position", "factual"]
    heights = [round(p.get_height(), 2) for p in ax.patches if not np.isnan(p.get_height())]
    assert heights == [0.5, 0.56, 0.25], heights
    spans = sorted(round(float(np.ptp(np.asarray(seg)[:, 1])), 2) for c in ax.collections
                   for seg in getattr(c, "get_segments", list)() if len(seg))
    assert spans == [0.26, 0.5], spans  # the 4-question bar has no interval
    assert [t.get_text() for t in legend_of(ax).get_texts()] == ["likelihood sum, n = 17", "likelihood per word, n = 4"]
    plt.close(fig)


def _demo_combo_table():
    """06_self_by_combo_by_method as the demo run wrote it: no reply parsed, the likelihood deciding TF and
    FT only, three datasets of one evaluator (three series)."""
    rows = [{"dataset": d, "evaluator": "smollm2", "combo": c, "method": m, "n_pairs": 14,
             "n_unparsed": 12 if m == figures.PAPER else 0,
             "n_valid": 0 if m == figures.PAPER or c in ("TT", "FF") else 12,
             "self_rate": float("nan") if m == figures.PAPER or c in ("TT", "FF") else r,
             "self_ci_low": float("nan") if m == figures.PAPER or c in ("TT", "FF") else r - 0.2,
             "self_ci_high": float("nan") if m == figures.PAPER or c in ("TT", "FF") else min(r + 0.2, 1.0)}
            for m in (figures.PAPER, figures.LIKELIHOOD) for d, r in (("nq", 0.4), ("marco", 0.5), ("triviaqa", 0.8))
            for c in ("TT", "TF", "FT", "FF")]
    return pd.DataFrame(rows)


def test_the_method_figures_of_06_and_07_lay_out_cleanly_at_a_columns_width(tmp_path, monkeypatch):
    """The demo run's 06_figure3_self_by_combo and 07_fact_by_knowledge: the empty paper panel's note
    covered its y ticks, its x label ran under the likelihood panel, the slanted 'TT\\nn=0' labels collided."""
    import warnings

    from lib.report.outputs import FigureWarning, RunOutputs
    from lib.report.figure_checks import layout_problems
    from lib.report.plotting import house_style

    monkeypatch.setenv("RAGBIAS_RUNS", str(tmp_path / "runs"))
    monkeypatch.setenv("RAGBIAS_FIGURES", str(tmp_path / "figures"))
    house_style()
    out = RunOutputs("t", "nb")
    knowledge = pd.DataFrame({"item_id": ["a", "b"], "model": ["m", "m"], "level": ["none", "partial"]})
    for name, fig in (("combo", figures.self_by_combo_figure(_demo_combo_table(), ["TT", "TF", "FT", "FF"])),
                      ("knowledge", figures.fact_by_knowledge(_fact_pairs(parsed=False), knowledge))):
        with warnings.catch_warnings():
            warnings.simplefilter("error", FigureWarning)
            assert out.figure(fig, name)
        assert layout_problems(fig) == [], name
        if name == "combo":  # the legend names models and datasets as readers know them
            legend = next(legend_of(a) for a in fig.axes if legend_of(a))
            assert [t.get_text() for t in legend.get_texts()] == ["SmolLM2 / NQ", "SmolLM2 / MS MARCO",
                                                                 "SmolLM2 / TriviaQA"]
        plt.close(fig)


def test_preference_bars_resample_questions_and_withhold_below_ten():
    """Bars resample the question, not the pair: 12 questions of 2 identical pairs each give the
    interval of 12 units (wider than 24 pairs would give); 6 questions give none, as findings."""
    from lib.self_preference.tables import rate_cell

    def rows(n_q):
        return pd.DataFrame({"item_id": [f"q{i // 2}" for i in range(2 * n_q)], "evaluator": "m", "kind": "long",
                             "valid": True, "chose_a": [(i // 2) % 3 != 0 for i in range(2 * n_q)]})

    rates = figures.group_rates(rows(12).assign(style_pref=lambda d: d["chose_a"].astype(float)), "kind",
                                "style_pref", "evaluator")
    by_question = rate_cell(rows(12)["chose_a"], rows(12)["item_id"])
    by_pair = rate_cell(rows(12)["chose_a"])
    assert rates["n_items"].tolist() == [12] and rates["ci_low"].iloc[0] == by_question["ci_low"]
    assert by_question["ci_high"] - by_question["ci_low"] > by_pair["ci_high"] - by_pair["ci_low"]
    few = figures.group_rates(rows(6).assign(style_pref=lambda d: d["chose_a"].astype(float)), "kind",
                              "style_pref", "evaluator")
    assert few["ci_low"].isna().all() and few["rate"].notna().all()


def test_figure_3_at_the_papers_size_keeps_both_panels_readable(tmp_path, monkeypatch):
    """06's Figure 3 from the papers'-size known-truth run (two readings, three datasets, 'TT q=698'
    ticks): a layout that let its panels collapse to a sliver (constrained layout giving up with its
    'axes sizes collapsed to zero') must not pass for a saved figure."""
    import warnings

    from lib.report import figure_checks, plotting
    from lib.report.outputs import RunOutputs

    monkeypatch.setenv("RAGBIAS_RUNS", str(tmp_path / "runs"))
    monkeypatch.setenv("RAGBIAS_FIGURES", str(tmp_path / "figures"))
    plotting.house_style()
    table = pd.read_csv(ROOT / "tests" / "fixtures" / "06_self_by_combo_papers_size.csv")
    fig = figures.self_by_combo_figure(table, ["TT", "TF", "FT", "FF"])
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        RunOutputs("t", "nb").figure(fig, "06_figure3_self_by_combo")
    assert not [w for w in seen if "collapsed" in str(w.message)]
    assert len([ax for ax in fig.axes if figure_checks.is_panel(ax)]) == 2
    assert figure_checks.narrowest_panel_in(fig) >= 0.8, figure_checks.narrowest_panel_in(fig)
    plt.close(fig)
