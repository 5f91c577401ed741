"""Statistics that hold at paper scale: textbook values, a sign-flip p without a floor, no zero-width
interval, no interval below 10 units, missing cluster labels refused, a GEE p that is never 0."""
import itertools

import numpy as np
import pytest

from lib import stats


def test_wilson_binomial_and_clopper_pearson_match_textbook_values():
    # Wilson 8 of 10 (Agresti & Coull 1998; Newcombe 1998 table I): [0.4902, 0.9433]
    assert stats.wilson_ci(8, 10) == pytest.approx((0.4902, 0.9433), abs=5e-5)
    # Clopper-Pearson 8 of 10 is wider, [0.4439, 0.9748]: a wilson_ci computing it must fail above
    from scipy.stats import binomtest
    cp = binomtest(8, 10).proportion_ci(method="exact")
    assert (cp.low, cp.high) == pytest.approx((0.4439, 0.9748), abs=5e-5)
    # two-sided exact binomial: P(X <= 2) + P(X >= 8) for Bin(10, 1/2) = 112 / 1024 = 0.109375
    assert stats.binom_test(8, 10) == pytest.approx(112 / 1024)
    assert stats.binom_test(2, 10) == pytest.approx(112 / 1024)
    # 0 of 5 against 0.5: 2 / 32, not the one-sided 1 / 32
    assert stats.binom_test(0, 5) == pytest.approx(2 / 32)


def _rates(rng, n_items, per_item, mean, icc=0.3):
    """per_item 0/1 judgments of n_items questions, each question's rate ~ Beta with the given mean
    and within-question correlation icc."""
    s = 1 / icc - 1
    r = rng.beta(mean * s, (1 - mean) * s, n_items)
    y = (rng.random((n_items, per_item)) < r[:, None]).astype(float).ravel()
    return y, np.repeat(np.arange(n_items), per_item)


def test_a_strong_rate_over_200_questions_survives_holm_over_300_tests():
    y, items = _rates(np.random.default_rng(1), 200, 6, 0.91)
    c = stats.cluster_bootstrap(y, items, null=0.5)
    assert c["estimate"] == pytest.approx(0.91, abs=0.03)
    assert c["p"] < 1e-6  # the old Monte Carlo flips stopped at 1 / 2001
    family = np.r_[c["p"], np.full(299, 0.5)]
    assert stats.holm(family)[0] < 0.001  # even `***` is reachable


def test_exact_sign_flips_equal_a_brute_force_count():
    d = np.array([0.3, -0.1, 0.2, 0.25, -0.05, 0.15, 0.1])
    hits = sum(abs(np.dot(s, d)) >= abs(d.sum()) - 1e-12 for s in itertools.product((-1, 1), repeat=len(d)))
    assert stats.sign_flip_p(d) == pytest.approx(hits / 2 ** len(d))
    assert stats.sign_flip_p(np.full(10, 0.1)) == pytest.approx(2 / 2 ** 10)  # all agree: the smallest p
    assert stats.sign_flip_p(np.full(3, 0.1)) == pytest.approx(0.25)


def _brute_force_p(d):
    """Share of all 2**k sign vectors with |flipped sum| >= |sum|, one block of sign rows at a time."""
    hits = 0
    for block in range(0, 2 ** len(d), 2 ** 14):
        rows = np.arange(block, min(block + 2 ** 14, 2 ** len(d)))
        signs = 1.0 - 2.0 * ((rows[:, None] >> np.arange(len(d))) & 1)
        hits += int(np.sum(np.abs(signs @ d) >= abs(d.sum()) - 1e-12))
    return hits / 2 ** len(d)


def test_exact_enumeration_reaches_32_units_and_equals_a_brute_force_count():
    assert stats.EXACT_FLIP_MAX >= 30  # the benchmark's 30-question cells are exact
    d = np.round(np.random.default_rng(5).normal(0.15, 1, 21), 2)  # rounded: ties at the observed sum
    assert stats.sign_flip_p(d) == pytest.approx(_brute_force_p(d), rel=1e-12)
    # equal magnitudes make it the sign test: 20 of 30 units above 0 is the two-sided binomial p
    d = np.r_[np.full(20, 0.1), np.full(10, -0.1)]
    assert stats.sign_flip_p(d) == pytest.approx(stats.binom_test(20, 30), rel=1e-9)
    k = stats.EXACT_FLIP_MAX
    d = np.r_[np.full(k - 9, 0.1), np.full(9, -0.1)]
    assert stats.sign_flip_p(d) == pytest.approx(stats.binom_test(k - 9, k), rel=1e-9)


def test_above_exact_enumeration_the_saddlepoint_p_follows_the_exact_count_without_a_floor():
    k = stats.EXACT_FLIP_MAX + 1
    assert stats.sign_flip_p(np.full(k, 0.1)) == pytest.approx(2.0 ** (1 - k))  # the smallest p of k units
    assert stats.sign_flip_p(np.full(300, 0.1)) == pytest.approx(2.0 ** -299)
    rng = np.random.default_rng(3)
    # heavy-tailed deviations (a few units dominate): the exact count, from the same two-halves
    # enumeration, is the truth; a t-test is off by a factor here, the saddlepoint by a few percent
    for d in (rng.standard_t(2, 34) + 0.4, rng.normal(0.3, 1, 34), rng.exponential(1, 34) * rng.choice([-1, 1], 34)):
        exact = stats._exact_flip_p(d, abs(d.sum()) - 1e-12)
        assert stats.sign_flip_p(d) == pytest.approx(exact, rel=0.06), (exact, stats.sign_flip_p(d))
    # one 0/1 judgment per unit, 70 units: the sign test; continuity-corrected, the p is not too small
    d = np.r_[np.full(45, 0.1), np.full(25, -0.1)]
    assert stats.sign_flip_p(d) == pytest.approx(stats.binom_test(45, 70), rel=0.03)


