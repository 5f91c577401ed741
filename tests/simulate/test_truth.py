"""The planted model and the truth it implies: the quadrature truth against an independent Monte
Carlo of the same planted model, the nulls, the truth file's checks, and the check's verdict."""
import math

import numpy as np
import pandas as pd
import pytest

from lib.simulate.core import planted as M
from lib.simulate import truth as T
from lib.simulate.self_preference import truth as SPT
from lib.simulate.core.truth_file import Pairwise, Pointwise, Truth, TruthError, load_truth
from lib.simulate.validate import compare, must_detect, powered, verdict

CONFIG_TRUTH = "configs/known_truth.yaml"


def test_truth_files_load_and_a_misspelled_key_is_named(tmp_path):
    for name in ("known_truth", "known_truth_null", "known_truth_inverted"):
        load_truth(f"configs/{name}.yaml")
    bad = tmp_path / "t.yaml"
    bad.write_text("pairwise: {postion: 0.5}\n")
    with pytest.raises(TruthError, match="postion"):
        load_truth(bad)
    bad.write_text("format_failure: 1.5\n")
    with pytest.raises(TruthError, match="format_failure"):
        load_truth(bad)


def test_the_schema_names_the_field_in_one_line(tmp_path):
    bad = tmp_path / "t.yaml"
    for text, says in (("iccc: 0.2", r"iccc: unknown key; allowed: \[.*'icc'"),
                       ("icc: .nan", "icc: Input should be a finite number"),
                       ("rewardbench: {accuracy: {helpfull: 0.6}}", "rewardbench.accuracy: unknown key 'helpfull'"),
                       ("models: {sim: {icc: 0.2}}", "models: 'sim' is described by the file's own sections"),
                       ("models: {sim_b: {seed: 3}}", r"models\.sim_b: \['seed'\] are the file's own")):
        bad.write_text(text + "\n")
        with pytest.raises(TruthError, match=says) as got:
            load_truth(bad)
        assert "\n" not in str(got.value) and str(bad) in str(got.value)
    bad.write_text("pointwise:\nicc: 0.2\n")  # an empty section keeps its defaults
    assert load_truth(bad).pointwise == Pointwise() and load_truth(bad).icc == 0.2


def test_draws_are_seeded():
    assert M.unit_draw(0, "pair", "x") == M.unit_draw(0, "pair", "x")
    assert M.unit_draw(0, "pair", "x") != M.unit_draw(1, "pair", "x")
    draws = np.array([M.unit_draw(0, "t", i) for i in range(4000)])
    assert abs(draws.mean() - 0.5) < 0.02 and 0 <= draws.min() and draws.max() < 1


def _mc_pair_rates(truth: Truth, n_questions=40000, seed=1):
    """Independent Monte Carlo of notebook 06's design under the planted model (numpy draws)."""
    rng = np.random.default_rng(seed)
    u, u_pos, u_fact = rng.normal(0, truth.question_sd, (3, n_questions))  # lean, position, factual effects
    own_sum = first_sum = cells = 0
    true_tf = true_ft = 0.0
    pw = truth.pairwise
    for combo in SPT.COMBOS:
        a_true, b_true = combo[0] == "T", combo[1] == "T"
        for a_first in (True, False):
            lean = 1 if a_first else -1
            t1, t2 = (a_true, b_true) if a_first else (b_true, a_true)
            p_first = 1 / (1 + np.exp(-(pw.position + u_pos + (pw.self + u) * lean + (pw.factual + u_fact) * (t1 - t2))))
            first = rng.random(n_questions) < p_first
            own = first if a_first else ~first
            own_sum += own.mean()
            first_sum += first.mean()
            cells += 1
            chose_true = first if t1 else ~first
            if combo == "TF":
                true_tf += chose_true.mean() / 2
            if combo == "FT":
                true_ft += chose_true.mean() / 2
    return {"self": own_sum / cells, "first": first_sum / cells, "factual": (true_tf + true_ft) / 2,
            "asymmetry": true_tf - true_ft}


def test_pairwise_truth_matches_a_monte_carlo_of_the_planted_model():
    truth = load_truth(CONFIG_TRUTH)
    exact, mc = SPT.pairwise_truths(truth), _mc_pair_rates(truth)
    for key in exact:
        assert exact[key] == pytest.approx(mc[key], abs=0.01), key


