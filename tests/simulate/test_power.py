"""`lib.simulate.power`: the power of the project's own test from simulated replications, checked
against a textbook case computed exactly (scipy), and the planted headline effects' draws against
the truth the planted model implies."""
import numpy as np
import pytest
from scipy import stats as sps

from lib.simulate import power as P
from lib.simulate.core.truth_file import Truth


def exact_binomial_power(n: int, p1: float, alpha: float) -> float:
    """Power of the two-sided exact binomial test of 0.5, summed over every outcome (scipy)."""
    ks = np.arange(n + 1)
    reject = np.array([sps.binomtest(int(k), n, 0.5).pvalue < alpha and k / n > 0.5 for k in ks])
    return float(sps.binom.pmf(ks, n, p1)[reject].sum())


def one_judgment_each(p1):
    """No clustering: every unit gives one 0/1 judgment (the findings then use the binomial test)."""
    return lambda n, rng: P.Draw((rng.random(n) < p1).astype(float), np.arange(n))


@pytest.mark.parametrize("n,p1,family", [(60, 0.65, 1), (120, 0.65, 4)])
def test_power_recovers_the_exact_binomial_power(n, p1, family):
    reps = 800
    got = P.power(one_judgment_each(p1), n, 0.5, 1.0, family=family, reps=reps, seed=1)
    want = exact_binomial_power(n, p1, P.ALPHA / family)
    assert 0.2 < want < 0.95  # a case where power is neither trivial nor certain
    assert abs(got - want) < 4 * np.sqrt(want * (1 - want) / reps)


def test_n_for_power_interpolates_between_grid_points():
    n80, curve = P.n_for_power(one_judgment_each(0.7), 0.5, 1.0, family=1, reps=600, seed=2,
                               grid=(10, 25, 90, 200))
    exact = {n: exact_binomial_power(n, 0.7, P.ALPHA) for n in (10, 25, 90, 200)}
    assert exact[25] < 0.7 and exact[90] > 0.9  # far from 80% on both sides: the walk's stop is certain
    assert [n for n, _ in curve] == [10, 25, 90]  # stops at the first grid point past 80%
    assert 25 < n80 < 90


def test_null_effect_rejects_at_most_alpha():
    truth = Truth(icc=0.3, format_failure=0.05)
    self_pref = next(e for e in P.effects() if e.parameter == "pairwise.self")
    rate = P.power(lambda n, rng: self_pref.draw(truth, 0.0, n, rng), 60, 0.5, 1.0, reps=400, seed=3)
    assert rate <= 0.05  # one side of a two-sided 5% test


@pytest.mark.parametrize("index", range(5))
def test_each_effects_draw_estimates_its_implied_value(index):
    """Many units of a draw give the value the planted model implies (quadrature, lib.simulate.truth)."""
    truth = Truth(icc=0.15, format_failure=0.05)
    e = P.effects()[index]
    size = e.sizes[-1]
    est, p = P.p_value(e.draw(truth, size, 4000, np.random.default_rng(4)), e.null)
    implied = e.implied(truth, size)
    assert abs(implied - e.null) > 0.02 and abs(est - implied) < 0.015 and p < 1e-6


@pytest.mark.parametrize("arg", ["self-preference=many", "selfpreference=24"])
def test_a_wrong_family_stops_with_one_message(arg, capsys):
    with pytest.raises(SystemExit) as e:
        P.main(["--family", arg, "--reps", "1"])
    assert e.value.code == 2 and "--family" in capsys.readouterr().err


def test_an_effect_that_matches_none_stops_with_one_message(capsys):
    with pytest.raises(SystemExit) as e:
        P.main(["--effect", "no such effect", "--reps", "1"])
    assert e.value.code == 2 and "no effect matches" in capsys.readouterr().err
