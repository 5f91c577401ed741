"""RAG-RewardBench metrics: Table 2 count-weighted averages, CIs, judge bias table, length and score
gap bins, self-preference split and best-of-N (through the model layer with scripted backends)."""
import numpy as np
import pandas as pd
import pytest

from lib.rewardbench import best_of_n as bon
from lib.rewardbench import accuracy_tables as M
from lib.rewardbench.categories import PUBLISHED_COUNTS
from lib.rewardbench.family_preference import family, rm_families, self_preference_table


def test_table2_averages_are_count_weighted():
    # Skywork-Critic-Llama-3.1-70B row of Table 2 with the counts of Table 4
    acc = {"helpful": 85.9, "reason": 77.1, "citation": 68.1, "harmless": 91.6, "abstain": 74.2, "conflict": 83.2}
    n = PUBLISHED_COUNTS
    helpful = M.weighted_mean([acc[c] for c in ("helpful", "reason", "citation")],
                              [n[c] for c in ("helpful", "reason", "citation")])
    harmless = M.weighted_mean([acc[c] for c in ("harmless", "abstain", "conflict")],
                               [n[c] for c in ("harmless", "abstain", "conflict")])
    overall = M.weighted_mean([helpful, harmless], [929, 556])
    assert (round(helpful, 1), round(harmless, 1), round(overall, 1)) == (76.1, 82.0, 78.3)
    assert sum(n.values()) == 1485
    # the unweighted mean would not reproduce the paper
    assert round(np.mean(list(acc.values())), 1) != 78.3


def _results():
    rows = []
    spec = [("helpful", "Helpful", "helpful-nq", [1, 1, 1, 0]), ("helpful", "Helpful", "helpful-tqa", [1, 0]),
            ("conflict", "Harmless", "conflict-nq", [0, 0, 1, 1, 1, 1])]
    for cat, grp, sub, correct in spec:
        for i, c in enumerate(correct):
            rows.append({"rm": "implicit:x", "kind": "implicit", "id": f"{sub}{i}", "category": cat, "group": grp,
                         "subset": sub, "correct": float(c), "p_rejected": 1.0 - c,
                         "len_diff": [5, -3, 0][i % 3], "chosen_score": 4.0 if i % 2 else np.nan,
                         "rejected_score": 2.5 if i % 2 else np.nan, "chosen_model": "gpt-4o",
                         "rejected_model": "Llama-3.1-8B"})
    return pd.DataFrame(rows)


def test_accuracy_table_levels_and_cis():
    long = M.accuracy_table(_results()).set_index(["level", "name"])
    assert long.loc[("subset", "helpful-nq"), "accuracy"] == 0.75
    assert long.loc[("category", "helpful"), "accuracy"] == pytest.approx(4 / 6)
    assert long.loc[("category", "helpful"), "n"] == 6
    assert long.loc[("group", "Harmless"), "accuracy"] == pytest.approx(4 / 6)
    assert long.loc[("overall", "Overall"), "accuracy"] == pytest.approx(8 / 12)
    for _, r in long.iterrows():  # 12 pairs: an interval contains its accuracy, or there is none
        assert (np.isnan(r["ci_low"]) and np.isnan(r["ci_high"])) or r["ci_low"] <= r["accuracy"] <= r["ci_high"]
    assert np.isnan(long.loc[("overall", "Overall"), "ci_low"])  # fewer than 10 units per category
    table = M.paper_table(M.accuracy_table(_results()))
    assert table.loc["implicit:x", ("Helpful", "General")] == pytest.approx(66.7)
    assert np.isnan(table.loc["implicit:x", ("Helpful", "Reason")])
    assert list(table.columns[-1]) == ["Overall", ""]


