"""The truths of notebooks 11 and 12 (lib.simulate.utility.truth, utility.draws) against a plain loop
that draws one simulated question at a time and reads it with the study's own functions (presentation
order, set / ranking metrics, wins ranking, k-sampling vote, evidence hand-over); and each truth moves
out of the loop's reach when a planted parameter changes."""
import math
import random
from dataclasses import replace
from itertools import combinations

import numpy as np
import pytest

from lib.simulate.utility import truth as UT
from lib.simulate.core.truth_file import load_truth
from lib.utility.benchmark import Candidates
from lib.utility.answering import evidence_from_judgment
from lib.utility.judging import Judgment, wins_ranking
from lib.utility.judgment_metrics import rank_metrics, set_prf
from lib.utility.k_sampling import vote

TRUTH = load_truth("configs/known_truth.yaml")
LOOPS = 4000  # questions of the plain loop: standard error of a probability below 0.008


def sig(x):
    return 1 / (1 + math.exp(-x))


class Loop:
    """One simulated question at a time, drawn as the simulator's replies are (`utility.replies`)."""

    def __init__(self, truth, roles, seed=1):
        self.t, self.u, self.roles, self.n = truth, truth.utility, list(roles), len(roles)
        self.rng = random.Random(seed)

    def off(self, place, n):
        return self.u.position * place / (n - 1) if n > 1 else 0.0

    def new_question(self):
        self.q = self.rng.gauss(0, self.t.question_sd)
        self.order = list(range(self.n))
        self.rng.shuffle(self.order)  # order[s]: the stored passage shown at s

    def fails(self):
        return self.rng.random() < self.t.format_failure

    def logit(self, judgment, j, place, n):
        return self.u.select(judgment)[self.roles[j]] + self.off(place, n) + self.q

    def listwise_set(self, judgment, order=None):
        order = order or self.order
        if self.fails():
            return None
        return sorted(j for s, j in enumerate(order) if self.rng.random() < sig(self.logit(judgment, j, s, self.n)))

    def listwise_rank(self, judgment):
        if self.fails():
            return None
        keys = {j: self.logit(judgment, j, s, self.n) - math.log(-math.log(self.rng.random()))
                for s, j in enumerate(self.order)}
        return sorted(keys, key=lambda j: -keys[j])

    def pairwise(self, judgment):
        outcomes = []
        for a, b in combinations(range(self.n), 2):  # shown places, a first
            if self.fails():
                outcomes.append((a, b, None))
                continue
            la = self.logit(judgment, self.order[a], 0, 2)
            lb = self.logit(judgment, self.order[b], 1, 2)
            outcomes.append((a, b, a if self.rng.random() < sig(la - lb) else b))
        shown = wins_ranking(self.n, outcomes)
        return None if shown is None else [self.order[s] for s in shown]

    def pointwise(self, judgment):
        said = [None if self.fails() else self.rng.random() < sig(self.logit(judgment, j, 0, 1)) for j in range(self.n)]
        return None if all(s is None for s in said) else [j for j in range(self.n) if said[j]]


def loop_answer_right(truth, roles, conditions, loops=LOOPS):
    """P(right) per condition by the plain loop, through the study's evidence and vote functions."""
    sim = Loop(truth, roles)
    row = Candidates("q", "q", [f"p{j}" for j in range(len(roles))], [int(r == "ground_truth") for r in roles])
    right = {c: 0 for c in conditions}
    for _ in range(loops):
        sim.new_question()
        ev = {"none": [], "dense": list(row.passage), "ground-truth": [p for p, y in zip(row.passage, row.ground_truth_label) if y]}
        for judgment in ("relevance", "utility"):
            s = sim.listwise_set(judgment)
            size = None if s is None else len(s)
            js = {"listwise-set": Judgment("q", "listwise-set", judgment, sim.order, selected=s),
                  "listwise-rank": Judgment("q", "listwise-rank", judgment, sim.order, ranking=sim.listwise_rank(judgment)),
                  "pairwise": Judgment("q", "pairwise", judgment, sim.order, ranking=sim.pairwise(judgment)),
                  "pointwise": Judgment("q", "pointwise", judgment, sim.order, selected=sim.pointwise(judgment))}
            for form, j in js.items():
                ev[f"{judgment} {form}"] = evidence_from_judgment(row, j, size)
        runs = []
        for _ in range(10):
            order = list(range(sim.n))
            sim.rng.shuffle(order)
            runs.append(sim.listwise_set("utility", order))
        for k in (5, 10):
            ev[f"{k}-sampling"] = [row.passage[i] for i in vote(runs[:k])]
        for c in conditions:
            good = any(row.ground_truth_label[row.passage.index(p)] for p in ev[c])
            right[c] += sim.rng.random() < sig((truth.utility.answer_good if good else truth.utility.answer_bad) + sim.q)
    return {c: v / loops for c, v in right.items()}


GTU = ("distractor", "ground_truth", "distractor", "distractor")
CONDITIONS = ("none", "dense", "ground-truth", "relevance listwise-set", "relevance listwise-rank", "relevance pairwise",
              "utility pointwise", "utility pairwise", "utility listwise-set", "utility listwise-rank",
              "5-sampling", "10-sampling")


def _tolerance(p):
    return 4 * math.sqrt(p * (1 - p) / LOOPS) + 4 * math.sqrt(p * (1 - p) / UT.FACTOR_DRAWS)


