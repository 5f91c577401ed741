"""Contextual calibration of 13's judge has a truth: the simulator answers a content-free judge prompt
(two identical responses) from its planted position prior, over real HTTP through 18's own
content-free code, and dividing that prior out leaves balanced calibration's verdicts."""
import math

import numpy as np
import pytest

from lib.mitigation import arms, content_free
from lib.models import LikelihoodUnavailable
from lib.simulate.core.truth import Design
from lib.simulate.core.truth_file import RewardBench, Truth, load_truth
from lib.simulate.mitigation import truth as MT
from lib.simulate.server import SimServer

POSITION = -0.4


def test_a_content_free_judge_prompt_is_answered_from_the_planted_position_prior(tmp_runs):
    truth = Truth(format_failure=0.0, rewardbench=RewardBench(position=POSITION))
    with SimServer(truth, tmp_runs) as sim:
        spec = f"judge:openai:sim@{sim.url};logprob"
        records = content_free.ask_content_free([], [spec], ())
    assert [r["kind"] for r in records] == ["judge"] and records[0]["spec"] == spec
    expected = 1 / (1 + math.exp(-POSITION))  # P(Choose 1) of two identical responses: position alone
    assert records[0]["prior"] == pytest.approx([expected, 1 - expected], abs=1e-6)


def test_a_prior_leaves_out_an_input_whose_option_fell_outside_the_top_k():
    lps = [[math.log(0.4), math.log(0.6)], [math.nan, math.log(0.9)], [math.log(0.4), math.log(0.6)]]
    assert content_free.prior_from_logprobs(lps) == pytest.approx([0.4, 0.6])
    assert all(math.isnan(x) for x in content_free.prior_from_logprobs([[math.nan, 0.0]]))


class _TopKOnly:
    """A chat model whose server gives no option likelihoods, only one generated token's top-k (a
    stand-in for the fallback's logic; the real server is exercised above)."""

    is_chat = True

    def option_logprobs(self, items, desc=None):
        raise LikelihoodUnavailable("no echo here")

    def can(self, method):
        return method == "option_topk"

    def option_topk(self, items, desc=None):
        from types import SimpleNamespace
        return [SimpleNamespace(logprobs=[math.log(0.3), math.log(0.7)]) for _ in items]


def test_the_judge_prior_falls_back_to_the_top_k_as_13_s_verdicts_do_and_05_s_does_not():
    model = _TopKOnly()
    got = content_free.prior(model, [("ctx", "", ["Choose 1", "Choose 2"])] * 3, "judge", topk=True)
    assert got["prior"] == pytest.approx([0.3, 0.7])
    with pytest.raises(LikelihoodUnavailable):  # 05's ratings were read by likelihood: no top-k prior for them
        content_free.prior(model, [("ctx", "###", list("12345"))], "05")


def test_contextual_calibration_truths_are_balanced_calibrations_and_the_planted_prior_gives_them():
    t = load_truth("configs/known_truth.yaml")
    got = MT.mitigation_truths(t, Design())
    for q in ("accuracy", "position", "flipped"):
        assert got[f"contextual.13.{q}"][1] == pytest.approx(got[f"balanced.13.{q}"][1])
    # the arm with the simulator's prior reproduces balanced calibration verdict for verdict
    rng = np.random.default_rng(0)
    n = 400
    logit = 1.0 + rng.normal(0, 1, n)  # position-free log-odds of naming the chosen response
    sig = lambda x: 1 / (1 + np.exp(-x))  # noqa: E731
    p_cr, p_rc = sig(logit + POSITION), sig(logit - POSITION)  # chosen shown first, then second
    records = {"rm": "j", "kind": "judge", "spec": "judge:m;logprob", "question": [f"q{i}" for i in range(n)],
               "id": [f"q{i}:a" for i in range(n)],
               "logprobs_cr": [[math.log(a), math.log(1 - a)] for a in p_cr],
               "logprobs_rc": [[math.log(1 - b), math.log(b)] for b in p_rc]}
    import pandas as pd

    frame = pd.DataFrame(records)
    prior = [float(sig(POSITION)), float(1 - sig(POSITION))]
    ctx = arms.contextual_judge(frame, {"judge:m;logprob": prior}).set_index("quantity")
    bal = arms.balanced_judge(frame).set_index("quantity")
    assert ctx.loc["accuracy", "after"] == pytest.approx(bal.loc["accuracy", "after"])
    assert ctx.loc["position", "after"] == pytest.approx(0.5)