def test_equal_samples_per_category_average_with_the_papers_counts():
    rows = [{"rm": "r", "kind": "implicit", "id": f"{cat}{i}", "category": cat, "group": grp,
             "subset": f"{cat}-nq", "correct": ok} for cat, grp, ok in
            (("helpful", "Helpful", 1.0), ("reason", "Helpful", 0.0), ("conflict", "Harmless", 0.0))
            for i in range(10)]
    long = M.accuracy_table(pd.DataFrame(rows)).set_index(["level", "name"])
    n = PUBLISHED_COUNTS
    # 10 pairs each, but helpful stands for 262 published pairs, reason 306, conflict 184
    assert long.loc[("group", "Helpful"), "accuracy"] == pytest.approx(n["helpful"] / (n["helpful"] + n["reason"]))
    overall = n["helpful"] / (n["helpful"] + n["reason"] + n["conflict"])
    assert long.loc[("overall", "Overall"), "accuracy"] == pytest.approx(overall)
    assert long.loc[("overall", "Overall"), "accuracy"] != pytest.approx(1 / 3)  # the sample's mean
    assert long.loc[("overall", "Overall"), "n"] == 30
    # every category is all right or all wrong: resampling pairs within categories cannot move it, so
    # no zero-width interval but the Wilson interval over the 30 pairs
    from lib import stats
    row = long.loc[("overall", "Overall")]
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(stats.unit_wilson(overall, 30))


def test_judge_table_position_and_unparsed():
    res = pd.DataFrame({"rm": "judge:x", "kind": "judge", "correct": [1.0, 0.5, 0.5, 0.0],
                        "unparsed": [0, 0, 1, 2], "consistent": [1.0, 0.0, np.nan, np.nan],
                        "n_first": [1, 2, 1, 0]})
    t = M.judge_table(res).iloc[0]
    assert t["accuracy"] == 0.5 and t["unparsed_verdicts"] == 3 and t["unparsed_rate"] == 3 / 8
    assert t["position_consistency"] == 0.5 and t["pairs_both_parsed"] == 2
    assert t["first_position_rate"] == pytest.approx(4 / 5)


def test_length_bias_and_bins():
    res = _results()
    longer = M.picked_longer(res)
    assert np.isnan(longer[res["len_diff"] == 0]).all()
    # a pair where chosen is longer and the rm was right picked the longer one
    i = res.index[(res["len_diff"] > 0) & (res["correct"] == 1)][0]
    assert longer[i] == 1.0
    lb = M.length_bias_table(res).iloc[0]
    assert lb["pairs_unequal_length"] == (res["len_diff"] != 0).sum()
    bins = M.binned_accuracy(res, "len_diff", bins=3)
    assert bins["n"].sum() == len(res)
    gap = res.assign(gap=M.score_gap(res))
    gb = M.binned_accuracy(gap, "gap", bins=2)
    assert gb["n"].sum() == gap["gap"].notna().sum() == 6
    assert M.binned_accuracy(res.assign(gap=np.nan), "gap").empty


def test_self_preference_split():
    assert family("Llama-3.1-8B-Instruct") == "llama" and family("meta-llama/Llama-3.3-70B") == "llama"
    assert family("gpt-4o-mini") == "gpt" and family("o1-mini-2024-09-12") == "gpt"
    assert family("claude-3-5-haiku-20241022") == "claude" and family("Mixtral-8x7B") == "mistral"
    fams = rm_families(["judge:openai:gpt-4o-mini", "implicit:local:smollm2;norm=mean"])
    assert fams == {"judge:gpt-4o-mini": "gpt", "implicit-mean:smollm2": "smollm"}
    res = _results().assign(rm="judge:gpt-4o-mini")
    t = self_preference_table(res, fams).set_index("split")
    assert t.loc["own is chosen", "pairs"] == len(res) and t.loc["own is rejected", "pairs"] == 0
    assert t.loc["own is chosen", "picks_own"] == res["correct"].mean()


