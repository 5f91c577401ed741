"""The planted length term of 13's verdicts (lib/simulate/rewardbench/length.py) and the truths it
moves: 13's accuracy and consistency, 14's length preference and 18's balanced and length-control
truths, each against an independent Monte Carlo of the planted model; the served verdict leans toward
the longer response; and a planted zero leaves every truth as it was."""
from dataclasses import replace

import numpy as np
import pytest

from lib.simulate.core.truth import Design
from lib.simulate.core.truth_file import RewardBench, Truth, load_truth
from lib.simulate.mitigation import truth as MT
from lib.simulate.rewardbench import truth as RT
from lib.simulate.rewardbench.length import with_pairs
from lib.simulate.self_preference.likelihood_truth import logprob_judge_truths

PAIRS = (("helpful", 40), ("helpful", -10), ("abstain", 26), ("abstain", 30), ("conflict", 0), ("conflict", 60))
CATS = ("helpful", "abstain", "conflict")
LENGTH = 2.0


def _truth(length=LENGTH) -> Truth:
    return Truth(format_failure=0.0, rewardbench=RewardBench(
        accuracy={"helpful": 0.85, "abstain": 0.7, "conflict": 0.35}, position=-0.4, length=length))


def _draws(truth, n=200_000, seed=1):
    """Per pair of PAIRS: the log-odds of naming the chosen response in each order (chosen first,
    chosen second), drawn straight from the planted parameters with the pair effect u."""
    rng = np.random.default_rng(seed)
    rb = truth.rewardbench
    out = []
    for cat, d in PAIRS:
        u = rng.normal(0, truth.question_sd, n)
        base = np.log(rb.accuracy[cat] / (1 - rb.accuracy[cat])) + rb.length * d / 100 + u
        out.append((cat, d, base + rb.position, base - rb.position))
    return out


def test_length_control_truth_matches_a_monte_carlo_of_the_log_probability_verdicts():
    t = _truth()
    design = with_pairs(Design(rm_categories=CATS), PAIRS)
    before, after = [], []
    for cat, d, first, second in _draws(t):
        lean = t.rewardbench.length * d / 100
        before.append(((first > 0).mean() + (second > 0).mean()) / 2)
        after.append(((first - lean > 0).mean() + (second - lean > 0).mean()) / 2)
    mc = float(np.mean(after) - np.mean(before))
    assert MT.length_control_truth(t, design) == pytest.approx(mc, abs=0.004)
    assert mc < -0.02  # the planted length term raises accuracy here (chosen responses run longer)
    # a wrong sign of the length term in the truth is caught by the same Monte Carlo
    flipped = replace(t, rewardbench=replace(t.rewardbench, length=-LENGTH))
    assert abs(MT.length_control_truth(flipped, design) - mc) > 0.02


def test_generated_length_control_truth_matches_a_monte_carlo_of_the_drawn_verdicts():
    """13's generated verdicts are drawn with P(chosen) = sigmoid(log-odds); length control's truth is
    the mean probability with the length term removed minus with it, over pairs, orders and u."""
    t = _truth()
    design = with_pairs(Design(rm_categories=CATS), PAIRS)
    sig = lambda x: 1 / (1 + np.exp(-x))  # noqa: E731
    rng = np.random.default_rng(2)
    diffs = []
    for cat, d, first, second in _draws(t, n=100_000):
        lean = t.rewardbench.length * d / 100
        drawn = [(rng.random(first.size) < sig(x)).mean() for x in (first, second)]
        drawn_equal = [(rng.random(first.size) < sig(x - lean)).mean() for x in (first, second)]
        diffs.append(np.mean(drawn_equal) - np.mean(drawn))
    mc = float(np.mean(diffs))
    assert MT.generated_length_truth(t, design) == pytest.approx(mc, abs=0.004)
    assert mc < -0.02
    # the log-probability judge's truth (a deterministic verdict) is another number: it would not do here
    assert abs(MT.length_control_truth(t, design) - mc) > 0.01
    assert MT.generated_length_truth(_truth(length=0.0), design) == 0.0


