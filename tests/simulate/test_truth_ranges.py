"""Every truth lies in its measure's range (a probability in [0, 1], a rating difference within the
scale, a percentage in [0, 100]): every registered truth function, and validate's own 04 / 07 truths,
on random truth files drawn from the declared ranges (effects on both sides of their nulls, judges
below chance, heavy question effects)."""
import math

import pytest

from lib.report import measures as R
from lib.simulate import truth_registry as TR
from lib.simulate.self_preference.likelihood_truth import KnowledgeDesign, knowledge_truths, stratified_factual
from lib.simulate.random_truth import draw_truth
from lib.simulate.core.truth_file import for_model
from lib.simulate.rewardbench.truth import RMDesign
from lib.simulate.core.truth import Design
from lib.simulate.core.truth_file import load_truth
from lib.simulate.truth_ranges import RANGES, out_of_range, truth_range
from tests.simulate.test_truth_registry import CALLS, UTILITY  # designs that ask for every measure a function gives

# every declared truth function with a design that asks for all its measures (13-15's over three categories)
DESIGNS = {ref: design for ref, (_truth, design) in CALLS.items()}
DESIGNS["lib.simulate.rewardbench.truth:rm_truths"] = RMDesign(pairs=(("helpful", 3), ("conflict", -4), ("abstain", 0)))
DRAWS = 4  # sides alternate per draw, so every effect is tried above and below its null


def _random_truth(tmp_path, index):
    import yaml

    f = tmp_path / f"random_{index}.yaml"
    f.write_text(yaml.safe_dump(draw_truth(seed=11, index=index)))
    return load_truth(f)


def test_every_declared_family_with_a_truth_has_a_range():
    families = {m.kind for m in R.all_measures() if m.truth}
    assert families <= set(RANGES), families - set(RANGES)


def test_a_truth_outside_its_range_is_named():
    assert out_of_range("judge_position_consistency.top_k_log_probability_verdict", 1.18)
    assert not out_of_range("judge_position_consistency.top_k_log_probability_verdict", 0.8)
    assert out_of_range("human_minus_self.nq.rag.self_true.paper_parsed_reply", -4.5)
    assert truth_range("paired_difference.judge_overall_accuracy.generate_and_parse") == (-1.0, 1.0)
    assert not out_of_range("set_f1.nq.utility", math.nan)


@pytest.mark.parametrize("index", range(DRAWS))
def test_every_registered_truth_lies_in_its_range(tmp_path, index):
    planted = _random_truth(tmp_path, index)
    bad = []
    for model in ("sim", "sim_b"):
        truth = for_model(planted, model)
        for reference, design in DESIGNS.items():
            fn = TR.resolve(reference)
            for mid, (_nb, value, _null) in fn(truth, design).items():
                if out_of_range(mid, value):
                    bad.append(f"{model} {mid} = {value:.4f} (range {truth_range(mid)})")
        for dataset in ("nq", "marco"):
            for key, value in knowledge_truths(truth, dataset, KnowledgeDesign.n_samples).items():
                if not 0 <= value <= 1:
                    bad.append(f"{model} knowledge {dataset} {key} = {value:.4f}")
        if not 0 <= stratified_factual(truth, KnowledgeDesign.combos) <= 1:
            bad.append(f"{model} knowledge_stratified_factual")
    assert not bad, bad


def test_a_planted_null_is_exactly_null_in_the_truth():
    """Monte Carlo truths of 11 and 12 give exactly 0 where nothing is planted (no position effect; the
    same judge under both prompts), so a detection there counts as a false one."""
    from dataclasses import replace

    from lib.simulate.utility.truth import utility_truths

    base = load_truth("configs/known_truth.yaml")
    same = replace(base.utility, position=0.0, select_relevance=dict(base.utility.select_utility))
    got = utility_truths(replace(base, utility=same), UTILITY)
    assert got["position_effect.listwise_set"][1] == 0.0 and got["position_effect.listwise_rank"][1] == 0.0
    assert got["answer_gain.nq.utility_minus_relevance"][1] == 0.0
    assert got["answer_gain.nq.utility_minus_dense"][1] != 0.0  # a planted gain stays
