"""Clustered judgments: the cluster bootstrap and sign-flip test, the GEE cross-check, Holm."""
import numpy as np
import pytest

from lib import stats


def _clustered(rng, n_items=40, per_item=8, a=0.5):
    """Judgments of n_items questions, per_item each; each question's own rate ~ Beta(a, a) (mean 0.5,
    within-question correlation 1 / (2a + 1): 0.5 for a = 0.5)."""
    rates = rng.beta(a, a, size=n_items)
    y = (rng.random((n_items, per_item)) < rates[:, None]).astype(float).ravel()
    return y, np.repeat(np.arange(n_items), per_item)


def test_under_the_null_the_clustered_test_keeps_its_level_and_the_naive_one_does_not(capsys):
    rng = np.random.default_rng(20)
    n_sets, naive, clustered = 300, 0, 0
    for s in range(n_sets):
        y, items = _clustered(rng)
        naive += stats.binom_test(int(y.sum()), len(y)) < 0.05
        clustered += stats.cluster_bootstrap(y, items, null=0.5, n_boot=999, seed=s)["p"] < 0.05
    with capsys.disabled():
        print(f"\nrejection rate at 5% over {n_sets} null data sets (40 questions x 8 judgments, "
              f"within-question correlation 0.5): naive binomial {naive / n_sets:.3f}, "
              f"cluster sign-flip {clustered / n_sets:.3f}")
    assert naive / n_sets > 0.2
    assert 0.01 <= clustered / n_sets <= 0.09


def test_the_naive_interval_is_much_narrower_than_the_clustered_one():
    y, items = _clustered(np.random.default_rng(3))
    lo, hi = stats.wilson_ci(int(y.sum()), len(y))
    c = stats.cluster_bootstrap(y, items)
    assert (c["n_items"], c["n_judgments"]) == (40, 320)
    assert (c["ci_high"] - c["ci_low"]) > 1.6 * (hi - lo)


def test_bootstrap_and_gee_agree_on_a_rate_and_on_a_score():
    rng = np.random.default_rng(5)
    y, items = _clustered(rng, n_items=60, per_item=6, a=1.0)
    boot, gee = stats.cluster_bootstrap(y, items, null=0.5), stats.gee_mean(y, items, null=0.5)
    assert gee["estimate"] == pytest.approx(boot["estimate"], abs=0.01)
    assert gee["ci_low"] == pytest.approx(boot["ci_low"], abs=0.02)
    assert gee["ci_high"] == pytest.approx(boot["ci_high"], abs=0.02)
    scores = np.repeat(rng.normal(3, 1, 60), 4) + rng.normal(0, 0.5, 240)
    sitems = np.repeat(np.arange(60), 4)
    b, g = stats.cluster_bootstrap(scores, sitems, null=3.0), stats.clustered_mean(scores, sitems, 3.0, method="gee")
    assert g["method"] == "GEE" and g["ci_low"] == pytest.approx(b["ci_low"], abs=0.05)
    assert g["ci_high"] == pytest.approx(b["ci_high"], abs=0.05)
    assert g["p"] == pytest.approx(b["p"], abs=0.15)


def test_one_judgment_per_item_reduces_to_the_plain_interval():
    y = (np.random.default_rng(7).random(200) < 0.6).astype(float)
    lo, hi = stats.wilson_ci(int(y.sum()), 200)
    c = stats.cluster_bootstrap(y, np.arange(200), null=0.5)
    assert c["ci_low"] == pytest.approx(lo, abs=0.015) and c["ci_high"] == pytest.approx(hi, abs=0.015)
    assert c["p"] == pytest.approx(stats.binom_test(int(y.sum()), 200), abs=0.03)
    plain = stats.clustered_mean(y, np.arange(200), null=0.5)  # auto: Wilson and binomial exactly
    assert plain["method"] == "Wilson / binomial" and plain["ci_low"] == lo


def test_few_identical_clusters_cannot_give_a_small_p():
    # 3 questions, 8 judgments each, all "first passage": 24 binomial judgments give p ~ 1e-7,
    # but 3 questions can say no more than 2 / 2**3
    y, items = np.ones(24), np.repeat([0, 1, 2], 8)
    assert stats.binom_test(24, 24) < 1e-6
    assert stats.cluster_bootstrap(y, items, null=0.5)["p"] > 0.2


def test_contrast_and_strata_weights():
    v = np.array([1, 1, 0, 0, 1, 0], float)
    items = [0, 1, 2, 0, 1, 2]
    c = stats.cluster_bootstrap(v, items, contrast=[1, 1, 1, -1, -1, -1])
    assert c["estimate"] == pytest.approx(2 / 3 - 1 / 3)
    s = stats.cluster_bootstrap([1, 1, 0, 0, 0, 0], [0, 1, 2, 3, 4, 5], strata=list("aabbbb"),
                                weights={"a": 3, "b": 1})
    assert s["estimate"] == pytest.approx(0.75)  # (3 * 1.0 + 1 * 0.0) / 4, not the pooled 1/3
    # every resample gives 0.75: no zero-width interval, but Wilson over the 6 pairs
    assert s["ci_note"] == stats.ALL_SAME_RATE
    assert (s["ci_low"], s["ci_high"]) == pytest.approx(stats.unit_wilson(0.75, 6))
    assert s["ci_low"] < 0.75 < s["ci_high"]


def test_holm_by_hand():
    # sorted 0.01, 0.03, 0.04: 3 x 0.01 = 0.03; 2 x 0.03 = 0.06; 1 x 0.04 = 0.04 -> kept at 0.06
    assert list(stats.holm([0.01, 0.04, 0.03])) == pytest.approx([0.03, 0.06, 0.06])
    out = stats.holm([0.2, float("nan"), 0.01])
    assert np.isnan(out[1]) and list(out[[0, 2]]) == pytest.approx([0.2, 0.02])
    with pytest.raises(ValueError, match="method"):
        stats.clustered_mean([1, 0], method="wilson")