@pytest.fixture(scope="module")
def loop_right():
    return loop_answer_right(TRUTH, GTU, CONDITIONS)


def test_answer_truth_matches_a_plain_loop_over_the_study_functions(loop_right):
    q = UT.AnswerQuestion("nq", GTU, True, 1.0, 0.0)
    got = UT.answer_right(TRUTH, q, CONDITIONS)
    assert set(got) == set(CONDITIONS)
    for c in CONDITIONS:
        assert abs(got[c] - loop_right[c]) < _tolerance(loop_right[c]), (c, got[c], loop_right[c])
    # the conditions differ as planted: ground truth in the evidence beats none by far
    assert got["ground-truth"] - got["none"] > 0.4


@pytest.mark.parametrize("change, moved", [
    ({"answer_good": 0.5}, ["dense", "utility listwise-set", "10-sampling"]),
    ({"position": 3.0}, ["utility listwise-set", "relevance listwise-set", "5-sampling"]),
    ({"select_utility": {"ground_truth": -1.0, "counterfactual": -0.5, "distractor": -2.5}},
     ["utility listwise-set", "utility pointwise", "10-sampling"]),
])
def test_answer_truth_leaves_the_loop_when_a_planted_parameter_changes(loop_right, change, moved):
    changed = replace(TRUTH, utility=replace(TRUTH.utility, **change))
    got = UT.answer_right(changed, UT.AnswerQuestion("nq", GTU, True, 1.0, 0.0), CONDITIONS)
    for c in moved:
        assert abs(got[c] - loop_right[c]) > _tolerance(loop_right[c]), (c, got[c], loop_right[c])


def test_answer_score_weighs_the_right_graded_and_wrong_answers_scores():
    q = UT.AnswerQuestion("nq", GTU, True, 1.0, 0.25, "Rome Italy", ("Rome Italy",))
    p = UT.answer_right(TRUTH, q, ("none", "dense"))
    scores = UT.answer_scores(TRUTH, [q, replace(q, right=0.5)], ("none", "dense"))["nq"]
    graded = 2 * (1 / 3) * (1 / 2) / (1 / 3 + 1 / 2)  # "Italy or thereabouts" against "Rome Italy": F1 0.4
    not_right = TRUTH.utility.answer_partial * graded + (1 - TRUTH.utility.answer_partial) * 0.25
    for c in ("none", "dense"):
        want = np.mean([p[c] + (1 - p[c]) * not_right, 0.5 * p[c] + (1 - p[c]) * not_right])
        assert scores[c] == pytest.approx(want)


GTI = ("ground_truth", "counterfactual", "counterfactual", "distractor", "distractor")


def loop_role_gap(truth, form, a, b, loops=LOOPS):
    sim = Loop(truth, GTI)
    ra, rb = UT.GAP_ROLE[a], UT.GAP_ROLE[b]
    gaps = []
    for _ in range(loops):
        sim.new_question()
        sel = sim.listwise_set("utility") if form == "listwise-set" else sim.pointwise("utility")
        if sel is None:
            continue
        share = {r: np.mean([j in sel for j in range(sim.n) if GTI[j] == r]) for r in (ra, rb)}
        gaps.append(share[ra] - share[rb])
    return float(np.mean(gaps)), float(np.std(gaps) / math.sqrt(len(gaps)))


@pytest.mark.parametrize("form", ["pointwise", "listwise-set"])
@pytest.mark.parametrize("a, b", UT.GAP_PAIRS)
def test_role_gap_closed_form_matches_the_loop_and_moves_with_the_planted_roles(form, a, b):
    want, se = loop_role_gap(TRUTH, form, a, b)
    assert abs(UT.role_gap(TRUTH, form, [GTI], a, b) - want) < 4 * se
    swapped = {"ground_truth": -0.5, "counterfactual": 2.0, "distractor": -2.5}  # a swapped role
    changed = replace(TRUTH, utility=replace(TRUTH.utility, select_utility=swapped))
    assert abs(UT.role_gap(changed, form, [GTI], a, b) - want) > 8 * se


def loop_position(truth, form, shown, loops=LOOPS):
    sim = Loop(replace(truth, format_failure=0.0), GTI)
    values = []
    for _ in range(loops):
        sim.new_question()
        rest = [j for j in sim.order if j != 0]  # stored 0 is the ground truth
        sim.order = rest[:shown] + [0] + rest[shown:]
        labels = [int(r == "ground_truth") for r in GTI]
        if form == "listwise-set":
            values.append(set_prf(sim.listwise_set("utility"), labels)["F1"])
        else:
            values.append(rank_metrics(sim.listwise_rank("utility"), labels)["NDCG@1"])
    return float(np.mean(values)), float(np.std(values) / math.sqrt(len(values)))


@pytest.mark.parametrize("form", ["listwise-set", "listwise-rank"])
def test_position_truth_matches_the_loop_and_moves_with_the_planted_position(form):
    first, se1 = loop_position(TRUTH, form, 0)
    last, se2 = loop_position(TRUTH, form, len(GTI) - 1)
    se = math.hypot(se1, se2)
    got = UT.position_effect(TRUTH, form, [GTI], 1, len(GTI))
    assert abs(got - (first - last)) < 4 * se + 0.01
    assert got > 0  # the planted position lowers the last place
    flat = replace(TRUTH, utility=replace(TRUTH.utility, position=0.6))
    assert abs(UT.position_effect(flat, form, [GTI], 1, len(GTI)) - (first - last)) > 4 * se + 0.01