def test_rating_truth_matches_a_monte_carlo_of_the_planted_model():
    truth = load_truth(CONFIG_TRUTH)
    rng = np.random.default_rng(2)
    u = rng.normal(0, truth.pointwise.question_sd, 20000)

    def draw(own, true):  # each passage its own passage effect on top of the question's
        e = rng.normal(0, truth.pointwise.passage_sd, len(u))
        return np.array([M.categorical(M.rating_probs(M.rating_mu(truth, own, true, x), truth.pointwise.spread),
                                       rng.random()) + 1 for x in u + e])
    human = draw(False, True)
    assert SPT.human_minus_self(truth, True) == pytest.approx((human - draw(True, True)).mean(), abs=0.03)
    assert SPT.human_minus_self(truth, False) == pytest.approx((human - draw(True, False)).mean(), abs=0.03)


@pytest.mark.parametrize("path", [CONFIG_TRUTH, "configs/known_truth_reversed.yaml"])
def test_the_next_token_reading_varies_so_its_interval_covers(path):
    """05's next-token expected score has no reply-level draw. With a question effect alone, the
    human-minus-own difference was a near-constant, skewed function of it (intervals of +-0.001 to
    0.01) and the paired t-interval over 45 questions covered 0.90 (the default file's false own
    passages); each passage's own effect makes it vary as real passages do, and the interval covers."""
    from scipy import stats as sps

    truth = load_truth(path)
    pw, rng = truth.pointwise, np.random.default_rng(5)
    grid = np.linspace(-8, 8, 1601)
    mean = {k: np.array([SPT.mean_rating(truth, own, true, v) for v in grid])
            for k, (own, true) in {"human": (False, True), "own_false": (True, False)}.items()}
    want = SPT.human_minus_self(truth, False)
    covered = []
    for _ in range(2000):
        u = rng.normal(0, pw.question_sd, 45)
        d = (np.interp(u + rng.normal(0, pw.passage_sd, 45), grid, mean["human"])
             - np.interp(u + rng.normal(0, pw.passage_sd, 45), grid, mean["own_false"]))
        lo, hi = sps.t.interval(0.95, len(d) - 1, loc=d.mean(), scale=sps.sem(d))
        covered.append(lo <= want <= hi)
    assert np.mean(covered) >= 0.935


def test_null_truth_file_gives_the_nulls():
    truth = load_truth("configs/known_truth_null.yaml")
    for measure_id, (_, value, null) in T.measure_truths(truth).items():
        if not math.isnan(null):
            expected = null * (1 - truth.format_failure) if "accuracy" in measure_id else null
            assert value == pytest.approx(expected, abs=1e-9), measure_id


def test_planted_effects_move_their_truth_the_planted_way():
    base = Truth(pointwise=Pointwise(own_shift=0.0, true_shift=0.0), pairwise=Pairwise(0.0, 0.0, 0.0))
    assert SPT.pairwise_truths(base)["self"] == pytest.approx(0.5)
    more_self = Truth(pairwise=Pairwise(position=0.0, self=1.0, factual=0.0))
    assert SPT.pairwise_truths(more_self)["self"] > 0.6
    assert SPT.human_minus_self(Truth(pointwise=Pointwise(own_shift=1.0, true_shift=0.0)), True) < -0.5


def _finding(measure_id, estimate, lo, hi, p=0.001, p_adj=0.001):
    return {"measure_id": measure_id, "notebook": "06_generation_phase", "estimate": estimate, "ci_low": lo,
            "ci_high": hi, "n_items": 100, "p": p, "p_adjusted": p_adj}


def test_verdict_passes_a_right_table_and_fails_a_missed_truth():
    truths = {"a.rate": ("06", 0.70, 0.5), "b.rate": ("06", 0.52, 0.5)}
    right = pd.DataFrame([_finding("a.rate", 0.69, 0.64, 0.74), _finding("b.rate", 0.53, 0.48, 0.58, 0.3, 0.3)])
    passed, line = verdict(compare(right, truths))
    assert passed, line
    wrong = pd.DataFrame([_finding("a.rate", 0.31, 0.26, 0.36), _finding("b.rate", 0.53, 0.48, 0.58, 0.3, 0.3)])
    passed, line = verdict(compare(wrong, truths))
    assert not passed and "FAIL" in line and "missed: a.rate" in line  # detected with the wrong sign
    assert "not covered: a.rate" in line and "b.rate" not in line  # and the row that misses its truth is named


def test_a_planted_effect_that_is_not_detected_fails():
    truths = {"a.rate": ("06", 0.70, 0.5)}
    # covers its truth with a narrow interval (power about 1), but Holm left p_adj at 0.2
    undetected = pd.DataFrame([_finding("a.rate", 0.66, 0.61, 0.71, 0.2, 0.2)])
    assert must_detect("a.rate", 0.70, 0.5) and not must_detect("a.rate", 0.55, 0.5)
    passed, line = verdict(compare(undetected, truths))
    assert not passed and "missed: a.rate" in line


