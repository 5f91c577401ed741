"""The link between the measure registry and the simulator's truths: every declared measure has a
registered truth function or a declared reason for none, every registration names a declared measure,
and each registered function, run on the planted model, gives ids of its own patterns only."""
from dataclasses import replace

import pytest

from lib.report import measures as R
from lib.simulate import truth_registry as TR
from lib.simulate.rewardbench.truth import RMDesign
from lib.simulate.core.truth import Design
from lib.simulate.core.truth_file import load_truth
from lib.simulate.utility.truth import AnswerQuestion, UtilityDesign

TRUTH = load_truth("configs/known_truth.yaml")
SMALL = ("ground_truth", "counterfactual", "distractor", "distractor")
UTILITY = UtilityDesign(sets=(("nq", SMALL),), factor_sets=(("nq", SMALL),), set_forms=("pointwise", "listwise-set"),
                        position_forms=("listwise-set", "listwise-rank"), positions=(1, 4),
                        answers=(AnswerQuestion("nq", ("distractor", "ground_truth", "distractor"), True, 1.0, 0.0),),
                        conditions=("none", "dense", "ground-truth", "relevance listwise-set", "utility listwise-set",
                                    "5-sampling"))
# each registered function with a design that asks for every measure it gives
CALLS = {TR.MEASURE_TRUTHS: (TRUTH, Design(utility=None)), TR.LIKELIHOOD_TRUTHS: (TRUTH, Design()),
         TR.UTILITY_TRUTHS: (TRUTH, UTILITY), TR.RM_TRUTHS: (TRUTH, RMDesign(pairs=(("helpful", 3),)))}


def test_every_declared_measure_has_a_truth_function_or_a_reason_for_none():
    assert TR.unaccounted(R.all_measures()) == []


def test_a_new_measure_without_either_is_named():
    planted = R.Measure("new_rate.{dataset}", "a new rate", "utility", "11_utility_factors", "question", 0.5)
    assert TR.unaccounted(R.all_measures() + (planted,)) == ["new_rate.{dataset}: no truth function and no no_truth reason"]
    both = replace(R.find("set_f1.nq.utility"), no_truth="nothing to plant")
    assert TR.unaccounted((both,)) == ["set_f1.{source}.{judgment}: both a truth function and no_truth"]
    with pytest.raises(KeyError, match="new_rate"):
        TR.truth_function(planted.pattern)


def test_every_registration_names_a_declared_pattern():
    declared = {m.pattern for m in R.all_measures()}
    assert set(TR.TRUTHS) <= declared, set(TR.TRUTHS) - declared


@pytest.mark.parametrize("name", sorted(CALLS))
def test_each_function_gives_the_ids_of_the_patterns_registered_to_it(name):
    fn = next(TR.truth_function(p) for p, n in TR.TRUTHS.items() if n == name)
    got = fn(*CALLS[name])
    mine = {p for p, n in TR.TRUTHS.items() if n == name}
    owners = {R.find(mid).pattern for mid in got}
    assert owners <= mine, owners - mine  # no id of a pattern registered elsewhere (or undeclared)
    assert mine <= owners, mine - owners  # every pattern registered to it is really given
    for mid, (notebook, truth, null) in got.items():
        assert notebook == R.find(mid).notebook, mid
