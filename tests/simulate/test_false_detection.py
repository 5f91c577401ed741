"""A planted null detected on either side is a false detection: the validation rows (findings, compare's
paired differences, 04's knowledge rows) mark it detected, so the replications' false-detection share
counts it. Before, a null row needed the estimate on the side of sign(truth - null) = 0 (or, for a
paired difference, the side of +0.0), so a null was never, or only when above, counted as detected."""
import pandas as pd
import pytest

import lib.compare
from lib.simulate.self_preference.knowledge_rows import _row
from lib.simulate.replicate_summary import summarize
from lib.simulate.rewardbench.validate import paired_rows
from lib.simulate.core.truth import on_truths_side
from lib.simulate.validate import COLUMNS, compare


def _finding(estimate, lo, hi, p_adj):
    return {"measure_id": "self_preference_rate.paper_parsed_reply", "notebook": "06_generation_phase",
            "estimate": estimate, "ci_low": lo, "ci_high": hi, "n_items": 100, "p": p_adj, "p_adjusted": p_adj}


@pytest.mark.parametrize("estimate,lo,hi", [(0.60, 0.55, 0.65), (0.40, 0.35, 0.45)])
def test_a_planted_null_detected_on_either_side_is_a_false_detection(estimate, lo, hi):
    truths = {"self_preference_rate.paper_parsed_reply": ("06", 0.5, 0.5)}
    tested = compare(pd.DataFrame([_finding(estimate, lo, hi, 0.01)]), truths).iloc[0]
    assert tested["detected"] == 1.0
    untested = compare(pd.DataFrame([_finding(estimate, lo, hi, None)]), truths).iloc[0]  # by its interval
    assert untested["detected"] == 1.0
    not_significant = compare(pd.DataFrame([_finding(estimate, 0.45, 0.65, 0.3)]), truths).iloc[0]
    assert not_significant["detected"] == 0.0


def test_a_planted_effect_still_needs_the_truths_side():
    assert on_truths_side(0.6, 0.7, 0.5) and not on_truths_side(0.4, 0.7, 0.5)
    assert on_truths_side(0.4, 0.5 + 1e-12, 0.5)  # quadrature noise around the null is a null
    truths = {"self_preference_rate.paper_parsed_reply": ("06", 0.7, 0.5)}
    wrong_side = compare(pd.DataFrame([_finding(0.40, 0.35, 0.45, 0.01)]), truths).iloc[0]
    assert wrong_side["detected"] == 0.0


@pytest.mark.parametrize("estimate", [0.12, -0.12])
def test_a_null_paired_difference_detected_on_either_side_is_a_false_detection(monkeypatch, estimate):
    mid = "judge_overall_accuracy.generate_and_parse"
    tables = {"long": pd.DataFrame({"entry": ["a", "b"], "model": ["openai:sim@x", "openai:sim_b@x"]}),
              "paired": pd.DataFrame([{"measure_id": mid, "first": "a", "second": "b", "estimate": estimate,
                                       "ci_low": estimate - 0.1, "ci_high": estimate + 0.1, "n": 72,
                                       "p_adjusted": 0.01}])}
    monkeypatch.setattr(lib.compare, "compare_tables", lambda dirs: tables)
    truths = {m: {mid: ("13_rewardbench", 0.475, 0.5)} for m in ("sim", "sim_b")}
    row = paired_rows(["run"], truths, COLUMNS).iloc[0]
    assert row["truth"] == 0.0 and row["covered"] == 0.0
    assert row["detected"] == 1.0


def test_a_null_knowledge_row_detected_below_its_null_is_a_false_detection():
    below = _row("knowledge_accuracy.nq", "04_knowledge_probe", 0.5, 0.40, 0.33, 0.47, 60, null=0.5, p_adjusted=0.01)
    assert below["detected"] == 1.0
    untested = _row("knowledge_accuracy.nq", "04_knowledge_probe", 0.5, 0.40, 0.33, 0.47, 60, null=0.5)
    assert untested["detected"] == 1.0
    planted_wrong_side = _row("knowledge_accuracy.nq", "04_knowledge_probe", 0.7, 0.40, 0.33, 0.47, 60, null=0.5)
    assert planted_wrong_side["detected"] == 0.0


def test_the_summary_counts_both_sides_of_a_null_as_false_detections():
    truths = {"self_preference_rate.paper_parsed_reply": ("06", 0.5, 0.5)}
    rows = pd.concat([compare(pd.DataFrame([_finding(e, e - 0.05, e + 0.05, p)]), truths).assign(seed=s)
                      for s, (e, p) in enumerate([(0.6, 0.01), (0.4, 0.01), (0.5, 0.9), (0.52, 0.6)])])
    s = summarize(rows).set_index("family").loc["self_preference_rate"]
    assert s["null_rows"] == 4 and s["false_detection"] == 0.5
