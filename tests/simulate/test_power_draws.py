"""`make power`'s utility and RM rows: drawn from the planted model (core.utility_model, 13's judges), so a
planted parameter the draw ignored would move its estimate away from the value the planted model
implies, and analysed by the pipeline's own tests (lib.stats, lib.compare)."""
from dataclasses import replace

import numpy as np
import pytest

from lib.simulate import power as P
from lib.simulate.rewardbench import power as RM
from lib.simulate.utility import power as U
from lib.simulate.core.truth_file import Truth

BASE = Truth(icc=0.3, format_failure=0.05)


def _mean_of(draw, null=0.0) -> float:
    return P.p_value(draw, null)[0]


def with_position(truth: Truth, position: float) -> Truth:
    return replace(truth, utility=replace(truth.utility, position=position))


@pytest.mark.parametrize("form", U.FORMS)
def test_utility_draw_follows_the_place_effect_and_question_effect(form):
    """A strong place effect lowers the listwise contrast (passages shown late are rarely selected) but
    not the pointwise one (each passage shown alone); the draw follows the implied value in both."""
    for truth in (BASE, with_position(BASE, -3.0), replace(BASE, icc=0.7)):
        want = U.utility_implied(truth, 0.8, form)
        got = _mean_of(U.utility_draw(truth, 0.8, 30000, np.random.default_rng(7), form))
        assert abs(got - want) < 0.012, (form, truth.icc, truth.utility.position, got, want)
    moved = U.utility_implied(with_position(BASE, -3.0), 0.8, form) - U.utility_implied(BASE, 0.8, form)
    assert (moved < -0.02) if form == "listwise-set" else abs(moved) < 1e-9


def test_utility_implied_is_null_without_a_planted_gap():
    assert abs(U.utility_implied(BASE, 0.0)) < 1e-12
    truth = replace(BASE, utility=replace(BASE.utility, select_utility={"ground_truth": 0.0, "counterfactual": 0.0,
                                                                        "distractor": 0.0}))
    assert U.planted(truth, 0.5).select_utility["ground_truth"] == 0.5  # the gap is planted over the counterfactual


def test_rm_draw_follows_the_second_judges_position_bias_and_the_failure_rate():
    """The second model's own position bias (core.truth_file.for_model) and unparsed verdicts (wrong) move
    the accuracy difference; the draw, analysed by lib.compare, follows the implied value."""
    biased = replace(BASE, models={"sim_b": {"rewardbench": {"position": 2.0}}})
    failing = replace(BASE, format_failure=0.4)
    values = {}
    for name, truth in (("base", BASE), ("biased", biased), ("failing", failing)):
        want = RM.rm_implied(truth, 0.4)
        got = _mean_of(RM.rm_draw(truth, 0.4, 12000, np.random.default_rng(8)))
        assert abs(got - want) < 0.012, (name, got, want)
        values[name] = want
    assert values["biased"] - values["base"] > 0.02 and values["base"] - values["failing"] > 0.01


def test_rm_draw_mixes_the_benchmarks_categories():
    d = RM.benchmark_pairs(1485)
    counts = {c: d.categories.count(c) for c in set(d.categories)}
    assert counts == {"helpful": 262, "reason": 306, "citation": 361, "harmless": 155, "abstain": 217,
                      "conflict": 184} and len(set(d.clusters)) == 1485
    assert len(RM.benchmark_pairs(100).categories) == 100


def test_rm_draws_are_paired_and_pairing_changes_the_power():
    """Both judges meet the same pair difficulty, as the simulator keys it; planting unpaired draws
    (a second judge with its own difficulties) widens the paired difference and lowers the power."""
    truth = replace(BASE, icc=0.5)
    draw = RM.rm_draw(truth, 0.0, 20000, np.random.default_rng(9))
    assert np.corrcoef(draw.values, draw.second)[0, 1] > 0.1
    unpaired = RM.rm_draw(truth, 0.0, 20000, np.random.default_rng(9), paired=False)
    assert abs(np.corrcoef(unpaired.values, unpaired.second)[0, 1]) < 0.03
    paired_power = P.power(lambda n, rng: RM.rm_draw(truth, 0.4, n, rng), 300, 0.0, 1.0, reps=200, seed=5)
    unpaired_power = P.power(lambda n, rng: RM.rm_draw(truth, 0.4, n, rng, paired=False), 300, 0.0, 1.0,
                             reps=200, seed=5)
    assert paired_power - unpaired_power > 0.15  # about 0.66 against 0.39 (sd of each about 0.034)


@pytest.mark.parametrize("index", [3, 4])
def test_power_grows_with_the_planted_size(index):
    """A draw that ignored its planted size would give one power at every size."""
    e = P.effects()[index]
    got = [P.power(lambda n, rng, s=s: e.draw(BASE, s, n, rng), 250, e.null, 1.0, reps=120, seed=6)
           for s in (0.0, *e.sizes)]
    assert got[0] <= 0.06  # no planted gap: rejections at most the test's level
    assert all(b > a for a, b in zip(got, got[1:])) and got[-1] - got[1] > 0.3, got