def test_answer_recall():
    assert bon.answer_recall("It was painted by Michelangelo.", ["Michelangelo"]) == 1.0
    assert bon.answer_recall("The river Nile", ["the Nile River"]) == 1.0
    assert bon.answer_recall("Nile", ["Nile River"]) == 0.5
    assert bon.answer_recall("no idea", ["Mars", "planet Mars"]) == 0.0
    assert bon.answer_recall("anything", ["the"]) == 0.0


def test_answer_recall_rules():
    # whole_word keeps articles and splits on punctuation: "the" counts, "U.S." becomes "u s"
    assert bon.answer_recall("the Nile", ["the Nile River"], rule="whole_word") == pytest.approx(2 / 3)
    assert bon.answer_recall("the Nile", ["the Nile River"], rule="squad") == 0.5
    with pytest.raises(ValueError, match="recall rule"):
        bon.answer_recall("x", ["x"], rule="fuzzy")


def test_figure6_accuracy_uses_the_reason_subset_when_present():
    res = _results()
    acc, basis = bon.accuracy_for_figure6(M.accuracy_table(res))
    assert basis.startswith("overall") and acc["accuracy"].iloc[0] == pytest.approx(8 / 12)
    reason = res.assign(category=np.where(res["subset"] == "helpful-tqa", "reason", res["category"]))
    acc, basis = bon.accuracy_for_figure6(M.accuracy_table(reason))
    assert basis.startswith("multi-hop") and acc["accuracy"].iloc[0] == 0.5  # helpful-tqa: [1, 0]


ITEMS = [{"id": "t1", "question": "Red planet?", "answer": "Mars", "aliases": [], "title": "Mars",
          "human_passage": "Mars is red.", "negatives": [{"title": "J", "text": "Jupiter is big."}]},
         {"id": "t2", "question": "Fourth planet?", "answer": "Mars", "aliases": [], "title": "Mars",
          "human_passage": "Mars is fourth.", "negatives": []}]
SAMPLES = ["I do not know.", "It is Mars.", "Maybe Jupiter, the biggest planet."]


def test_best_of_n_pick_and_gain(scripted_model):
    from lib.rewardbench.registry import get_reward_model

    # sample k of every prompt says candidate k; the samples differ
    policy = scripted_model(lambda text, req: SAMPLES[req.sample % 3])
    cands = bon.sample_candidates(policy, ITEMS, n=3, seed=0, temperature=0.7, max_tokens=20)
    assert len(cands) == 6 and cands["recall"].tolist() == [0, 1, 0, 0, 1, 0]
    assert cands.groupby("item_id")["response"].nunique().eq(3).all(), "samples must differ"
    reqs = policy.backend.requests
    assert {r.sample for r in reqs} == {0, 1, 2} and {r.temperature for r in reqs} == {0.7}
    assert "## Question: Red planet?" in cands.iloc[0]["prompt"]
    assert policy.backend.texts[0].startswith("<|im_start|>system\nYou are a knowledgeable assistant")
    # an implicit reward over a model that likes long answers (log-probability = +1 per word)
    longest = get_reward_model("implicit:local:smollm2",
                               model=scripted_model(loglik=lambda ctx, cont: float(len(cont.split()))))
    # a judge that prefers whichever response mentions Mars
    def likes_mars(text, req):
        one, two = text.split('Response 1: "')[1].split('" Response 2: "')
        return "Choose 1" if "Mars" in one else "Choose 2" if "Mars" in two else "no"
    judge_model = scripted_model(likes_mars)
    judge = get_reward_model("judge:local:smollm2;retries:0", model=judge_model)
    picks = pd.concat([bon.pick(longest, cands), bon.pick(judge, cands)])
    assert judge_model.backend.calls == 2 * 2 * 2  # N-1 = 2 knockout rounds x 2 items x 2 orders
    table = bon.bon_table(cands, picks).set_index("rm")
    assert table.loc["judge:smollm2;retries:0", "recall_pick"] == 1.0
    assert table.loc["judge:smollm2;retries:0", "gain"] == pytest.approx(1 - 1 / 3)
    assert table.loc["implicit:smollm2", "recall_pick"] == 0.0  # the Jupiter answer is longest
    assert table.loc["implicit:smollm2", "recall_oracle"] == 1.0
    corr = bon.accuracy_gain_correlation(pd.DataFrame({"accuracy": [0.5, 0.7, 0.9], "gain": [0.0, 0.1, 0.3]}))
    assert corr["pearson_r"] > 0.9 and corr["n_models"] == 3
    assert np.isnan(bon.accuracy_gain_correlation(pd.DataFrame({"accuracy": [0.5, 0.7], "gain": [0.0, 0.1]}))["pearson_r"])


