"""The replications' summary (lib/simulate/replicate_summary.py) and notebook selection
(lib/simulate/replicate.py) on planted tables: pure logic, no simulator."""
import pandas as pd
import pytest

from lib.simulate.replicate import notebooks_for
from lib.simulate.replicate_summary import family, summarize


def _rows(measure_id, truth, null, covered, detected, seeds, model="sim"):
    return [{"measure_id": measure_id, "truth": truth, "null": null, "covered": c, "detected": d, "seed": s,
             "model": model} for c, d, s in zip(covered, detected, seeds)]


def test_family_keeps_the_measure_of_a_paired_difference():
    assert family("set_f1.nq.utility") == "set_f1"
    assert family("paired_difference.judge_overall_accuracy.generate_and_parse.sim_minus_sim_b") == \
        "paired_difference.judge_overall_accuracy"


def test_coverage_false_detection_and_goal_per_family_and_model():
    rows = pd.DataFrame(
        # a planted effect (0.2 from its null: must be detected), 19 of 20 seeds covered, all detected
        _rows("self_preference_rate.p", 0.7, 0.5, [1.0] * 19 + [0.0], [1.0] * 20, range(20))
        # a planted null, detected in 2 of 20 seeds (0.10 > 0.06): misses the goal though every row covers
        + _rows("first_position_rate.p", 0.5, 0.5, [1.0] * 20, [1.0] * 2 + [0.0] * 18, range(20))
        # the same measure for a second model: its own line
        + _rows("first_position_rate.p", 0.5, 0.5, [1.0] * 20, [0.0] * 20, range(20), model="sim_b")
        # a pooled row repeats the datasets' data: left out
        + _rows("human_minus_self.all.rag.x", 0.0, 0.0, [0.0] * 20, [1.0] * 20, range(20)))
    s = summarize(rows).set_index(["family", "model"])
    sp = s.loc[("self_preference_rate", "sim")]
    assert sp["rows"] == 20 and sp["coverage"] == 0.95 and sp["null_rows"] == 0 and sp["meets_goal"]
    assert sp["planted_rows"] == 20 and sp["detected_planted"] == 1.0
    assert sp["coverage_seed_low"] < 0.95 < sp["coverage_seed_high"] <= 1.0
    fp = s.loc[("first_position_rate", "sim")]
    assert fp["false_detection"] == 0.10 and not fp["meets_goal"]
    assert s.loc[("first_position_rate", "sim_b"), "meets_goal"]
    assert "human_minus_self" not in s.index.get_level_values("family")


def test_interval_over_seeds_is_wider_than_over_rows_when_a_seed_gives_many_rows():
    # 10 seeds x 6 rows of a family, the misses all in 2 seeds (rows of a seed move together)
    covered = [0.0 if s < 2 else 1.0 for s in range(10) for _ in range(6)]
    seeds = [s for s in range(10) for _ in range(6)]
    s = summarize(pd.DataFrame(_rows("set_f1.nq.utility", 50.0, float("nan"), covered, [float("nan")] * 60,
                                     seeds))).iloc[0]
    assert s["rows"] == 60 and s["coverage"] == pytest.approx(0.8) and s["seeds"] == 10
    assert s["coverage_seed_high"] - s["coverage_seed_low"] > s["coverage_wilson_high"] - s["coverage_wilson_low"]
    assert s["null_rows"] == 0 and not s["meets_goal"]


def test_notebooks_for_adds_what_a_notebook_needs_in_run_order():
    assert notebooks_for(["07"]) == ("02", "04", "07")
    assert notebooks_for(["10", "13"]) == ("09", "10", "13")
    assert notebooks_for([], ["rm"]) == ("13", "14", "15", "17")
    assert notebooks_for([]) == notebooks_for([], ["all"]) and "17" in notebooks_for([])
    assert notebooks_for(["12"]) == ("09", "12") and notebooks_for([], ["utility"]) == ("09", "10", "11", "12")
    with pytest.raises(ValueError, match="no replication"):
        notebooks_for(["16"])
    with pytest.raises(ValueError, match="unknown family group"):
        notebooks_for([], ["ratings"])


def test_bias_is_the_mean_error_with_an_interval_over_seeds():
    rows = pd.DataFrame([{"measure_id": "judge_overall_accuracy.g", "truth": 0.70, "null": 0.5, "covered": 1.0,
                          "detected": 1.0, "seed": s, "model": "sim", "estimate": 0.70 + (0.02 if s % 2 else 0.04)}
                         for s in range(20)])
    s = summarize(rows).iloc[0]
    assert s["bias"] == pytest.approx(0.03) and s["bias_low"] > 0 and s["bias_high"] < 0.05
