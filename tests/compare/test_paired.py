"""Paired differences between two runs on the same questions, from the per-unit readers the studies
register with their measures (05's per-item ratings, 13's raw judge replies): matched by unit, the
difference of the two models' values, a units-resampled interval."""
import json

import numpy as np
import pandas as pd
import pytest

from lib import compare, stats
from lib.compare import paired
from lib.report.measures import notebook_parameters
from lib.rewardbench.measures import judge_units
from lib.self_preference.units import pointwise_units
from tests.compare.test_compare import _row, write_run

MID = "human_minus_self.nq.rag.self_true.paper_parsed_reply"


def _ratings(evaluator: str, own_minus: dict, items) -> list[dict]:
    """Human true passages rated 4; the evaluator's own true passage rated 4 - own_minus[item]."""
    rows = []
    for i in items:
        for author, score in (("human", 4), (evaluator, 4 - own_minus[i])):
            rows.append({"item_id": i, "dataset": "nq", "evaluator": evaluator, "author": author,
                         "factuality": "true", "setting": "rag", "score": score})
    return rows


def _run(root, name, model, evaluator, own_minus, items):
    folder = write_run(root, name, model, [_row("self-preference", "05_pointwise_reranking",
                                                "human-minus-self rating (nq, rag, self true, paper (parsed reply))",
                                                model, len(items), 0.0, -1, 1, mid=MID)])
    pd.DataFrame(_ratings(evaluator, own_minus, items)).to_json(folder / "pointwise_ratings.jsonl", orient="records",
                                                                lines=True)
    man = json.loads((folder / "manifest.json").read_text())
    man["notebooks"] = [{"notebook": "05_pointwise_reranking.ipynb", "parameters": {"evaluators": [model]}}]
    (folder / "manifest.json").write_text(json.dumps(man))
    return folder


def test_paired_difference_over_the_questions_both_ran(tmp_runs):
    rng = np.random.default_rng(0)
    items = [f"q{i}" for i in range(40)]
    a_gap = {i: float(rng.integers(0, 3)) for i in items}  # human minus own score per question, model A
    b_gap = {i: a_gap[i] - 1.0 for i in items}  # B rates its own passages one point higher than A does
    _run(tmp_runs, "a", "local:smollm2", "smollm2", a_gap, items)
    _run(tmp_runs, "b", "local:gemma3", "gemma3", b_gap, items[:30])  # B ran 30 of the 40 questions
    units = pointwise_units(tmp_runs / "a", notebook_parameters(tmp_runs / "a", "05_pointwise_reranking"))
    assert set(units["measure_id"]) == {MID} and len(units) == 40 and set(units["model"]) == {"local:smollm2"}
    out = compare.compare_tables(["a", "b"])["paired"]
    row = out[out["measure_id"] == MID].iloc[0]
    # (human - own_A) - (human - own_B) = a_gap - b_gap = +1 on each of the 30 shared questions
    assert row["estimate"] == pytest.approx(1.0) and row["n"] == 30 and row["unit"] == "question"
    assert (row["first"], row["second"]) == ("SmolLM2", "Gemma-3") and not row["smoke"]
    # every question differs by exactly +1: no spread, so no interval (never a zero-width one)
    assert np.isnan(row["ci_low"]) and row["ci_note"] == stats.ALL_SAME_DIFF and row["p"] < 0.05


def test_no_shared_questions_no_paired_row(tmp_runs):
    items = [f"q{i}" for i in range(5)]
    _run(tmp_runs, "a", "local:smollm2", "smollm2", {i: 1.0 for i in items}, items)
    _run(tmp_runs, "b", "local:gemma3", "gemma3", {f"x{i}": 1.0 for i in range(5)}, [f"x{i}" for i in range(5)])
    assert compare.compare_tables(["a", "b"])["paired"].empty


