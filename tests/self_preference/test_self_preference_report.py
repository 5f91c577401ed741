"""Notebook 05 / 06 views and figures (lib.self_preference.report, lib.self_preference.figures and the helpers
the notebooks call)."""
import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from lib.report.legends import legend_of  # noqa: E402
from lib.self_preference import likelihood as lk  # noqa: E402
from lib.self_preference import pairwise as pr  # noqa: E402
from lib.self_preference import figures, report  # noqa: E402
from lib.self_preference import tables as pt  # noqa: E402
from tests.sp_pairs import all_combo_pairs  # noqa: E402


def _pairs(n_items=5):
    """The parsed reply always takes passage 1, the likelihood (two-answer pairs only) the true passage."""
    return all_combo_pairs(n_items, paper=lambda a_pos, true_pos, asym: 1, lik=lambda a_pos, true_pos, asym: true_pos)


def test_v1_tables_keep_the_papers_combinations():
    tables = report.v1_tables(_pairs())
    assert list(tables) == list(report.V1_TABLES)
    t10 = tables["06_v1_table10_self_vs_order"]
    assert set(t10["order"]) == {"a_first", "b_first"} and (t10["n_valid"] == 5 * 2).all()  # TT + FF per order
    t11 = tables["06_v1_table11_fact_vs_self"]
    assert t11["n_valid"].tolist() == [5 * 2 * 2] and "fact_rate" in t11 and "order_rate" not in t11
    assert tables["06_v1_table13_both_false"]["n_valid"].tolist() == [5, 5]
    assert tables["06_v1_table9_front"]["order_rate"].tolist() == [1.0]


def test_method_views_and_the_stacked_table_count_the_same_questions():
    views, agreement = lk.method_views(_pairs())
    assert list(views) == ["paper (parsed reply)", "likelihood sum", "likelihood per_word"]
    both = pt.preference_table_by_method(views, ["evaluator"]).set_index("method")
    assert both.loc["paper (parsed reply)", "order_rate"] == 1.0
    assert both.loc["likelihood sum", "fact_rate"] == 1.0 and both.loc["likelihood sum", "n_valid"] == 20
    assert (both["fact_n_items"] == 5).all()
    assert agreement["n_both"].tolist() == [20, 20] and agreement["agree"].tolist() == [0.5, 0.5]
    view = report.pref_view(both.reset_index())
    assert "fact_n_items" in view and "status" not in view
    none, no_agreement = lk.method_views(_pairs().drop(columns=["lik_choice"]))
    assert list(none) == ["paper (parsed reply)"] and no_agreement is None


def test_preference_table_offers_the_gee_beside_the_bootstrap():
    rng = np.random.default_rng(2)
    p = _pairs(40)
    lean = rng.beta(1, 1, 40)  # each question its own pull towards passage 1
    first = rng.random(len(p)) < np.repeat(lean, 8)
    p = pr.derive_preferences(p.assign(choice=pd.array(np.where(first, 1, 2), dtype="Int64")))
    boot = pt.preference_table(p, ["evaluator"], prefs=("order",)).iloc[0]
    gee = pt.preference_table(p, ["evaluator"], prefs=("order",), method="gee").iloc[0]
    # equal cluster sizes: the GEE's estimate (now the rate reported beside its interval) is k / n
    assert boot["order_rate"] == pytest.approx(gee["order_rate"]) and boot["order_n_items"] == 40
    assert abs(boot["order_ci_low"] - gee["order_ci_low"]) < 0.04
    assert abs(boot["order_ci_high"] - gee["order_ci_high"]) < 0.04


def test_figure3_uses_the_tables_clustered_intervals():
    by_combo = pt.preference_table(_pairs(), ["dataset", "evaluator", "combo"], prefs=("self",))
    fig = figures.self_by_combo_figure(by_combo, pr.COMBOS)
    ax = fig.axes[0]
    heights = [round(b.get_height(), 3) for b in ax.patches]
    assert heights == by_combo.set_index("combo").loc[list(pr.COMBOS), "self_rate"].round(3).tolist()
    # planted: a table without intervals still draws, with no error bars beyond the bars
    fig2 = figures.self_by_combo_figure(by_combo.assign(self_ci_low=np.nan, self_ci_high=np.nan), pr.COMBOS)
    assert len(fig2.axes[0].patches) == 4


