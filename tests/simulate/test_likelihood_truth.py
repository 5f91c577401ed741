"""The truths of 03, 04, 07 and 13's log-probability verdicts, each computed two ways: the closed form
or quadrature of `self_preference.likelihood_truth` against a Monte Carlo of the planted model (for 04, of the
simulator's own probe replies); and the truth file's new sections."""
import math

import numpy as np
import pytest

from lib.simulate.self_preference import likelihood_truth as LT
from lib.simulate.core import planted as M
from lib.simulate.self_preference.knowledge import knowledge_reply
from lib.simulate.core.likelihood_params import Knowledge, Perplexity
from lib.simulate.core.truth_file import RewardBench, Truth, TruthError, load_truth

RNG = np.random.default_rng(7)


def test_perplexity_difference_closed_form_matches_monte_carlo():
    truth = Truth(perplexity=Perplexity(own_logprob=-1.8, other_logprob=-2.6, text_sd=0.4))
    e = RNG.normal(0, 0.4, size=(2, 400_000))
    mc = np.exp(2.6 - e[0]).mean() - np.exp(1.8 - e[1]).mean()  # exp(-(logprob + e)), human minus own
    assert LT.ppl_human_minus_model(truth) == pytest.approx(mc, rel=0.01)
    assert LT.ppl_human_minus_model(Truth(perplexity=Perplexity(-2.0, -2.0, 0.3))) == 0.0  # no planted effect


def test_knowledge_truth_matches_the_simulators_own_replies():
    truth = Truth(seed=3, knowledge=Knowledge(accuracy={"nq": 0.55}, question_sd=1.2))
    n_items, n = 4000, 5
    correct = np.zeros((n_items, n), bool)
    for i in range(n_items):
        item = {"id": f"nq-mc-{i}", "source": "nq", "answer": "Montevideo", "false_answer_ours": "Lima"}
        for s in range(n):
            correct[i, s] = knowledge_reply(truth, item, ("probe", i, s)) == "Montevideo"
    want = LT.knowledge_truths(truth, "nq", n)
    k = correct.sum(1)
    # Monte Carlo sd about 0.008 on each share: 4 sd bands
    assert correct.mean() == pytest.approx(want["accuracy"], abs=0.02)
    assert (k == 0).mean() == pytest.approx(want["none"], abs=0.03)
    assert (k == n).mean() == pytest.approx(want["full"], abs=0.03)
    assert want["none"] + want["partial"] + want["full"] == pytest.approx(1.0)


@pytest.mark.parametrize("position", [0.7, -0.7])  # a second position favoured: the truth stays a probability
def test_logprob_judge_truth_matches_monte_carlo(position):
    truth = Truth(icc=0.3, format_failure=0.1,
                  rewardbench=RewardBench(accuracy={"helpful": 0.8, "abstain": 0.6}, position=position))
    u = RNG.normal(0, truth.question_sd, 400_000)
    acc, cons = {}, {}
    for cat in ("helpful", "abstain"):
        first = M.judge_logit(truth, cat, True, u) > 0   # the likelier verdict names the chosen one
        second = M.judge_logit(truth, cat, False, u) > 0
        acc[cat] = 0.9 * (first.mean() + second.mean()) / 2
        cons[cat] = (first == second).mean()
    from lib.rewardbench.categories import PUBLISHED_COUNTS

    w = {c: PUBLISHED_COUNTS.get(c, 1) for c in acc}
    got = LT.logprob_judge_truths(truth, ("helpful", "abstain"))
    assert got["accuracy"] == pytest.approx(sum(w[c] * acc[c] for c in acc) / sum(w.values()), abs=0.004)
    assert got["consistency"] == pytest.approx(np.mean(list(cons.values())), abs=0.004)


def test_truth_file_sections_are_read_and_checked(tmp_path):
    f = tmp_path / "t.yaml"
    f.write_text("perplexity: {own_logprob: -1.5}\nknowledge: {accuracy: {nq: 0.4}}\n")
    truth = load_truth(f)
    assert truth.perplexity.own_logprob == -1.5 and truth.knowledge.accuracy == {"nq": 0.4}
    for bad, says in (("knowledge: {acuracy: {nq: 0.4}}", "acuracy"), ("knowledge: {accuracy: {nq: 1.2}}", "nq"),
                      ("perplexity: {own_logprob: 0.5}", "own_logprob")):
        f.write_text(bad + "\n")
        with pytest.raises(TruthError, match=says):
            load_truth(f)


def test_shipped_files_plant_a_perplexity_effect_and_the_null_file_none():
    assert LT.ppl_human_minus_model(load_truth("configs/known_truth.yaml")) > 1
    assert LT.ppl_human_minus_model(load_truth("configs/known_truth_null.yaml")) == 0
    assert not math.isnan(LT.stratified_factual(load_truth("configs/known_truth.yaml"), ("TF", "FT")))