def test_judges_paired_by_pair_from_notebook_13_records(tmp_runs, scripted_model):
    """A judge that is always right against one that always names position 1 (right in one order of
    two): +0.5 on every shared pair, read back from each run's rewardbench_raw.jsonl."""
    from lib.rewardbench import replies, study
    from tests.rewardbench.test_rewardbench_models import _good_first, _pairs

    mid = "judge_overall_accuracy.generate_and_parse"
    right = scripted_model(lambda text, r: "Choose 1" if _good_first(text) else "Choose 2")
    first = scripted_model(lambda text, r: "Choose 1", spec="openai:first@http://127.0.0.1:9/v1")
    for name, spec, model, n in (("a", "judge:local:smollm2;retries:0", right, 32),
                                 ("b", "judge:openai:first@http://127.0.0.1:9/v1;retries:0", first, 30)):
        target = spec.split(":", 1)[1].split(";")[0]
        folder = write_run(tmp_runs, name, target, [_row("rewardbench", "13_rewardbench", "judge overall accuracy (x)",
                                                         target, n, 0.5, 0.4, 0.6, mid=mid, unit="pair")])
        study.pair_results([spec], _pairs(n), folder / replies.RAW_FILE, models={spec: {"model": model}})
    units = judge_units(tmp_runs / "a", {})
    assert len(units) == 32 and units["value"].eq(1.0).all() and set(units["model"]) == {"local:smollm2"}
    row = compare.compare_tables(["a", "b"])["paired"].iloc[0]
    assert row["measure_id"] == mid and row["n"] == 30 and row["unit"] == "pair"
    assert row["estimate"] == pytest.approx(0.5) and row["p"] < 0.05


def test_pooled_paired_rows_are_marked_and_left_out_of_holms_family(tmp_runs):
    """Two datasets give a per-dataset row each and an "all" row that repeats them: the "all" row is
    marked pooled and gets no Holm p; the family is the two per-dataset rows."""
    from lib.report import findings

    rng = np.random.default_rng(1)
    folders = {}
    for name, model, ev, shift in (("a", "local:smollm2", "smollm2", 0.0), ("b", "local:gemma3", "gemma3", 1.0)):
        rows, found = [], []
        for ds in ("nq", "marco"):
            for i in range(40):  # the same item ids in both datasets: different questions
                gap = float(rng.integers(0, 3)) + shift
                rows += [{"item_id": f"q{i}", "dataset": ds, "evaluator": ev, "author": "human", "factuality": "true",
                          "setting": "rag", "score": 4}, {"item_id": f"q{i}", "dataset": ds, "evaluator": ev,
                          "author": ev, "factuality": "true", "setting": "rag", "score": 4 - gap}]
        for ds in ("nq", "marco", "all"):
            found.append(findings.finding("self-preference", "05_pointwise_reranking", f"hms ({ds})", model, 40, 0.0,
                                          -1, 1, p=0.5, unit="item", pooled=ds == "all",
                                          measure_id=f"human_minus_self.{ds}.rag.self_true.paper_parsed_reply"))
        folder = write_run(tmp_runs, name, model, found)
        pd.DataFrame(rows).to_json(folder / "pointwise_ratings.jsonl", orient="records", lines=True)
        man = json.loads((folder / "manifest.json").read_text())
        man["notebooks"] = [{"notebook": "05_pointwise_reranking.ipynb", "parameters": {"evaluators": [model]}}]
        (folder / "manifest.json").write_text(json.dumps(man))
        folders[name] = folder
    out = compare.compare_tables(["a", "b"])["paired"].set_index("measure_id")
    pooled = out.loc["human_minus_self.all.rag.self_true.paper_parsed_reply"]
    assert bool(pooled["pooled"]) and np.isnan(pooled["p_adjusted"]) and pooled["family"] == ""
    assert pooled["n"] == 80  # dataset|item: 80 questions, not 40 merged ids
    per_ds = out.loc[["human_minus_self.nq.rag.self_true.paper_parsed_reply",
                      "human_minus_self.marco.rag.self_true.paper_parsed_reply"]]
    assert not per_ds["pooled"].any() and (per_ds["family"] == "self-preference").all()
    assert per_ds["p_adjusted"].tolist() == pytest.approx(list(stats.holm(per_ds["p"].to_numpy(float))))


def test_pairs_built_from_one_question_are_one_unit_of_the_paired_difference():
    """13's demo pairs: three pairs from one question are one cluster, so n counts questions and the
    interval is wider than if the 36 pairs were independent (the unit resampled is the question)."""
    from lib.report import measures

    accuracy = measures.find("judge_overall_accuracy.generate_and_parse")
    rng = np.random.default_rng(0)
    rows = [dict(measure_id="x", model="m", unit_id=f"{q}-{j}", stratum="helpful", value=v, cluster=f"q{q}")
            for q, v in enumerate(rng.integers(0, 2, 12).astype(float)) for j in range(3)]
    a = pd.DataFrame(rows)
    clustered = paired.difference(a, a.assign(value=0.0), accuracy)
    unclustered = paired.difference(a.assign(cluster=None), a.assign(value=0.0, cluster=None), accuracy)
    assert clustered["n_items"] == 12 and clustered["n_judgments"] == 36 and unclustered["n_items"] == 36
    assert clustered["ci_high"] - clustered["ci_low"] > unclustered["ci_high"] - unclustered["ci_low"]