def test_balanced_and_accuracy_truths_integrate_the_length_term():
    t = _truth()
    design = with_pairs(Design(rm_categories=CATS), PAIRS)
    draws = _draws(t)
    bal = MT.balanced_judge_truths(t, design)
    before = np.mean([((f > 0).mean() + (s > 0).mean()) / 2 for _, _, f, s in draws])
    after = np.mean([((f + s > 0).mean()) for _, _, f, s in draws])  # the orders' mean log-odds: position cancels
    assert bal["accuracy"][0] == pytest.approx(before, abs=0.004)
    assert bal["accuracy"][1] == pytest.approx(after, abs=0.004)
    # 13's log-probability accuracy, categories weighted as the paper counts them
    from lib.simulate.rewardbench.paper_counts import PAPER_COUNTS

    per_cat = {c: np.mean([((f > 0).mean() + (s > 0).mean()) / 2 for cat, _, f, s in draws if cat == c]) for c in CATS}
    weighted = sum(PAPER_COUNTS[c] * per_cat[c] for c in CATS) / sum(PAPER_COUNTS[c] for c in CATS)
    assert logprob_judge_truths(t, CATS, PAIRS)["accuracy"] == pytest.approx(weighted, abs=0.004)


def test_generated_verdict_truths_integrate_the_length_term():
    t = _truth()
    sig = lambda x: 1 / (1 + np.exp(-x))  # noqa: E731
    draws = _draws(t, n=100_000)
    # 14: the share of verdicts naming the longer response over pairs of unequal length
    longer = [(sig(f).mean() + sig(s).mean()) / 2 if d > 0 else 1 - (sig(f).mean() + sig(s).mean()) / 2
              for _, d, f, s in draws if d != 0]
    assert RT.prefers_longer(t, PAIRS) == pytest.approx(float(np.mean(longer)), abs=0.004)
    # 13: the generated verdicts' consistency, one category (no weights)
    cons = np.mean([(sig(f) * sig(s) + (1 - sig(f)) * (1 - sig(s))).mean() for cat, _, f, s in draws if cat == "abstain"])
    assert RT.judge_truths(t, ("abstain",), pairs=PAIRS)["consistency"] == pytest.approx(float(cons), abs=0.004)


def test_no_planted_length_leaves_every_truth_as_it_was_and_a_design_without_pairs_takes_equal_lengths():
    t0 = _truth(length=0.0)
    design = with_pairs(Design(rm_categories=CATS), PAIRS)
    assert MT.length_control_truth(t0, design) == 0.0
    assert RT.judge_truths(t0, CATS, pairs=PAIRS) == RT.judge_truths(t0, CATS)
    assert logprob_judge_truths(t0, CATS, PAIRS) == logprob_judge_truths(t0, CATS)
    t = _truth()
    assert RT.judge_truths(t, CATS) == RT.judge_truths(t0, CATS)  # no pairs: equal lengths
    assert RT.judge_truths(t, CATS, pairs=PAIRS) != RT.judge_truths(t0, CATS, pairs=PAIRS)


def test_the_default_truth_file_plants_a_length_term_and_the_registry_gives_its_truth():
    t = load_truth("configs/known_truth.yaml")
    assert t.rewardbench.length > 0
    got = MT.mitigation_truths(t, with_pairs(Design(), PAIRS))
    assert got["length_control.13.accuracy"][1] < -0.02 and got["length_control.13.accuracy"][2] == 0.0
    generated = got["length_control.13.accuracy.generate_and_parse"]
    assert generated[1] < -0.02 and generated[2] == 0.0


def test_the_served_verdict_leans_toward_the_longer_response():
    from lib.simulate.core.roles import Roles
    from lib.simulate.replies import Replier
    from lib.simulate.rewardbench.replies import judge_reply

    roles = Roles(None, _truth())
    roles.rm = {"chosen text": ("helpful", "q")}  # one chosen response of the run's data, indexed as the simulator does
    q1 = {}
    for length in (0.0, LENGTH):
        replier = Replier(_truth(length), roles)
        longer = {"prompt": "p", "response1": "chosen text", "response2": " ".join(["word"] * 102)}
        _, tokens = judge_reply(replier, longer, ("key",), 2)
        q1[length] = np.exp({t["token"]: t["logprob"] for t in tokens[1]["top_logprobs"]}[" 1"])
    # response 2 is 100 words longer than the chosen response 1: the planted term moves P(1) down by 2 log-odds
    logit = lambda p: np.log(p / (1 - p))  # noqa: E731
    assert logit(q1[0.0]) - logit(q1[LENGTH]) == pytest.approx(LENGTH * 100 / 100, abs=1e-6)