def test_an_underpowered_planted_effect_is_required_only_at_the_papers_sizes():
    """0.125 planted with a standard error of about 0.077: power under 80% at the default size, so a
    miss there is named but not failed; at the papers' sizes every planted effect must be detected."""
    truths = {"a.rate": ("06", 0.625, 0.5)}
    row = _finding("a.rate", 0.60, 0.45, 0.75, 0.2, 0.2)
    assert not powered(compare(pd.DataFrame([row]), truths).iloc[0].to_dict(), 1)
    passed, line = verdict(compare(pd.DataFrame([row]), truths))
    assert passed and "1 more not required" in line, line
    passed, line = verdict(compare(pd.DataFrame([row]), truths), papers_size=True)
    assert not passed and "missed: a.rate" in line


def test_power_counts_the_rows_family():
    """The same row is powered alone and not among 1,000 Holm-adjusted rows (a stricter level)."""
    r = {"truth": 0.6, "null": 0.5, "ci_low": 0.54, "ci_high": 0.66}  # se about 0.031, effect 3.3 se
    assert powered(r, 1) and not powered(r, 1000)


def test_a_run_with_no_row_of_a_truth_fails_with_its_line():
    """`--only 01,09` writes no findings row with a truth: the verdict says so (it raised KeyError)."""
    from lib.simulate.validate import COLUMNS

    passed, line = verdict(pd.DataFrame(columns=COLUMNS))
    assert not passed and "coverage 0/0 rows" in line


def test_replication_summary_counts_coverage_and_false_detection():
    from lib.simulate.replicate import summarize

    rows = pd.DataFrame([
        # a planted effect, covered in one seed of two
        {"measure_id": "self_preference_rate.paper", "truth": 0.6, "null": 0.5, "covered": 1.0, "detected": 1.0},
        {"measure_id": "self_preference_rate.paper", "truth": 0.6, "null": 0.5, "covered": 0.0, "detected": 1.0},
        # a planted null, falsely detected in one seed of two; the pooled row is left out
        {"measure_id": "human_minus_self.nq.rag.x", "truth": 0.0, "null": 0.0, "covered": 1.0, "detected": 0.0},
        {"measure_id": "human_minus_self.nq.rag.x", "truth": 0.0, "null": 0.0, "covered": 0.0, "detected": 1.0},
        {"measure_id": "human_minus_self.all.rag.x", "truth": 0.0, "null": 0.0, "covered": 0.0, "detected": 1.0},
    ])
    s = summarize(rows).set_index("family")
    assert s.loc["self_preference_rate", "coverage"] == 0.5 and s.loc["self_preference_rate", "null_rows"] == 0
    assert s.loc["human_minus_self", "rows"] == 2 and s.loc["human_minus_self", "false_detection"] == 0.5


def test_style_truth_matches_a_monte_carlo_of_the_planted_model():
    truth = load_truth(CONFIG_TRUTH)
    pw, rng = truth.pairwise, np.random.default_rng(3)
    u, u_pos = rng.normal(0, truth.question_sd, (2, 40000))  # own-lean and position effects (TT: no factual)

    def styled_rate(lean):  # own gen-by-QA vs human (lean 1), own long vs own normal (lean 0); both orders
        first = rng.random(u.size) < 1 / (1 + np.exp(-(pw.position + u_pos + (pw.self + u) * lean + pw.style)))
        second = rng.random(u.size) < 1 / (1 + np.exp(-(pw.position + u_pos - (pw.self + u) * lean - pw.style)))
        return (first.mean() + 1 - second.mean()) / 2
    exact = SPT.style_truths(truth)
    assert exact["gen_by_qa"] == pytest.approx(styled_rate(1), abs=0.01)
    assert exact["long"] == pytest.approx(styled_rate(0), abs=0.01)
    assert abs(exact["long"] - 0.5) > 0.1  # the planted style preference moves it


def test_an_untested_row_whose_interval_excludes_the_null_on_the_wrong_side_is_not_detected():
    truths = {"a.rate": ("13", 0.70, 0.5)}  # a row without a test (p blank): detection by its interval
    wrong_side = pd.DataFrame([_finding("a.rate", 0.30, 0.25, 0.35, None, None)])
    row = compare(wrong_side, truths).iloc[0]
    assert row["detected"] == 0.0
    right_side = pd.DataFrame([_finding("a.rate", 0.69, 0.64, 0.74, None, None)])
    assert compare(right_side, truths).iloc[0]["detected"] == 1.0
