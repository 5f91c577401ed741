"""The measure and notebook registries: generic layers hold no notebook name or measure id, runs are
ordered and refused by declared inputs, capabilities are checked before work."""
import re
from pathlib import Path

import pytest

from lib import pipeline, runner
from lib.models.backends import OPENAI
from lib.paths import ROOT
from lib.report import findings, measures

DEMO = ROOT / "configs" / "demo.yaml"
GENERIC = [*sorted((ROOT / "lib" / "compare").glob("*.py")), *sorted((ROOT / "lib" / "profile").glob("*.py")),
           ROOT / "lib" / "runner.py"]
STEM = re.compile(r"\b\d\d_[a-z]\w*")


def named_strings(files) -> list[str]:
    """'<file>:<line>: <what>' for every notebook stem or declared measure id family in the files."""
    kinds = {m.kind for m in measures.all_measures()}
    kind_re = re.compile(r"\b(" + "|".join(sorted(map(re.escape, kinds))) + r")\b")
    hits = []
    for f in files:
        for n, line in enumerate(Path(f).read_text().splitlines(), 1):
            for found in STEM.findall(line) + kind_re.findall(line):
                hits.append(f"{Path(f).name}:{n}: {found}")
    return hits


def test_generic_layers_name_no_notebook_and_no_measure_id():
    assert named_strings(GENERIC) == []


def test_the_grep_finds_a_planted_stem_and_measure_id(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text('X = {"05_pointwise_reranking": "human_minus_self.*"}\nY = "judge_overall_accuracy"\n')
    assert len(named_strings([planted])) == 3


def test_every_card_row_and_paired_measure_is_declared():
    for row in measures.card_rows():
        for mid in row.measure_ids:
            assert measures.find(mid).notebook == row.notebook
    assert {m.notebook for m in measures.paired()} == {"05_pointwise_reranking", "13_rewardbench"}
    assert "08_writing_style" in measures.finding_notebooks()  # the runner's old list lacked it


def test_an_undeclared_measure_id_is_refused():
    with pytest.raises(KeyError, match="no_such_measure.x"):
        findings.declared_finding("utility", "10_relevance_vs_utility", "x", "m", 3, 0.5, measure_id="no_such_measure.x")
    with pytest.raises(ValueError, match="declared for utility"):
        findings.declared_finding("rewardbench", "13_rewardbench", "x", "m", 3, 0.5, measure_id="set_f1.nq.utility")
    row = findings.declared_finding("utility", "10_relevance_vs_utility", "x", "m", 3, 0.5, measure_id="set_f1.nq.utility")
    assert row["unit"] == "question" and row["measure_id"] == "set_f1.nq.utility"


def test_family_patterns_match_their_ids_only():
    m = measures.find("human_minus_self.nq.rag.self_true.paper_parsed_reply")
    assert m.primary and m.method == "generate-and-parse"
    lik = measures.find("human_minus_self.nq.rag.self_true.next_token_expected_score_after")
    assert not lik.primary and lik.method == "likelihood"
    assert measures.find_or_none("human_minus_self.nq.rag") is None  # too few parts


def test_run_order_follows_declared_inputs(monkeypatch):
    steps = (pipeline.Step("01_reader", reads=(pipeline.Input("x.jsonl", "02_writer"),)), pipeline.Step("02_writer"))
    monkeypatch.setattr(pipeline, "STEPS", steps)
    assert pipeline.order(["01_reader", "02_writer"]) == ["02_writer", "01_reader"]


def test_only_03_on_a_fresh_run_stops_with_one_line(tmp_runs, capsys):
    code = runner.main(["run", str(DEMO), "--only", "03", "--run", "fresh"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert "02_passage_bank" in err[0] and "bank_path" in err[0]
    assert not (tmp_runs / "fresh").exists()  # before any work


def test_only_03_runs_its_checks_when_a_bank_is_given(tmp_path, tmp_runs):
    bank = tmp_path / "bank.jsonl"
    bank.write_text("")
    cfg = runner.load_config(DEMO, {"bank_path": str(bank)})
    eff = runner.effective_parameters(cfg, runner.select_notebooks(cfg, ["03"]))
    runner.check_inputs(eff, "fresh")  # no error: the parameter gives the input


def test_a_later_notebook_that_needs_a_failed_output_is_skipped(tmp_path):
    done = [{"notebook": "02_passage_bank.ipynb", "status": "failed"}, {"notebook": "05_pointwise_reranking.ipynb"}]
    assert "passage_bank.jsonl from 02_passage_bank" in runner._blocked_by("05_pointwise_reranking", done, {}, tmp_path)
    assert runner._blocked_by("16_paper_check", done, {}, tmp_path) == ""
    assert runner._blocked_by("05_pointwise_reranking", done, {"bank_path": "b.jsonl"}, tmp_path) == ""


def test_parts_a_server_cannot_serve_are_named_before_work():
    server = "openai:smollm2@http://127.0.0.1:9/v1"
    known = {server: OPENAI - {"loglikelihood", "echo_probe"}}  # what a failed echo probe leaves
    params = {"reward_models": [f"judge:{server};retries:0", f"judge:{server};logprob", f"implicit:{server}"]}
    parts = pipeline.left_out("13_rewardbench", params, known)
    assert [p["part"] for p in parts] == ["implicit reward models (likelihoods)"]  # top-k serves the log-prob judge
    assert [p["part"] for p in pipeline.left_out("15_best_of_n", params, known)] == ["implicit reward models (likelihoods)"]
    assert pipeline.left_out("00_quickstart", {"chat_model": server}, known)[0]["part"] == "the likelihood example"
    known[server] = OPENAI  # even after a passed echo probe, chat-message likelihoods need a chat template
    assert pipeline.left_out("00_quickstart", {"chat_model": server}, known) == []  # raw text: the probe decides
    assert [p["part"] for p in pipeline.left_out("13_rewardbench", params, known)] == ["implicit reward models (likelihoods)"]
    local = {"reward_models": ["judge:local:smollm2;logprob", "implicit:local:smollm2"], "evaluators": ["local:smollm2"]}
    assert pipeline.left_out("13_rewardbench", local) == [] and pipeline.left_out("05_pointwise_reranking", local) == []
    assert pipeline.left_out("05_pointwise_reranking", {"evaluators": [server]}, known)[0]["part"] == "likelihood ratings"


ID_PART = re.compile(r"^([a-z0-9_]+|\{\w+\})+$")  # one slug style: lower case, digits, '_'; '.' between parts


def test_every_measure_id_is_in_one_slug_style():
    """Every declared pattern and card id: parts of [a-z0-9_] joined by '.', so 'generate_and_parse'
    and 'listwise_set' never appear beside 'generate-and-parse' or 'listwise-set'; the check
    fails on a planted hyphen."""
    from lib.report import measures as R

    ids = [m.pattern for m in R.all_measures()] + [i for row in R.card_rows() for i in row.measure_ids]
    bad = [i for i in ids if not all(ID_PART.match(part) for part in i.split("."))]
    assert bad == []
    assert not all(ID_PART.match(p) for p in "unreadable_share.utility.listwise-set".split("."))
