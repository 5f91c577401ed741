"""Self-preference findings rows and the statistics behind them (issue 26): one primary reading per
quantity, the order-balanced self-preference rate, pooled 05 rows keyed by dataset and item id."""
import numpy as np
import pandas as pd
import pytest

from lib.self_preference import findings_rows as fr
from lib.self_preference import likelihood as lk
from lib.self_preference import tables as pt
from tests.sp_pairs import all_combo_pairs


def test_order_balanced_self_rate_reaches_findings_and_resists_order_dependent_parse_failures():
    # the evaluator always takes passage 1 (pure position bias, no self-preference); in order
    # "b_first" most replies fail to parse, so the pooled-by-parsed-judgments rate leans to A
    p = all_combo_pairs(40, paper=lambda a_pos, true_pos, asym: 1, lik=lambda a_pos, true_pos, asym: None)
    drop = (p["order"] == "b_first") & (p["combo"] != "TT")
    p.loc[drop, "choice"] = pd.NA
    from lib.self_preference import pairwise as pr
    p = pr.derive_preferences(p)
    rows = {r["measure"]: r for r in fr.preference_findings({"paper (parsed reply)": p}, {"smollm2": "local:smollm2"})}
    pooled = rows["self-preference rate (paper (parsed reply); TT/TF/FT/FF pairs)"]
    balanced = rows["order-balanced self-preference rate (paper (parsed reply); TT/TF/FT/FF pairs)"]
    assert pooled["estimate"] == pytest.approx(0.8)  # 4 a_first (all A) vs 1 b_first (B) per question
    assert balanced["estimate"] == pytest.approx(0.5)  # each order's rate: 1 and 0
    assert balanced["measure_id"] == "order_balanced_self_preference_rate.paper_parsed_reply"
    assert pooled["primary"] and not balanced["primary"]
    assert balanced["n"] == 40 and balanced["ci_low"] < 0.5 < balanced["ci_high"]
    from lib.compare.forest import null_of
    assert null_of(balanced["measure_id"]) == 0.5


def test_likelihood_methods_are_secondary_readings():
    p = all_combo_pairs(12, paper=lambda a_pos, true_pos, asym: true_pos if asym else 1,
                        lik=lambda a_pos, true_pos, asym: a_pos)
    views = {"paper (parsed reply)": p, "likelihood sum": lk.likelihood_view(p)}
    rows = fr.preference_findings(views, {"smollm2": "local:smollm2"})
    for r in rows:
        assert r["primary"] == ("paper (parsed reply)" in r["measure"] and "order-balanced" not in r["measure"]), r["measure"]


def test_pointwise_argmax_and_expected_score_rows_are_secondary_and_pooled_rows_key_by_dataset():
    rows = []
    # item ids repeat across datasets: q0..q11 in nq and in marco are different questions
    for ds, gap in (("nq", 1.0), ("marco", -1.0)):
        for i in range(12):
            for author, sc in (("human", 3 + gap * (i % 3 > 0)), ("e", 3.0)):
                rows.append({"dataset": ds, "evaluator": "e", "setting": "rag", "item_id": f"q{i}", "author": author,
                             "factuality": "true", "score": sc, "lik_argmax": sc, "lik_expected": sc})
    hms = lk.human_minus_self_methods(pd.DataFrame(rows))
    paper = hms[hms["method"] == lk.PRIMARY_RATING].set_index("dataset")
    assert paper.loc["all", "n_true"] == 24  # 24 questions, not 12 merged ids
    found = fr.pointwise_findings(hms, {"e": "local:e"})
    primary = [f for f in found if f["primary"]]
    assert {f["measure"].rsplit(", ", 1)[1] for f in primary} == {"paper (parsed reply))"}
    assert len(found) == 9 and len(primary) == 3  # 3 datasets (nq, marco, all) x 3 readings


def test_gee_rates_report_the_gee_estimate_beside_its_interval():
    rng = np.random.default_rng(0)
    sizes = rng.integers(1, 9, 40)  # unequal cluster sizes: the GEE estimate is not k / n
    ids = np.repeat(np.arange(40), sizes)
    rates = rng.beta(1, 1, 40)
    v = pd.Series(rng.random(len(ids)) < rates[ids])
    c = pt.rate_cell(v, ids, method="gee")
    assert c["ci_low"] <= c["rate"] <= c["ci_high"]
    assert c["rate"] != pytest.approx(c["k"] / c["n"], abs=1e-6)


