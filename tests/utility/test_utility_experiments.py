"""The experiment functions of notebooks 10-12 with a scripted reader under the real model layer
(bookkeeping only)."""
import re

import pytest

from lib.utility.benchmark import Candidates
from lib.utility.calls import Ledger
from lib.utility.experiments import Condition, answer_summary, answering, cost_table, questions_per_method, sweep


def reply(text, request):
    """Judgments point at the passage containing 'GOLD'; answers echo 'Mars'; rankings fail."""
    user = request.messages[-1]["content"]
    gold = re.findall(r"Passage-(\d+): [^\n]*GOLD", user)
    if "My rank" in user:
        return "no idea"
    if "My selection" in user:
        return "My selection: [" + ", ".join(f"Passage-{g}" for g in gold) + "]"
    if "My judgment" in request.messages[0]["content"]:
        return "My judgment: " + ("yes" if "GOLD" in user else "no")
    return "Mars"


@pytest.fixture
def models(scripted_model):
    """get_model for the experiment functions: each spec a scripted CachedModel, built once."""
    built = {}

    def get(spec):
        if spec not in built:
            built[spec] = scripted_model(reply, spec=spec)
        return built[spec]
    get.built = built
    return get


ROWS = [Candidates(id=f"q{i}", question="q?", passage=["a GOLD", "b", "c"], ground_truth_label=[1, 0, 0],
                   source=src, answer="Mars", ground_truth_passages=["a GOLD"])
        for i, src in enumerate(["nq", "hotpotqa", "marco"])]


def test_sweep_one_row_per_question_and_condition(models):
    ledger = Ledger()
    conds = [Condition("position", p, f, options={"gt_position": p}) for p in (1, 3)
             for f in ("listwise-set", "listwise-rank")]
    df = sweep(["openai:scripted"], ROWS, conds, ledger=ledger, get_model=models)
    assert len(df) == len(ROWS) * len(conds)
    sets, ranks = df[df.form == "listwise-set"], df[df.form == "listwise-rank"]
    assert (sets["headline"] == 1.0).all() and not sets["failed"].any()
    assert ranks["failed"].all() and ranks["headline"].isna().all()   # no credit for the first position
    n = questions_per_method(df)
    assert n[("scripted", "utility listwise-rank | position=1")] == 3
    assert ledger.rows[("scripted", "utility listwise-rank | position=1")]["requests"] == 3
    # what reached the model: every distinct prompt of a (question, condition) once, as chat requests to
    # the given spec (the three rows share their question and passages, so some prompts are the same)
    sent = models.built["openai:scripted"].backend.requests
    distinct = {repr(r.messages) for r in sent}
    assert len(sent) == len(distinct) and len(conds) <= len(sent) <= len(ROWS) * len(conds)
    assert all(r.messages for r in sent)


def test_answering_table_costs_keyed_by_model_and_method(models):
    ledger = Ledger()
    answers, parts = answering(["openai:scripted"], ROWS, ["listwise-set"], ["listwise-set", "listwise-rank"],
                               [2], seed=0, ledger=ledger, get_model=models)
    conds = set(answers["condition"])
    assert {"none", "dense", "ground-truth", "relevance listwise-set", "utility listwise-rank", "2-sampling"} <= conds
    failed = answers[answers.condition == "utility listwise-rank"]
    assert failed["judgment failed"].all() and (failed["n_evidence"] == 0).all()
    cost = cost_table(ledger, parts, len(ROWS))
    row = cost[(cost.model == "scripted") & (cost.condition == "utility listwise-rank")].iloc[0]
    # its own ranking run, the listwise-set run that sets its size, and its answers: 3 requests each
    assert row["requests / question"] == 3.0
    summary = answer_summary(answers, ["source", "condition"], n_boot=50)
    nq = summary[(summary.source == "nq") & (summary.condition == "none")].iloc[0]
    assert nq["EM"] == 100.0
    assert "BLEU-4" in summary and summary[summary.source == "marco"]["BLEU-1"].notna().all()


def test_sweep_without_conditions_is_an_empty_table(models):
    df = sweep(["openai:scripted"], ROWS, [], get_model=models)
    assert df.empty and {"headline", "failed", "form"} <= set(df.columns)
