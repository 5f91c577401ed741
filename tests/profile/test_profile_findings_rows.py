"""The findings rows the profile added to notebooks 08 (style preference) and 13 (judge position
consistency): what they count and which unit they name."""
import math

import pandas as pd

from lib.rewardbench.findings_rows import consistency_finding
from lib.self_preference.findings_rows import style_findings
from lib.stats import wilson_ci


def test_style_findings_keep_the_papers_setting_own_passages_only():
    table = pd.DataFrame([
        {"kind": "gen_by_qa", "dataset": "nq", "evaluator": "smollm2", "a_author": "smollm2", "is_self": True,
         "style_n": 8, "style_n_items": 4, "style_rate": 0.75, "style_ci_low": 0.5, "style_ci_high": 1.0, "style_p": 0.3},
        {"kind": "gen_by_qa", "dataset": "nq", "evaluator": "smollm2", "a_author": "gpt", "is_self": False,
         "style_n": 8, "style_n_items": 4, "style_rate": 0.25, "style_ci_low": 0.0, "style_ci_high": 0.5, "style_p": 0.3},
        {"kind": "long", "dataset": "nq", "evaluator": "smollm2", "a_author": "smollm2", "is_self": True,
         "style_n": 0, "style_n_items": 0, "style_rate": float("nan"), "style_ci_low": float("nan"),
         "style_ci_high": float("nan"), "style_p": float("nan")},
    ])
    rows = style_findings(table, {"smollm2": "local:smollm2"})
    assert [r["measure_id"] for r in rows] == ["style_preference.gen_by_qa.nq", "style_preference.long.nq"]
    qa, long = rows
    assert (qa["model"], qa["n"], qa["n_judgments"], qa["estimate"], qa["unit"]) == ("local:smollm2", 4, 8, 0.75, "question")
    assert long["n"] == 0 and math.isnan(long["estimate"])
    assert style_findings(pd.DataFrame(), {}) == []


def test_position_consistency_counts_pairs_with_both_orders_decided():
    res = pd.DataFrame({"consistent": [1.0, 0.0, float("nan"), 1.0, 1.0]})
    row = consistency_finding(res, "local:smollm2", "log-probability verdict")
    assert (row["n"], row["n_judgments"], row["unit"]) == (4, 8, "pair")
    # 4 pairs: below 10 units the row shows no interval and says why
    assert row["estimate"] == 0.75 and math.isnan(row["ci_low"]) and row["no_interval"].startswith("too few units")
    many = consistency_finding(pd.DataFrame({"consistent": [1.0, 0.0, 1.0, 1.0] * 3}), "local:smollm2", "x")
    assert (many["ci_low"], many["ci_high"]) == wilson_ci(9, 12)
    assert math.isnan(row["p"]) and row["measure_id"] == "judge_position_consistency.log_probability_verdict"
    none = consistency_finding(res.iloc[[2]], "local:smollm2", "generate-and-parse")
    assert none["n"] == 0 and math.isnan(none["estimate"])
    # 30 pairs built from 24 questions (the demo's 13): n counts questions, the unit 13's accuracy names
    ids = [f"q{i}:s{j}" for i in range(24) for j in range(2 if i < 6 else 1)]
    shared = consistency_finding(pd.DataFrame({"id": ids, "consistent": [float(i % 3 > 0) for i in range(30)]}),
                                 "local:smollm2", "x")
    assert (shared["n"], shared["unit"], shared["n_judgments"]) == (24, "question", 60)
    assert shared["estimate"] == 20 / 30 and shared["ci_low"] < shared["estimate"] < shared["ci_high"]


def test_card_says_why_a_row_has_no_interval():
    from lib.profile import card
    from lib.profile.battery import BATTERY
    from lib.report.findings import finding

    m = BATTERY[0]
    rows = pd.DataFrame([finding("self-preference", m.notebook, "x", "local:smollm2", 6, 0.5, 0.5, 0.5, p=1.0,
                                 unit="question", measure_id=m.measure_ids[0])])
    profile = card.card(rows, "local:smollm2")
    measured = profile[(profile["row_type"] == "measured") & (profile["key"] == m.key)].iloc[0]
    assert "no 95% CI: too few units" in measured["sentence"] and "[" not in measured["sentence"].split("CI")[0]
    shown = card.display_table(profile).iloc[0]
    assert "no CI: too few units" in shown["estimate [95% CI]"]
    # the table's reason reads as one clause, no parenthesis inside its own (the card had
    # "(no CI: all units equal: no interval (nothing varies between units))")
    equal = profile.assign(no_interval=profile["no_interval"].where(
        profile["key"] != m.key, "all units equal: no interval (nothing varies between units)"))
    cell = card.display_table(equal).iloc[0]["estimate [95% CI]"]
    assert cell.count("(") == 1 and cell.endswith("nothing varies between units)"), cell