def _ratings():
    rows = []
    for i in range(4):
        for author, s in (("human", 4.0), ("e", 3.0)):
            for setting in ("normal", "rag"):
                rows.append({"dataset": "nq", "evaluator": "e", "setting": setting, "factuality": "true",
                             "author": author, "false_by": "", "item_id": f"q{i}", "score": s + (i % 2),
                             "parsed": True, "expected_score": s + 0.2, "attempts": 1,
                             "lik_argmax": s, "lik_expected": s + 0.1})
    return pd.DataFrame(rows)


def test_pointwise_helpers_name_the_two_expected_scores_apart():
    r = _ratings()
    tables = pt.pointwise_tables(pt.pointwise_summary(r), ["normal", "rag"])
    assert list(tables) == [("normal", "true"), ("normal", "false"), ("rag", "true"), ("rag", "false")]
    assert tables[("rag", "true")].loc[0, "human"] == "4.50±0.58"
    lik = lk.method_tables(r)
    assert set(lik) == {"05_likelihood_vs_paper", "05_likelihood_agreement"}
    assert "next-token expected score after ###: mean" in lik["05_likelihood_vs_paper"]
    assert lk.method_tables(r.assign(lik_argmax=np.nan)) == {}
    assert lk.EXPECTED_SCORE_NAMES["expected_score"] != lk.EXPECTED_SCORE_NAMES["lik_expected"]
    fig = figures.pointwise_scores_figure(r)
    rows = " ".join(" ".join(a.get_ylabel().split()) for a in fig.axes)  # each measure names its row; labels wrap
    # the findings' expected score (next token after ###) where the ratings have it, not the reply tokens'
    assert "expected score after ###" in rows and "parsed score" in rows and "reply-token" not in rows
    bars = sorted(round(p.get_height(), 6) for p in fig.axes[-1].patches)
    means = r.groupby(["setting", "author", "factuality"])["lik_expected"].mean()
    assert bars == sorted(round(v, 6) for v in means[means.index.get_level_values(0) == "rag"]), bars
    fig2 = figures.pointwise_scores_figure(r.assign(lik_expected=np.nan))  # a server's ratings: the reply tokens'
    assert "reply-token expected score" in " ".join(" ".join(a.get_ylabel().split()) for a in fig2.axes)
    matplotlib.pyplot.close(fig2)
    assert figures.parsed_vs_next_token_figure(r).axes[0].get_ylabel() == "next-token expected score after ###"
    assert report.coverage_line(r).startswith("parse failures after retries: 0.0%")


def test_figures_state_n_and_the_unparsed_replies():
    from lib.report.figure_checks import states_n

    r = _ratings()
    r.loc[r.index[:2], ["score", "parsed"]] = [np.nan, False]
    fig = figures.pointwise_scores_figure(r)
    assert fig._suptitle.get_text().endswith("(bars: 95% CI over items, none below 10)\nn = 4 items; 2 of 16 ratings unparsed (12%)")
    fig = figures.parsed_vs_next_token_figure(r)
    assert fig._suptitle.get_text().startswith("n = 14 parsed ratings; 2 of 16") and fig.axes[0].get_title()
    by_combo = pt.preference_table(_pairs(), ["dataset", "evaluator", "combo"], prefs=("self",))
    fig = figures.self_by_combo_figure(by_combo, pr.COMBOS)
    assert states_n(fig) and fig._suptitle.get_text().startswith(figures.combo_title([by_combo]) + "\n")  # a caption first
    assert fig._suptitle.get_text().splitlines()[1].startswith(f"n = {int(by_combo['n_valid'].sum())} valid pairs")
    from lib.self_preference.findings_rows import preference_findings

    views, _ = lk.method_views(_pairs())
    rows = preference_findings(views, {})
    fig = figures.preferences_by_method_figure(rows, list(views))
    assert fig._suptitle.get_text().splitlines()[0] == figures.BY_METHOD_TITLE
    drawn = {(round(p.get_height(), 6)) for p in fig.axes[0].patches if not np.isnan(p.get_height())}
    assert drawn and drawn <= {round(r["estimate"], 6) for r in rows if r["n"]}, drawn  # the findings' own rates


