"""The link between the measure registry and the simulator's truths: every declared measure names a
truth function (`truth="module:function"`) or declares a reason for none, every name resolves, and
each named function, run on the planted model, gives ids of the measures that name it and of no other."""
from dataclasses import replace

import pytest

from lib.report import measures as R
from lib.simulate import truth_registry as TR
from lib.simulate.core.truth import Design
from lib.simulate.core.truth_file import load_truth
from lib.simulate.rewardbench.truth import RMDesign
from lib.simulate.truth import measure_truths
from lib.simulate.utility.truth import AnswerQuestion, UtilityDesign

TRUTH = load_truth("configs/known_truth.yaml")
SMALL = ("ground_truth", "counterfactual", "distractor", "distractor")
UTILITY = UtilityDesign(sets=(("nq", SMALL),), factor_sets=(("nq", SMALL),), set_forms=("pointwise", "listwise-set"),
                        position_forms=("listwise-set", "listwise-rank"), positions=(1, 4),
                        answers=(AnswerQuestion("nq", ("distractor", "ground_truth", "distractor"), True, 1.0, 0.0),),
                        conditions=("none", "dense", "ground-truth", "relevance listwise-set", "utility listwise-set",
                                    "5-sampling"))
# each named function with a design that asks for every measure it gives
CALLS = {"lib.simulate.self_preference.truth:paper_reading_truths": (TRUTH, Design()),
         "lib.simulate.rewardbench.truth:judge_reading_truths": (TRUTH, Design()),
         "lib.simulate.self_preference.likelihood_truth:likelihood_truths": (TRUTH, Design()),
         "lib.simulate.utility.truth:utility_truths": (TRUTH, UTILITY),
         "lib.simulate.rewardbench.truth:rm_truths": (TRUTH, RMDesign(pairs=(("helpful", 3),))),
         "lib.simulate.mitigation.truth:mitigation_truths": (TRUTH, Design(utility=UTILITY))}  # 12's k runs too


def mismatches(reference: str, measures) -> list[str]:
    """What the function `reference` names gives against the measures that name it: ids of measures
    that do not name it, and measures naming it that it gives no id of."""
    got = TR.resolve(reference)(*CALLS[reference])
    mine = {m.pattern for m in measures if m.truth == reference}
    owners = {R.find(mid).pattern for mid in got}
    return ([f"gives {p}, which names another function" for p in sorted(owners - mine)]
            + [f"gives no id of {p}" for p in sorted(mine - owners)]
            + [f"{mid}: notebook {nb}, declared {R.find(mid).notebook}" for mid, (nb, _, _) in got.items()
               if nb != R.find(mid).notebook])


def test_every_declared_measure_has_a_truth_function_or_a_reason_for_none():
    assert TR.unaccounted(R.all_measures()) == []


def test_a_measure_without_either_or_with_both_is_named():
    planted = R.Measure("new_rate.{dataset}", "a new rate", "utility", "11_utility_factors", "question", 0.5)
    assert TR.unaccounted(R.all_measures() + (planted,)) == ["new_rate.{dataset}: no truth function and no no_truth reason"]
    both = replace(R.find("set_f1.nq.utility"), no_truth="nothing to plant")
    assert TR.unaccounted((both,)) == ["set_f1.{source}.{judgment}: both a truth function and no_truth"]
    with pytest.raises(KeyError, match="new_rate"):
        TR.truth_function(planted)


def test_every_truth_reference_resolves_and_a_wrong_one_is_named():
    assert TR.unresolved(R.all_measures()) == []
    typo = replace(R.find("set_f1.nq.utility"), truth="lib.simulate.utility.truth:utility_truth")
    moved = replace(R.find("best_of_n_gain.generate_and_parse"), truth="lib.simulate.rm_truth:rm_truths")
    dotted = replace(R.find("best_of_n_gain.generate_and_parse"), truth="lib.simulate.rewardbench.truth.rm_truths")
    problems = TR.unresolved((typo, moved, dotted))
    assert [p.split(":")[0] for p in problems] == ["set_f1.{source}.{judgment}", "best_of_n_gain.{method}",
                                                  "best_of_n_gain.{method}"]
    with pytest.raises(ValueError, match="utility_truth'"):
        TR.truth_function(typo)


def test_every_named_function_is_checked_here():
    assert {m.truth for m in R.all_measures() if m.truth} == set(CALLS)


@pytest.mark.parametrize("reference", sorted(CALLS))
def test_each_function_gives_the_ids_of_the_measures_that_name_it(reference):
    assert mismatches(reference, R.all_measures()) == []


def test_a_function_that_gives_none_of_its_measures_ids_is_named():
    wrong = replace(R.find("position_effect.listwise-set"), truth="lib.simulate.rewardbench.truth:rm_truths")
    measures = tuple(wrong if m.pattern == wrong.pattern else m for m in R.all_measures())
    assert mismatches("lib.simulate.rewardbench.truth:rm_truths", measures) == ["gives no id of position_effect.{form}"]
    assert mismatches("lib.simulate.utility.truth:utility_truths", measures) == [
        "gives position_effect.{form}, which names another function"]


def test_the_check_reads_every_study_s_truths_of_the_paper_reading():
    got = measure_truths(TRUTH, Design(utility=UTILITY))
    parts = [TR.resolve(r)(*CALLS[r]) for r in ("lib.simulate.self_preference.truth:paper_reading_truths",
                                                "lib.simulate.rewardbench.truth:judge_reading_truths",
                                                "lib.simulate.utility.truth:utility_truths")]
    assert list(got) == [mid for part in parts for mid in part]
