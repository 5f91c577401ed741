"""The simulated model over real HTTP, through the project's own OpenAI-compatible backend: replies
in the papers' formats that the studies' parsers read, log-probabilities consistent with the
choice, self-recognition of what it generated, seeded replies, and the planted failure rate."""
import math

import numpy as np
import pytest

from lib.models import get_model
from lib.models.types import Request
from lib.prompts import self_preference as SP
from lib.rewardbench.judge import judge_messages, parse_choice
from lib.self_preference import bank as B
from lib.self_preference.pairwise import authors_which
from lib.self_preference.pointwise import expected_score, parse_score
from lib.simulate.core import planted as M
from lib.simulate.server import SimServer
from lib.simulate.core.truth_file import Pointwise, Truth
from lib.sources import items_for_run


@pytest.fixture
def run_dir(tmp_runs):
    d = tmp_runs / "sim"
    d.mkdir(parents=True)
    return d


def _bank(sim, run_dir, n=3):
    """Notebook 02's own code builds a bank of n NQ items with the simulated author."""
    items = items_for_run("", ["nq"], n, 0)
    model = get_model(f"openai:sim@{sim.url}")
    bank = B.build_bank(items, {"sim": model}, B.BankConfig(k=0, styles=()))
    B.save_bank(bank.passages, run_dir / "passage_bank.jsonl")
    return bank.passages, model


def _ask(model, prompt, sample=0, logprobs=5):
    return model.generate([Request(messages=[{"role": "user", "content": prompt}], max_tokens=16,
                                   temperature=0.0, sample=sample, logprobs=logprobs)])[0]


def test_ratings_parse_and_self_recognition_moves_the_expected_score(run_dir):
    truth = Truth(format_failure=0.0,
                  pointwise=Pointwise(base=2.0, own_shift=1.5, true_shift=0.0, question_sd=0.0, passage_sd=0.0))
    with SimServer(truth, run_dir) as sim:
        passages, model = _bank(sim, run_dir)
        assert (passages["author"] == "sim").any() and sim.stats()["own_texts"] == 3  # every rewrite verified
        true = passages[passages["factuality"] == "true"]
        for row in true.to_dict("records"):
            out = _ask(model, SP.pointwise_baseline_prompt(row["text"]))
            assert parse_score(out.text, strict=True).value in (1, 2, 3, 4, 5)
            exp, mass = expected_score(out.top_logprobs)
            mu = M.rating_mu(truth, row["author"] == "sim", True)
            assert mass == pytest.approx(1.0) and exp == pytest.approx((M.SCORES * M.rating_probs(mu, 0.7)).sum())
    own = true[true["author"] == "sim"]
    assert len(own) and (own["text"] != true[true["author"] == "human"]["text"].iloc[0]).all()


def test_inverted_self_recognition_swaps_own_and_human(run_dir):
    truth = Truth(self_recognition="inverted", format_failure=0.0,
                  pointwise=Pointwise(base=2.0, own_shift=1.5, true_shift=0.0, question_sd=0.0, passage_sd=0.0))
    with SimServer(truth, run_dir) as sim:
        passages, model = _bank(sim, run_dir, n=1)
        by_author = {r["author"]: r["text"] for r in passages[passages["factuality"] == "true"].to_dict("records")}
        human = expected_score(_ask(model, SP.pointwise_baseline_prompt(by_author["human"])).top_logprobs)[0]
        own = expected_score(_ask(model, SP.pointwise_baseline_prompt(by_author["sim"])).top_logprobs)[0]
    assert human > own + 1  # the defect: the human passage gets the own-passage bonus


def test_pairs_name_the_chosen_passage_and_replies_are_seeded(run_dir):
    with SimServer(Truth(format_failure=0.0), run_dir) as sim:
        passages, model = _bank(sim, run_dir, n=2)
        rows = passages.set_index(["item_id", "author", "factuality"])["text"]
        item = passages["item_id"].iloc[0]
        q, ans = passages["question"].iloc[0], passages["answer"].iloc[0]
        fa = passages.loc[passages["factuality"] == "false", "false_answer"].iloc[0]
        prompt = SP.generation_phase_prompt(q, rows[(item, "sim", "true")], rows[(item, "human", "false")])
        out = _ask(model, prompt)
        choice, method = authors_which(out.text, ans, fa, "answer")
        assert choice in (1, 2) and method == "answer"
        top = out.top_logprobs[-1]
        assert math.exp(top[" 1"]) + math.exp(top[" 2"]) == pytest.approx(1.0)
        again = SimServer(Truth(format_failure=0.0), run_dir)  # a new server, same truth and seed
        assert again.answer({"messages": [{"role": "user", "content": prompt}], "seed": 0, "temperature": 0.0}) \
            == sim.answer({"messages": [{"role": "user", "content": prompt}], "seed": 0, "temperature": 0.0})


def test_judge_verdicts_and_the_planted_failure_rate(run_dir):
    truth = Truth(format_failure=0.2)
    with SimServer(truth, run_dir) as sim:
        model = get_model(f"openai:sim@{sim.url}")
        prompts = [judge_messages(f"question {i}", "first answer", "second answer") for i in range(300)]
        outs = model.generate([Request(messages=m, max_tokens=16) for m in prompts])
    parsed = np.array([parse_choice(o.text) is not None for o in outs])
    assert {parse_choice(o.text) for o in outs} == {1, 2, None}
    assert abs(parsed.mean() - 0.8) < 0.07  # 300 replies: sd 0.023