def test_figure3_drops_a_paper_panel_without_replies_and_says_so():
    unparsed = all_combo_pairs(5, paper=lambda a_pos, true_pos, asym: None, lik=lambda a_pos, true_pos, asym: true_pos)
    views, _ = lk.method_views(unparsed)
    by_combo = pt.preference_table_by_method(views, ["dataset", "evaluator", "combo"], prefs=("self",))
    fig = figures.self_by_combo_figure(by_combo, pr.COMBOS)
    (lik,) = fig.axes  # the per-word variant is left out, and the paper's panel had no value: one panel
    assert lik.get_title() == "likelihood sum"
    # the likelihood takes the true passage: own passage in TF, the other's in FT; TT and FF undecidable;
    # each tick counts the questions (the unit), not the 10 pairs
    assert [t.get_text() for t in lik.get_xticklabels()] == ["TT\nq=0", "TF\nq=5", "FT\nq=5", "FF\nq=0"]
    heights = [b.get_height() for b in lik.patches]
    assert [h for h in heights if h == h] == [1.0, 0.0]
    lines = fig._suptitle.get_text().splitlines()
    assert lines[0] == figures.COMBO_TITLE_NO_BARS  # 5 questions a bar: no interval, so none promised
    assert lines[1] == "no panel, paper (parsed reply): 40 of 40 pairs unparsed (100%)"
    # the likelihood parses nothing: its pairs without a choice are undecided (same answer), not unparsed
    assert lines[2] == "likelihood sum: n = 20 valid pairs; 20 of 40 pairs undecided (50%)"
    assert lik.get_xlim() == (-0.5, 3.5)  # TT and FF keep their slots, n=0


def test_figure3_never_averages_interval_bounds_across_datasets():
    rows = []
    for ds, (rate, lo, hi) in (("nq", (0.6, 0.5, 0.7)), ("marco", (0.4, 0.1, 0.5))):
        for combo in pr.COMBOS:
            rows.append({"dataset": ds, "evaluator": "e", "combo": combo, "n_valid": 40, "n_pairs": 40,
                         "n_unparsed": 0, "self_rate": rate, "self_ci_low": lo, "self_ci_high": hi})
    fig = figures.self_by_combo_figure(pd.DataFrame(rows), pr.COMBOS)
    ax = fig.axes[0]
    tops = sorted({round(float(b.get_height()), 6) for b in ax.patches})
    assert tops == [0.4, 0.6]  # one bar per dataset, not one at their mean 0.5
    labels = [t.get_text() for t in legend_of(ax).get_texts()]
    assert labels == ["e / NQ", "e / MS MARCO"]
    # the error bars reach each dataset's own bounds (0.1 .. 0.7), not their averages (0.3 .. 0.6)
    ys = np.concatenate([seg[:, 1] for coll in ax.collections for seg in coll.get_segments()])
    assert ys.min() == pytest.approx(0.1) and ys.max() == pytest.approx(0.7)


@pytest.mark.parametrize("settings, span", [(["rag"], "column"), (["normal", "rag"], "page")])
def test_pointwise_scores_figure_fits_its_span_without_a_warning(settings, span):
    """05_pointwise_scores: the demo run's one setting at a column's width, the paper's two settings over the
    page (as notebook 05 declares them); measures one to a row left no panel under 0.8 in, the legend
    is under the panels in the bars' own colours, and no text is drawn over another."""
    import warnings

    import matplotlib.pyplot as plt

    from lib.report.outputs import FigureWarning, RunOutputs
    from lib.report.figure_checks import overlapping_texts
    from lib.report.plotting import house_style

    house_style()
    r = _ratings()
    r = pd.concat([r, r.assign(factuality="false", score=r["score"] - 1)], ignore_index=True)
    fig = figures.pointwise_scores_figure(r[r["setting"].isin(settings)])
    with warnings.catch_warnings():
        warnings.simplefilter("error", FigureWarning)
        assert RunOutputs("t", "05").figure(fig, "05_pointwise_scores", span=span)
    legend = [leg for ax in fig.axes for leg in [legend_of(ax)] if leg is not None]
    assert len(legend) == 1 and [t.get_text() for t in legend[0].get_texts()] == ["true", "false"]
    assert [a.get_title() for a in fig.axes if a.get_title()] == ["normal prompt", "RAG prompt"][-len(settings):]
    assert overlapping_texts(fig) == []
    plt.close(fig)