def test_table2_daggers_use_the_raw_paired_p_and_the_docs_say_so():
    from pathlib import Path

    # 12 items, human rated 1 point higher on 9 of them: raw paired p well below 0.05
    rows = []
    for i in range(12):
        for author, sc in (("human", 4 if i % 4 else 3), ("e", 3)):
            rows.append({"dataset": "nq", "evaluator": "e", "setting": "rag", "item_id": f"q{i}", "author": author,
                         "factuality": "true", "score": sc})
    t = pt.human_vs_self(pd.DataFrame(rows)).iloc[0]
    assert t["p_true"] < pt.DIFF_DAGGER_P and t["diff_true_fmt"].endswith("†")
    doc = (Path(__file__).resolve().parents[2] / "docs" / "statistics.md").read_text()
    assert "raw p < 0.05" in doc and "Holm-corrected" not in doc.split("## Daggers")[1].split("##")[0]

def test_the_balanced_rates_test_flips_each_questions_weighted_deviation_from_one_half():
    # random choices, order-dependent parse failures (5% in a_first, 40% in b_first): each judgment
    # weighs 1 / (2 x its order's parsed count), so a question's deviation is sum w (chose_a - 0.5)
    rng = np.random.default_rng(4)
    p = all_combo_pairs(24, paper=lambda a_pos, true_pos, asym: int(rng.integers(1, 3)), lik=lambda *a: None)
    lost = rng.random(len(p)) < np.where(p["order"] == "a_first", 0.05, 0.40)
    p.loc[lost, "chose_a"] = pd.NA
    g = p[p["chose_a"].notna()]
    w = len(g) / (2 * g["order"].map(g["order"].value_counts()).to_numpy(float))
    y = g["chose_a"].astype(float).to_numpy()
    deviations = pd.Series(w * (y - 0.5)).groupby(pt.question_ids(g).to_numpy()).sum() / w.sum()
    cell = pt.balanced_rate_cell(p, "chose_a")
    from lib import stats
    assert cell["rate"] == pytest.approx(pr_debiased(g))
    assert cell["n_items"] == 24 and cell["p"] == pytest.approx(stats.sign_flip_p(deviations.to_numpy()), rel=1e-9)
    # every parsed judgment chose A: all questions alike, the Wilson interval over 24 questions
    p["chose_a"] = p["chose_a"].where(p["chose_a"].isna(), True)
    alike = pt.balanced_rate_cell(p, "chose_a")
    assert alike["ci_note"] == stats.ALL_SAME_RATE and alike["ci_low"] == pytest.approx(stats.wilson_ci(24, 24)[0])


def pr_debiased(g):
    """The mean of the two orders' rates of choosing A."""
    from lib.self_preference import pairwise as pr
    return pr.debiased_rate(g, "chose_a")


def test_pointwise_rows_without_an_interval_say_why():
    rows = []
    # nq: 2 items with both ratings (too few for a paired t); marco: 12 items, every difference 1 point
    for ds, n in (("nq", 2), ("marco", 12)):
        for i in range(n):
            for author, sc in (("human", 4.0), ("e", 3.0)):
                rows.append({"dataset": ds, "evaluator": "e", "setting": "rag", "item_id": f"q{i}", "author": author,
                             "factuality": "true", "score": sc})
    # trivia: 12 items whose differences vary: an interval, no reason
    for i in range(12):
        for author, sc in (("human", 3.0 + i % 2), ("e", 3.0)):
            rows.append({"dataset": "trivia", "evaluator": "e", "setting": "rag", "item_id": f"q{i}", "author": author,
                         "factuality": "true", "score": sc})
    found = {(r["measure_id"].split(".")[1]): r for r in fr.pointwise_findings(
        lk.human_minus_self_methods(pd.DataFrame(rows), pooled=False), {"e": "local:e"}) if r["primary"]}
    assert "too few units" in found["nq"]["no_interval"]
    assert "nothing varies" in found["marco"]["no_interval"]
    assert found["trivia"]["no_interval"] == "" and found["trivia"]["ci_low"] < found["trivia"]["ci_high"]