def test_judge_finding_counts_pairs_weighs_categories_and_never_collapses():
    from lib.rewardbench.findings_rows import judge_findings

    # a judge that always names position 1: every pair scores exactly 0.5
    res = pd.DataFrame({"kind": "judge", "rm": "j", "spec": "judge:local:smollm2;logprob", "correct": [0.5] * 30,
                        "consistent": [False] * 30, "unparsed": [0] * 30, "n_first": [2] * 30,
                        "id": [f"p{i}" for i in range(30)], "category": "helpful"})
    row = judge_findings(res)[0]
    assert (row["n"], row["n_judgments"], row["unit"], row["estimate"]) == (30, 60, "pair", 0.5)
    assert row["ci_low"] < 0.35 and row["ci_high"] > 0.65  # Wilson over 30 pairs, not [0.5, 0.5]
    none = judge_findings(res.assign(correct=0.0))[0]
    assert none["ci_low"] == 0.0 and 0.08 < none["ci_high"] < 0.15
    # ten pairs per category sampled equally: the overall weighs categories as the paper's counts do
    mixed = pd.concat([res.head(10).assign(category="helpful", correct=1.0),
                       res.iloc[10:20].assign(category="conflict", correct=0.0),
                       res.tail(10).assign(category="conflict", correct=[1.0, 0.0] * 5)])
    row = judge_findings(mixed)[0]
    n = PUBLISHED_COUNTS
    assert row["estimate"] == pytest.approx((n["helpful"] + 0.25 * n["conflict"]) / (n["helpful"] + n["conflict"]))
    assert row["ci_low"] < row["estimate"] < row["ci_high"]


def test_figures_state_n_in_pairs_and_the_unparsed_judge_verdicts():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lib.report.figure_checks import states_n
    from lib.rewardbench import figures

    implicit = _results()
    assert figures.results_n(implicit) == "n = 12 pairs"
    judge = implicit.head(4).assign(rm="judge:x", kind="judge", unparsed=[0, 1, 2, 0])
    both = pd.concat([implicit, judge])
    assert figures.results_n(both) == "n = 12 pairs; 3 of 8 judge verdicts unparsed (38%)"
    fig, ax = plt.subplots()
    assert not states_n(fig) and states_n(figures.with_n(fig, both))
    plt.close(fig)


def test_demo_pairs_are_clustered_by_question_and_missing_categories_are_said():
    from lib.rewardbench.findings_rows import judge_findings

    # 12 demo questions x 3 scenarios (ids '<item>:<scenario>'), 3 of the 6 categories
    rows = []
    for q in range(12):
        right = float(q % 2)  # a question the judge gets right in every scenario, or wrong in every one
        for cat in ("helpful", "abstain", "conflict"):
            rows.append({"kind": "judge", "rm": "j", "spec": "judge:local:smollm2", "correct": right,
                         "consistent": True, "unparsed": 0, "n_first": 1, "id": f"demo{q}:{cat}", "category": cat})
    row = judge_findings(pd.DataFrame(rows))[0]
    assert (row["n"], row["unit"], row["n_judgments"]) == (12, "question", 72)  # 12 questions, not 36 pairs
    assert "3 of 6 categories (helpful, abstain, conflict), weights renormalised" in row["measure"]
    assert row["measure_id"] == "judge_overall_accuracy.generate_and_parse"
