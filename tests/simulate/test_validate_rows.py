"""validate's verdict on rows (pure logic over small tables): a missing or renamed row fails by name,
a truth outside its measure's range fails by name, one notebook under-covering fails even when the
pooled coverage passes, and a tested row outside Holm's family is judged by its own p."""
import math

import pandas as pd

from lib.simulate.expected_rows import expected_rows, missing_rows
from lib.simulate.validate import COLUMNS, detected, verdict

SIM = "openai:sim@http://127.0.0.1:8765/v1"
PARAMS = {"model": SIM, "evaluators": [SIM + ";base"],
          "reward_models": [f"judge:{SIM};retries:0", "judge:openai:sim_b@http://127.0.0.1:8765/v1;retries:0",
                            f"judge:{SIM};logprob"]}
TRUTHS = {"sim": {"self_preference_rate.paper_parsed_reply": ("06_generation_phase", 0.64, 0.5),
                  "first_position_rate.likelihood_sum": ("06_generation_phase", 0.41, 0.5),
                  "judge_overall_accuracy.generate_and_parse": ("13_rewardbench", 0.6, 0.5),
                  "judge_overall_accuracy.top_k_log_probability_verdict": ("13_rewardbench", 0.7, 0.5)},
          "sim_b": {"self_preference_rate.paper_parsed_reply": ("06_generation_phase", 0.64, 0.5),
                    "judge_overall_accuracy.generate_and_parse": ("13_rewardbench", 0.4, 0.5),
                    "judge_overall_accuracy.top_k_log_probability_verdict": ("13_rewardbench", 0.3, 0.5)}}


def _row(mid, nb="06_generation_phase", truth=0.6, est=0.6, lo=0.5, hi=0.7, null=0.5, p_adj=0.001, p=0.001, **kw):
    return {**dict.fromkeys(COLUMNS, math.nan), "measure_id": mid, "notebook": nb, "truth": truth, "null": null,
            "estimate": est, "ci_low": lo, "ci_high": hi, "n_items": 100, "p": p, "p_adjusted": p_adj,
            "covered": float(lo <= truth <= hi), "detected": 1.0, **kw}


def test_expected_rows_follow_the_run_parameters():
    notebooks = {"06_generation_phase", "13_rewardbench"}
    got = set(expected_rows(TRUTHS, notebooks, PARAMS))
    assert ("sim", "self_preference_rate.paper_parsed_reply", "06_generation_phase") in got
    assert ("sim", "first_position_rate.likelihood_sum", "06_generation_phase") in got  # ;base evaluator
    assert ("sim_b", "self_preference_rate.paper_parsed_reply", "06_generation_phase") not in got  # 06 asks sim only
    assert ("sim_b", "judge_overall_accuracy.generate_and_parse", "13_rewardbench") in got
    assert ("sim", "judge_overall_accuracy.top_k_log_probability_verdict", "13_rewardbench") in got
    assert ("sim_b", "judge_overall_accuracy.top_k_log_probability_verdict", "13_rewardbench") not in got
    chat = {**PARAMS, "evaluators": [SIM]}  # no base LM: no likelihood reading is expected
    assert not any("likelihood_sum" in mid for _, mid, _ in expected_rows(TRUTHS, notebooks, chat))
    assert not any(nb == "13_rewardbench" for *_, nb in expected_rows(TRUTHS, {"06_generation_phase"}, PARAMS))


def test_a_missing_or_renamed_row_fails_with_its_name():
    notebooks = {"06_generation_phase", "13_rewardbench"}
    expected = expected_rows(TRUTHS, notebooks, PARAMS)
    findings = pd.DataFrame([{"model": SIM, "measure_id": mid} for model, mid, _ in expected if model == "sim"]
                            + [{"model": "openai:sim_b@x", "measure_id": "judge_overall_accuracy.generate_and_parse"}])
    assert missing_rows(findings, expected, TRUTHS, COLUMNS).empty
    renamed = findings.replace({"self_preference_rate.paper_parsed_reply": "self_pref_rate.paper_parsed_reply"})
    gone = missing_rows(renamed, expected, TRUTHS, COLUMNS)
    assert list(gone["measure_id"]) == ["self_preference_rate.paper_parsed_reply"] and gone["missing"].eq(1).all()
    table = pd.concat([pd.DataFrame([_row(f"r{i}") for i in range(12)]), gone], ignore_index=True)
    passed, line = verdict(table)
    assert not passed and "missing: self_preference_rate.paper_parsed_reply (sim)" in line
    passed, _ = verdict(pd.DataFrame([_row(f"r{i}") for i in range(12)]))
    assert passed


def test_a_truth_outside_its_range_fails_with_its_name():
    rows = [_row(f"first_position_rate.x{i}") for i in range(12)]
    rows.append(_row("judge_position_consistency.top_k_log_probability_verdict", "13_rewardbench", truth=1.18,
                     est=0.86, lo=0.77, hi=0.92, null=math.nan, p_adj=math.nan, p=math.nan))
    passed, line = verdict(pd.DataFrame(rows))
    assert not passed and "truth outside its range: judge_position_consistency.top_k_log_probability_verdict" in line


def test_one_notebook_under_covering_fails_though_the_pooled_share_passes():
    rows = [_row(f"a{i}", "06_generation_phase") for i in range(60)]
    rows += [_row(f"b{i}", "13_rewardbench", truth=0.9 if i < 3 else 0.6) for i in range(12)]  # 9/12 = 75%
    table = pd.DataFrame(rows)
    assert table["covered"].mean() >= 0.9
    passed, line = verdict(table)
    assert not passed and "13_rewardbench 9/12" in line
    few = pd.DataFrame(rows[:60] + [_row(f"c{i}", "15_best_of_n", truth=0.9 if i < 3 else 0.6) for i in range(9)])
    assert verdict(few)[0]  # 6/9 in a notebook under 10 rows: judged in the pooled share only (66/69)


def test_a_row_tested_outside_holms_family_is_judged_by_its_own_p():
    row = _row("human_minus_self.all.rag.self_true.paper_parsed_reply", truth=-0.7, est=-0.7, lo=-0.8, hi=-0.6,
               null=0.0, p_adj=math.nan, p=0.2)
    assert detected(row) == 0.0
    assert detected({**row, "p": 0.001}) == 1.0
    assert detected({**row, "p": 0.001, "estimate": 0.3}) == 0.0  # the wrong side
    assert math.isnan(detected({**row, "p": math.nan, "ci_low": math.nan, "ci_high": math.nan}))


def test_a_row_written_under_a_judges_reward_spec_is_the_served_models():
    """18 names a judge's rows by its reward spec: they are the served model's rows, not missing."""
    from lib.simulate.rewardbench.truth import served_name

    assert served_name("judge:openai:sim@http://127.0.0.1:1/v1;logprob") == "sim"
    assert served_name("openai:sim_b@http://127.0.0.1:1/v1") == "sim_b"
    expected = [("sim", "balanced.13.accuracy", "18_mitigation")]
    truths = {"sim": {"balanced.13.accuracy": ("18_mitigation", 0.0, 0.0)}}
    judged = pd.DataFrame([{"model": "judge:openai:sim@x;logprob", "measure_id": "balanced.13.accuracy"}])
    assert missing_rows(judged, expected, truths, COLUMNS).empty
    assert len(missing_rows(judged.assign(measure_id="other"), expected, truths, COLUMNS)) == 1