def test_pointwise_scores_legend_survives_a_panel_with_nothing_to_draw():
    """A smoke model whose replies in one setting never parse draws empty bar containers in that panel
    (as SmolLM2 in the smoke job's normal setting); the legend takes each hue's colour from a panel that
    drew it (an IndexError before)."""
    from matplotlib.colors import to_hex

    r = _ratings()
    r = pd.concat([r, r.assign(factuality="false", score=r["score"] - 1)], ignore_index=True)
    r.loc[r["setting"] == "normal", ["score", "parsed"]] = [np.nan, False]  # the first panel draws nothing
    fig = figures.pointwise_scores_figure(r)
    legend = next(leg for ax in fig.axes for leg in [legend_of(ax)] if leg is not None)
    assert [t.get_text() for t in legend.get_texts()] == ["true", "false"]
    drawn = {to_hex(p.get_facecolor()) for ax in fig.axes for p in ax.patches}
    assert {to_hex(h.get_facecolor()) for h in legend.legend_handles} <= drawn


def test_style_table_reads_the_styled_passage_per_author_and_kind():
    """Notebook 08's table (also the replications'): a judge that always takes passage 1 uses the styled
    passage (A) in half the pairs (A is first in one order of two) and the first one in all."""
    own = _pairs(6).assign(kind="gen_by_qa", a_author="smollm2")
    other = _pairs(6).assign(kind="long", a_author="gemma3")
    table = pt.style_table(pd.concat([own, other], ignore_index=True)).set_index("kind")
    assert table.loc["gen_by_qa", "is_self"] and not table.loc["long", "is_self"]
    assert (table["style_rate"] == 0.5).all() and (table["order_rate"] == 1.0).all()
    assert (table["style_n_items"] == 6).all() and not any(c.startswith("self_") for c in table)
    assert pt.style_table(own.iloc[:0]).empty


def test_pointwise_bars_draw_the_findings_interval_only_from_ten_items():
    """Below 10 items findings withholds a mean's interval, so the bar draws none; from 10 it draws the
    findings' bootstrap interval (seaborn's own draws one over any two values: 05 showed one at 9 items)."""
    from lib.report.plotting import unit_errorbar
    from lib.stats import bootstrap_ci

    rng = np.random.default_rng(3)
    assert all(np.isnan(unit_errorbar(rng.integers(1, 6, 9))))
    values = rng.integers(1, 6, 12).astype(float)
    assert unit_errorbar(values) == pytest.approx(bootstrap_ci(values))

    def drawn(n_items):
        rows = [{"evaluator": "smollm2", "setting": "normal", "factuality": "true", "author": a, "item_id": f"q{i}",
                 "score": float(rng.integers(1, 6)), "expected_score": 3.0 + rng.random(), "parsed": True}
                for i in range(n_items) for a in ("human", "smollm2")]
        fig = figures.pointwise_scores_figure(pd.DataFrame(rows))
        spans = [np.ptp(line.get_ydata()) for ax in fig.axes for line in ax.lines]
        return sum(1 for x in spans if np.isfinite(x) and x > 0)

    assert drawn(9) == 0
    assert drawn(12) == 4  # 2 authors x 2 measures


def test_figure3_promises_interval_bars_only_where_a_bar_has_ten_questions():
    """06's demo figure said 'bars: 95% CI' over bars of 7 questions, none of which can show one."""
    row = {"combo": "TF", "evaluator": "smollm2", "self_rate": 0.6, "self_ci_low": 0.4, "self_ci_high": 0.8}
    assert figures.combo_title([pd.DataFrame([{**row, "self_n_items": 7}])]) == figures.COMBO_TITLE_NO_BARS
    assert figures.combo_title([pd.DataFrame([{**row, "self_n_items": 12}])]) == figures.COMBO_TITLE


def test_the_pair_status_table_names_where_every_pair_went():
    """06_pair_status was an unstacked (status, method) frame whose LaTeX headers read "missing passage
    missing passage" and "ok wrong format". It now has one readable column per outcome, adding up."""
    pairs = _pairs()
    pairs = pairs.assign(b_author="human")
    pairs.loc[pairs.index[:3], "status"] = "missing_passage"
    table = pt.pair_status_table(pairs)
    assert list(table.columns) == ["evaluator", "b_author", "n_pairs", *pt.PAIR_OUTCOMES]
    assert (table["n_pairs"] == table[list(pt.PAIR_OUTCOMES)].sum(axis=1)).all()
    assert int(table["n_pairs"].sum()) == len(pairs) and int(table["passage missing"].sum()) == 3
    decided = table["decided by answer"] + table["decided by passage number"]
    assert int(decided.sum()) == int((pairs["valid"].astype(bool) & (pairs["status"] == "ok")).sum())
