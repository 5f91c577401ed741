"""`lib.simulate.power_family`: Holm family sizes counted from the measure registry at a runner
config's design (the findings' and compare's rule), not assumed."""
import pandas as pd
import pytest
import yaml

from lib.report import findings
from lib.report import measures as R
from lib.simulate import power as P
from lib.simulate import power_family as F

ORIGINAL = R.all_measures


def test_the_validate_runs_family_is_the_one_its_findings_hold():
    """configs/known_truth_run.yaml (one evaluator): 03's 3 datasets, 05's 3 datasets x 2 settings x
    2 factualities, 06's 4 tested rates, 08's 2 styles x 3 datasets."""
    d = F.design_of("configs/known_truth_run.yaml")
    assert F.family_size("self-preference", d, measure_id="self_preference_rate.paper_parsed_reply") == 3 + 12 + 4 + 6


def test_the_count_agrees_with_findings_holm_rule_on_rows_built_from_the_registry():
    """Rows for every expanded declaration and model, passed through findings.adjust: the family it
    forms has the size family_size counts."""
    d = F.design_of("configs/paper.yaml")
    rows = []
    for m in R.all_measures():
        if m.study != "self-preference" or m.null is None:
            continue
        try:
            ids = F.expand(m.pattern, {**d.fields, "method": ("likelihood_sum",)})
        except F.FamilyError:
            continue
        for mid in ids:
            for k in range(d.n_models(m.notebook)):
                rows.append(findings.finding("self-preference", m.notebook, mid, f"model{k}", 100, 0.5, 0.4, 0.6,
                                             p=0.01, measure_id=mid, primary=m.primary))
    frame = findings.adjust(pd.DataFrame(rows))
    assert (frame["family"] == "self-preference").sum() == F.family_size("self-preference", d) - 1 == 125


def test_models_and_fields_come_from_the_config(tmp_path):
    cfg = {"per_notebook": {"01_dataset": {"datasets": ["nq"]}, "02_passage_bank": {"authors": ["a", "b"], "styles": ["qa"]},
                            "05_pointwise_reranking": {"evaluators": ["a", "b"], "settings": ["rag"]},
                            "06_generation_phase": {"evaluators": ["a", "b"]}, "08_writing_style": {"evaluators": ["a", "b"]},
                            "13_rewardbench": {"reward_models": ["judge:x", "judge:y", "judge:z", "judge:x;logprob",
                                                                 "rm:some/rm"]}}}
    path = tmp_path / "cfg.yaml"
    path.write_text(yaml.safe_dump(cfg))
    d = F.design_of(path)
    # 03: 1 dataset x 2 authors; 05: 1 x 1 x 2 facts x 2; 06: 4 x 2; 08: 1 style x 1 dataset x 2
    assert F.family_size("self-preference", d, measure_id="self_preference_rate.paper_parsed_reply") == 2 + 4 + 8 + 2
    # compare pairs three generative judges: 3 pairs on the one paired primary measure
    assert F.family_size("rewardbench", d, paired=True, measure_id="judge_overall_accuracy.generate_and_parse") == 3


def test_a_new_declaration_enters_the_family_and_an_unknown_field_stops(monkeypatch):
    d = F.design_of("configs/paper.yaml")
    before = F.family_size("utility", d)
    extra = R.Measure("selection_gap.{source}", "x", "utility", "11_utility_factors", "question", 0.0)
    monkeypatch.setattr(R, "all_measures", lambda: (*ORIGINAL(), extra))
    assert F.family_size("utility", d) == before + 3 * 5  # per utility source of the paper's design and 11's model
    odd = R.Measure("selection_gap.{position}", "x", "utility", "11_utility_factors", "question", 0.0)
    monkeypatch.setattr(R, "all_measures", lambda: (*ORIGINAL(), odd))
    with pytest.raises(F.FamilyError, match="position"):
        F.family_size("utility", d)
    assert F.family_size("utility", F.design_of("configs/paper.yaml", {"position": ("1", "10")})) == before + 2 * 5


def test_an_undeclared_headline_row_counts_itself():
    d = F.design_of("configs/paper.yaml")
    one_judge = F.FamilyDesign(d.fields, {**d.models, "13_rewardbench": 1})  # the row itself compares two
    assert F.family_size("rewardbench", one_judge, paired=True, measure_id="judge_overall_accuracy.generate_and_parse") == 1
    declared = F.family_size("rewardbench", d, paired=True, measure_id="judge_overall_accuracy.generate_and_parse")
    assert F.family_size("rewardbench", d, paired=True) == declared + 1


def test_the_cli_reports_a_missing_field_and_a_bad_design(monkeypatch, capsys):
    odd = R.Measure("selection_gap.{position}", "x", "utility", "11_utility_factors", "question", 0.0)
    monkeypatch.setattr(R, "all_measures", lambda: (*ORIGINAL(), odd))
    with pytest.raises(SystemExit) as e:
        P.main(["--reps", "1", "--effect", "utility"])
    assert e.value.code == 2 and "--design position=" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        P.main(["--reps", "1", "--design", "position"])
    assert e.value.code == 2 and "FIELD=A,B" in capsys.readouterr().err


def test_a_secondary_reading_is_counted_in_its_own_family_not_the_primary_one():
    """A likelihood reading of 05 and 06 enters 'self-preference, secondary readings' (findings'
    rule): its family is the secondary declarations at the design (05's 3 datasets x 2 settings x 2
    factualities and 06's five rates, one method), not the primary family of 25 rows plus one."""
    d = F.design_of("configs/known_truth_run.yaml", extra={"method": ("likelihood_sum",)})
    secondary = F.family_size("self-preference", d, measure_id="self_preference_rate.likelihood_sum")
    assert secondary == 3 * 2 * 2 + 5
    assert F.family_size("self-preference", d, measure_id="self_preference_rate.paper_parsed_reply") == 25
