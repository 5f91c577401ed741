"""The truth of 18's listwise order averaging (lib.simulate.mitigation.truth.order_draws) against a plain
loop: one simulated question at a time, k listwise-set utility judgments on their own shuffles drawn as
the simulator's replies are, kept by 12's own record writer (`k_sampling.run_records`, the study's vote)
and read by 18's own arm (`arms.order_units`); and a truth taken at the wrong k, or with the vote of the
largest set size, falls outside the loop's reach."""
import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from lib.mitigation import arms
from lib.simulate.core.truth import Design
from lib.simulate.core.truth_file import load_truth
from lib.simulate.mitigation.truth import mitigation_truths, order_averaged_truths, order_draws
from lib.simulate.utility.truth import AnswerQuestion, UtilityDesign
from lib.utility.benchmark import Candidates
from lib.utility.judging import Judgment
from lib.utility.k_sampling import run_records

from .test_utility_factor_truth import LOOPS, Loop

TRUTH = load_truth("configs/known_truth.yaml")
GTU = ("distractor", "ground_truth", "distractor", "counterfactual")
K = 5
DRAWS = 40_000


def _loop_units(roles, k, loops=LOOPS, largest=False) -> pd.DataFrame:
    """`arms.order_units` of `loops` simulated questions, each judged on k shuffles (run 0 included)."""
    sim = Loop(TRUTH, roles, seed=3)
    row = Candidates("q", "q", [f"p{j}" for j in range(len(roles))], [int(r == "ground_truth") for r in roles], source="nq")
    records = []
    for i in range(loops):
        sim.new_question()
        runs = []
        for _ in range(k):
            order = list(range(sim.n))
            sim.rng.shuffle(order)
            runs.append([Judgment("q", "listwise-set", "utility", order, selected=sim.listwise_set("utility", order))])
        rec = run_records([row], runs, "sim")[0]
        if largest:  # a defect: the vote keeps as many passages as the largest set, not the modal one
            sets = [s for s in rec["selected"] if s is not None]
            votes = Counter(j for s in sets for j in s)
            rec["voted"] = sorted(sorted(votes, key=lambda j: (-votes[j], j))[:max((len(s) for s in sets), default=0)])
        records.append({**rec, "question": f"q{i}"})
    return arms.order_units(pd.DataFrame(records))


def _diffs(units: pd.DataFrame) -> dict:
    return {q: np.array([a - b for b, a in units[q]]) for q in arms.ORDER_VIEWS}


@pytest.fixture(scope="module")
def loop():
    return _diffs(_loop_units(GTU, K))


def _tolerance(d: np.ndarray) -> float:
    # the loop's standard error and the Monte Carlo's (its draws hold up to k runs of the same spread)
    return 4 * d.std() * (1 / math.sqrt(len(d)) + 1 / math.sqrt(DRAWS))


def test_order_truth_matches_a_plain_loop_through_12s_record_and_18s_arm(loop):
    got = order_draws(TRUTH, GTU, K, DRAWS)
    assert set(got) == set(arms.ORDER_VIEWS)
    for q, d in loop.items():
        assert abs(got[q] - d.mean()) < _tolerance(d), (q, got[q], d.mean())
    assert got["gt_hit"] > 0.02 and got["first_shown"] < -0.02  # the vote moves both: the check has something to see


def test_a_truth_at_the_wrong_k_or_with_the_largest_set_is_out_of_reach(loop):
    wrong_k = order_draws(TRUTH, GTU, 2, DRAWS)
    assert any(abs(wrong_k[q] - d.mean()) > _tolerance(d) for q, d in loop.items())
    largest = _diffs(_loop_units(GTU, K, loops=LOOPS // 2, largest=True))
    right = order_draws(TRUTH, GTU, K, DRAWS)
    assert any(abs(right[q] - d.mean()) > _tolerance(d) for q, d in largest.items())


def test_the_rows_come_from_12s_largest_k_and_are_averaged_over_its_questions():
    a, b = ("ground_truth", "distractor", "distractor"), GTU
    qs = tuple(AnswerQuestion("nq", r, True, 1.0, 0.0) for r in (a, b, b))
    design = Design(utility=UtilityDesign(answers=qs, conditions=("none", "5-sampling", "3-sampling")))
    got = order_averaged_truths(TRUTH, design, draws=DRAWS)
    one, two = order_draws(TRUTH, a, 5, DRAWS), order_draws(TRUTH, b, 5, DRAWS)
    assert got == pytest.approx({q: (one[q] + 2 * two[q]) / 3 for q in one})
    rows = mitigation_truths(TRUTH, design)
    assert rows["order_averaged.12.gt_hit"][1:] == (order_averaged_truths(TRUTH, design)["gt_hit"], 0.0)
    assert math.isnan(rows["order_averaged.12.flipped"][2])  # a share flipped: no null, not tested
    no_k = Design(utility=UtilityDesign(answers=qs, conditions=("none", "dense")))
    assert not any(k.startswith("order_averaged") for k in mitigation_truths(TRUTH, no_k))