def test_all_same_units_give_wilson_over_units_for_rates_and_none_for_differences():
    items = np.repeat(np.arange(30), 6)
    c = stats.cluster_bootstrap(np.ones(180), items, null=0.5)
    assert (c["ci_low"], c["ci_high"]) == pytest.approx((0.886, 1.0), abs=1e-3)  # Wilson 30 of 30
    assert c["ci_note"] == stats.ALL_SAME_RATE
    half = stats.cluster_bootstrap(np.tile([1.0, 0.0], 90), items)  # every question at 0.5
    assert half["ci_low"] < 0.5 < half["ci_high"]
    diff = stats.clustered_mean(np.zeros(180), items, null=0.0, method="bootstrap", rate=False)
    assert np.isnan(diff["ci_low"]) and diff["ci_note"] == stats.ALL_SAME_DIFF
    scores = stats.cluster_bootstrap(np.full(180, 3.0), items)  # scores, not a rate
    assert np.isnan(scores["ci_low"]) and scores["ci_note"] == stats.ALL_SAME_DIFF


def test_below_ten_units_there_is_no_interval_and_the_note_says_why():
    y, items = _rates(np.random.default_rng(4), 9, 6, 0.5)
    c = stats.cluster_bootstrap(y, items, null=0.5)
    assert np.isnan(c["ci_low"]) and np.isnan(c["ci_high"]) and c["ci_note"] == stats.TOO_FEW_UNITS
    y, items = _rates(np.random.default_rng(4), 10, 6, 0.5)
    c = stats.cluster_bootstrap(y, items, null=0.5)
    assert c["ci_low"] < c["estimate"] < c["ci_high"] and c["ci_note"] == ""


def test_the_expanded_percentile_interval_is_wider_than_the_plain_one_at_few_units():
    assert stats.expanded_alpha(0.05, 10) < 0.02
    assert stats.expanded_alpha(0.05, 10_000) == pytest.approx(0.05, abs=1e-3)


def test_missing_cluster_labels_are_refused_not_merged():
    with pytest.raises(ValueError, match="2 of 4 cluster labels are missing"):
        stats.cluster_bootstrap([1, 0, 1, 1], ["q1", None, float("nan"), "q2"], null=0.5)
    with pytest.raises(ValueError, match="cluster labels are missing"):
        stats.clustered_mean([1, 0, 1, 1], ["q1", None, "q1", "q2"], null=0.5)


def test_gee_never_reports_p_zero_on_near_degenerate_data():
    # 40 questions of 6 judgments, one single 0: the Wald z is huge, p would underflow to 0.0
    y = np.ones(240)
    y[0] = 0.0
    g = stats.gee_mean(y, np.repeat(np.arange(40), 6), null=0.5)
    assert g["p"] > 0 and g["p"] >= 2.0 ** (1 - 40)


def test_no_zero_width_interval_on_degenerate_inputs():
    cases = [(np.ones(60), np.repeat(np.arange(10), 6)), (np.zeros(60), np.repeat(np.arange(10), 6)),
             (np.tile([1.0, 0.0], 30), np.repeat(np.arange(10), 6)), (np.ones(30), np.arange(30))]
    for values, items in cases:
        for method in ("auto", "bootstrap"):
            c = stats.clustered_mean(values, items, null=0.5, method=method)
            assert np.isnan(c["ci_low"]) or c["ci_high"] - c["ci_low"] > 0.01, (values[:4], method, c)


def test_at_ten_units_the_interval_covers_at_least_93_percent():
    # 400 data sets of 10 questions x 6 judgments, true rate 0.8, within-question correlation 0.6:
    # the plain percentile bootstrap covers about 0.85 here, Korn-Graubard about 0.96
    rng = np.random.default_rng(11)
    cover = 0
    for s in range(400):
        y, items = _rates(rng, 10, 6, 0.8, icc=0.6)
        c = stats.cluster_bootstrap(y, items, n_boot=999, seed=s)
        cover += c["ci_low"] <= 0.8 <= c["ci_high"]
    assert cover / 400 >= 0.93


def test_a_weighted_stratum_of_few_units_gives_no_interval():
    rng = np.random.default_rng(8)
    values = rng.integers(0, 3, 30) / 2  # a pair's accuracy over two orders: 0, 0.5 or 1
    few = stats.cluster_bootstrap(values[:12], np.arange(12), strata=list("abc") * 4, weights={"a": 1, "b": 2, "c": 3})
    assert np.isnan(few["ci_low"]) and few["ci_note"] == stats.TOO_FEW_PER_STRATUM  # 12 units, 4 per stratum
    enough = stats.cluster_bootstrap(values, np.arange(30), strata=list("abc") * 10, weights={"a": 1, "b": 2, "c": 3})
    assert enough["ci_low"] < enough["estimate"] < enough["ci_high"] and enough["ci_note"] == ""
