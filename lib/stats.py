"""Intervals and tests shared by every study (one place, so every table says the same thing)."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats as sps


def wilson_ci(k: int, n: int, alpha: float = 0.05) -> tuple[float, float]:
    """Wilson score interval for a proportion k/n (NaNs when n == 0)."""
    if n == 0:
        return (float("nan"), float("nan"))
    ci = sps.binomtest(int(k), int(n)).proportion_ci(confidence_level=1 - alpha, method="wilson")
    return (float(ci.low), float(ci.high))


def binom_test(k: int, n: int, p: float = 0.5) -> float:
    """Two-sided exact binomial test of k successes in n against rate p (NaN when n == 0)."""
    if n == 0:
        return float("nan")
    return float(sps.binomtest(int(k), int(n), p).pvalue)


def holm(pvalues) -> np.ndarray:
    """Holm-Bonferroni adjusted p-values (statsmodels); NaNs stay NaN and do not count as tests."""
    from statsmodels.stats.multitest import multipletests

    p = np.asarray(pvalues, dtype=float)
    out = np.full_like(p, np.nan)
    ok = ~np.isnan(p)
    if ok.any():
        out[ok] = multipletests(p[ok], method="holm")[1]
    return out


def bootstrap_ci(values, func=np.mean, n_boot: int = 2000, seed: int = 0, alpha: float = 0.05):
    """Percentile bootstrap interval of func(values) at the expanded level (`expanded_alpha`: the
    plain percentile interval is too narrow for few values); NaNs when there are fewer than 2 values."""
    v = np.asarray(values, dtype=float)
    v = v[~np.isnan(v)]
    if len(v) < 2:
        return (float("nan"), float("nan"))
    res = sps.bootstrap((v,), func, n_resamples=n_boot, confidence_level=1 - expanded_alpha(alpha, len(v)),
                        method="percentile", random_state=np.random.default_rng(seed))
    return (float(res.confidence_interval.low), float(res.confidence_interval.high))


def ttest_table(a, b, paired: bool) -> pd.DataFrame:
    """pingouin t-test of a vs b: paired over the same items, or Welch (unequal variances) if not."""
    import pingouin as pg

    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if paired:
        if len(a) != len(b):
            raise ValueError(f"A paired t-test needs equal lengths; got {len(a)} and {len(b)}.")
        keep = ~(np.isnan(a) | np.isnan(b))
        a, b = a[keep], b[keep]
    else:
        a, b = a[~np.isnan(a)], b[~np.isnan(b)]
    # correction=True forces Welch for unpaired tests; pingouin's "auto" only uses it when sizes differ.
    res = pg.ttest(a, b, paired=paired, correction=(not paired))
    res = res.rename(columns={"T": "t", "p_val": "p", "p-val": "p", "cohen_d": "cohen_d", "cohen-d": "cohen_d"})
    res.insert(0, "test", "paired t" if paired else "Welch t")
    return res.reset_index(drop=True)


# --- clustered judgments -------------------------------------------------------------------------
# One question (item, pair) often gives several judgments (orders, factuality combos, authors). Those
# judgments are correlated, so intervals and tests resample or model the question, never the judgment.

CLUSTER_METHODS = ("auto", "bootstrap", "gee")


def _codes(labels, n: int) -> np.ndarray:
    """Integer codes of cluster labels (every judgment its own cluster when labels is None); a
    missing label is an error, since all missing labels would silently become one cluster."""
    if labels is None:
        return np.arange(n)
    series = pd.Series(list(labels), dtype=object)
    missing = int(series.isna().sum())
    if missing:
        raise ValueError(f"{missing} of {len(series)} cluster labels are missing (NaN/None): give every "
                         "judgment its unit (question, item or pair id) before computing intervals.")
    return pd.factorize(series.astype(str))[0]


def _cluster_sums(values: np.ndarray, codes: np.ndarray, mask: np.ndarray,
                  weight: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per-cluster sum and count of the values selected by mask (zeros for clusters without any); with
    `weight`, the weighted sum and the sum of weights."""
    k = int(codes.max()) + 1 if len(codes) else 0
    w = np.ones(len(values)) if weight is None else weight
    sums = np.bincount(codes[mask], weights=(w * values)[mask], minlength=k)
    counts = np.bincount(codes[mask], weights=w[mask], minlength=k)
    return sums, counts


MIN_CI_UNITS = 10  # below this many units a resampling interval under-covers: no interval, a note instead
# up to this many units the sign-flip test counts every one of the 2**k sign vectors (as two halves of at
# most 2**16 sums each: about 30 ms at 32 units); above, a saddlepoint approximation of the same count
EXACT_FLIP_MAX = 32
TOO_FEW_UNITS = f"too few units, fewer than {MIN_CI_UNITS}"
TOO_FEW_PER_STRATUM = f"too few units per stratum, a weighted stratum has fewer than {MIN_CI_UNITS}"
NO_SPREAD = "no spread between units"


def shown_interval(n: int, low: float, high: float, note: str = "") -> tuple[float, float, str]:
    """(low, high, reason): the one rule for which 95% interval a reader is shown, in findings rows,
    tables and figures alike: none below MIN_CI_UNITS units (TOO_FEW_UNITS) and none of zero width
    (NO_SPREAD: no spread is no certainty); otherwise as given. A blank interval of 1 to
    MIN_CI_UNITS - 1 units gets the same reason when `note` gives none (n = 0 says so itself)."""
    low, high = float("nan") if low is None else float(low), float("nan") if high is None else float(high)
    n = 0 if n is None or n != n else int(n)
    if math.isnan(low) or math.isnan(high):
        return float("nan"), float("nan"), note or (TOO_FEW_UNITS if 0 < n < MIN_CI_UNITS else "")
    if n < MIN_CI_UNITS:
        return float("nan"), float("nan"), TOO_FEW_UNITS
    if high - low <= 1e-12:
        return float("nan"), float("nan"), note or NO_SPREAD
    return low, high, note
ALL_SAME_RATE = "all units equal: Wilson interval over units"
ALL_SAME_DIFF = "all units equal: no interval (nothing varies between units)"


def sign_flip_p(deviations) -> float:
    """Two-sided p that the unit deviations (each unit's share of estimate - null) are symmetric
    about 0, i.e. the share of the 2**k sign vectors whose flipped sum is at least as far from 0:
    counted exactly up to EXACT_FLIP_MAX units, above by a saddlepoint approximation of that count
    (continuity-corrected); never below 2 / 2**k', the smallest p any sign-flip test can give (k' the nonzero deviations)."""
    d = np.asarray(deviations, dtype=float)
    d = d[~np.isnan(d)]
    if len(d) == 0:
        return float("nan")
    # ties at the observed sum count as extreme; the tolerance absorbs rounding in the sums
    tol = 1e-12 * max(1.0, np.abs(d).sum())
    threshold = abs(d.sum()) - tol
    if threshold <= 0:
        return 1.0
    if len(d) <= EXACT_FLIP_MAX:
        return _exact_flip_p(d, threshold)
    floor = 2.0 ** (1 - int(np.count_nonzero(d)))
    if threshold >= np.abs(d).sum() - 2 * tol:
        return floor  # every unit deviates the same way: only it and its mirror image reach the sum
    # continuity correction: the flipped sums are discrete (many units alike when each gives one 0/1
    # judgment), so take the tail from halfway to the next sum below; without it the p is up to 30% too
    # small on such data
    return float(min(1.0, max(2 * _saddlepoint_tail(d, threshold - _half_step_below(d, tol)), floor)))


def _half_step_below(d: np.ndarray, tol: float) -> float:
    """Half the distance from the observed sum to the nearest flipped sum below it that one flip (a
    unit pulling the sum's way) or one swap (that unit flipped, one pulling the other way flipped too)
    reaches: the lattice's half step when the deviations share a grid, about 0 when they are spread."""
    toward = np.sort(np.abs(d[np.sign(d) == np.sign(d.sum())]))
    against = np.sort(np.abs(d[(np.sign(d) != np.sign(d.sum())) & (d != 0)]))
    step = toward[0]
    below = np.searchsorted(against, toward - tol, side="left") - 1  # the largest against-unit below each
    if (below >= 0).any():
        step = min(step, float(np.min(toward[below >= 0] - against[below[below >= 0]])))
    return step


def _signed_sums(d: np.ndarray) -> np.ndarray:
    """The sums of d under all 2**len(d) sign vectors, built by doubling."""
    sums = np.zeros(1)
    for x in d:
        sums = np.concatenate([sums + x, sums - x])
    return sums


def _exact_flip_p(d: np.ndarray, threshold: float) -> float:
    """Share of all sign vectors whose flipped sum has |sum| >= threshold, counted exactly: every sum of
    the first half is paired with the sorted sums of the second (2 x 2**(k/2) sums, not 2**k)."""
    first, second = _signed_sums(d[: len(d) // 2]), np.sort(_signed_sums(d[len(d) // 2:]))
    above = len(second) - np.searchsorted(second, threshold - first, side="left")
    below = np.searchsorted(second, -threshold - first, side="right")
    return float((above.sum() + below.sum()) / (len(first) * len(second)))


def _saddlepoint_tail(d: np.ndarray, s: float) -> float:
    """P(sum of e_i d_i >= s) for independent fair signs e_i, by the saddlepoint approximation in
    Barndorff-Nielsen's r* form (the cumulant generating function of the sum is sum log cosh(t d_i);
    Robinson 1982 for randomization tests). Unlike a t approximation it follows the sign-flip
    distribution itself, whose tails are lighter than normal when a few units dominate."""
    from scipy.optimize import brentq

    a = np.abs(d[d != 0])
    if s <= 0:
        return 0.5 if s == 0 else 1.0 - _saddlepoint_tail(d, -s)  # the sign-flip sum is symmetric about 0
    slope = lambda t: float(np.sum(a * np.tanh(t * a))) - s  # K'(t) - s
    high = 1.0 / a.max()
    while slope(high) < 0:
        high *= 2
    t = brentq(slope, 0.0, high, xtol=1e-300, rtol=1e-13)
    cgf = float(np.sum(np.logaddexp(t * a, -t * a) - np.log(2.0)))
    w = np.sqrt(max(2 * (t * s - cgf), 0.0))
    with np.errstate(over="ignore"):  # cosh overflows far out, where a unit's term is 0 anyway
        u = t * np.sqrt(float(np.sum((a / np.cosh(t * a)) ** 2)))
    if w < 1e-8 or u <= 0:
        return float(sps.norm.sf(s / np.sqrt(np.sum(a ** 2))))  # at the centre: the normal tail
    return float(sps.norm.sf(w + np.log(u / w) / w))


def expanded_alpha(alpha: float, k: int, df: int | None = None) -> float:
    """Tail level for a percentile bootstrap over k units, widened so its z matches
    sqrt(k / (k - 1)) t_{df} (Hesterberg's expanded percentile interval; df = k - 1 unless given):
    the plain percentile interval is too narrow for small k."""
    if k < 2:
        return alpha
    df = k - 1 if df is None else max(int(df), 1)
    z = np.sqrt(k / (k - 1)) * sps.t.ppf(1 - alpha / 2, df)
    return float(2 * sps.norm.sf(z))


def unit_wilson(estimate: float, k: int, alpha: float = 0.05) -> tuple[float, float]:
    """Wilson interval for a mean of k unit means in [0, 1]: a unit mean with mean p has variance at
    most p(1 - p), so treating each unit as one Bernoulli draw is conservative."""
    from statsmodels.stats.proportion import proportion_confint

    lo, hi = proportion_confint(estimate * k, k, alpha=alpha, method="wilson")
    # statsmodels' closed form can land one rounding step inside an estimate of 0 or 1 (k = 7: upper
    # bound 0.9999999999999999 at 1.0); the interval's true bound there is the estimate itself
    return float(min(lo, estimate)), float(max(hi, estimate))


def korn_graubard(estimate: float, deviations, n_judgments: int, alpha: float = 0.05) -> tuple[float, float]:
    """Clopper-Pearson interval at the effective sample size of a clustered rate (Korn & Graubard
    1998): n_eff = p(1 - p) / var, var the cluster-robust variance from each unit's deviation
    (sum of deviations^2 x k / (k - 1)), shrunk by (z / t_{k-1})^2 for few units. Bounded in [0, 1]
    and asymmetric near 0 or 1, where a percentile bootstrap of few units is too narrow."""
    d = np.asarray(deviations, dtype=float)
    k = len(d)
    var = k / (k - 1) * float(np.sum(d ** 2)) if k >= 2 else 0.0
    if var <= 0 or not 0 < estimate < 1:
        return float("nan"), float("nan")
    n_eff = min(estimate * (1 - estimate) / var, float(n_judgments))
    n_eff *= (sps.norm.ppf(1 - alpha / 2) / sps.t.ppf(1 - alpha / 2, k - 1)) ** 2
    x = estimate * n_eff
    low = float(sps.beta.ppf(alpha / 2, x, n_eff - x + 1))
    high = float(sps.beta.ppf(1 - alpha / 2, x + 1, n_eff - x))
    return low, high


def cluster_bootstrap(values, clusters=None, null: float | None = None, contrast=None, strata=None,
                      weights: dict | None = None, n_boot: int = 2000, seed: int = 0,
                      alpha: float = 0.05, rate: bool | None = None, judgment_weights=None) -> dict:
    """Mean of judgments (or a contrast of two groups' means, or a weighted mean of strata means)
    with a cluster-bootstrap interval and a cluster sign-flip p-value against `null`.

    values: one number per judgment (0/1 for rates); clusters: the unit each judgment belongs to
    (question, item or pair), resampled whole with replacement. contrast: +1 / -1 per judgment, the
    estimate is mean(+1 group) - mean(-1 group) (null 0 by default). strata + weights: the estimate
    is sum_h w_h mean_h / sum_h w_h and clusters are resampled within each stratum.
    judgment_weights: one weight per judgment, every mean a weighted mean (sum w y / sum w), and each
    cluster's deviation sum w (y - null), so a weighted rate's deviations stay symmetric under the null.
    Interval: percentile of the resampled estimates at the expanded level (`expanded_alpha`); none
    below MIN_CI_UNITS units (with strata: in any weighted stratum); where every unit gives the same value, the Wilson interval over units
    for a rate and none for a difference (`ci_note` says which; `rate=False` marks a difference
    whose values happen to lie in [0, 1], None infers a rate from values in [0, 1] without `contrast`). p: `sign_flip_p` of each cluster's
    share of estimate - null (exact up to EXACT_FLIP_MAX clusters, a saddlepoint approximation above)."""
    v = np.asarray(values, dtype=float)
    ok = ~np.isnan(v)
    codes_all = _codes(clusters, len(v))
    v, codes = v[ok], codes_all[ok]
    jw = np.ones(len(v)) if judgment_weights is None else np.asarray(judgment_weights, dtype=float)[ok]
    sign = None if contrast is None else np.asarray(contrast, dtype=float)[ok]
    strat = np.zeros(len(v), dtype=int) if strata is None else _codes(np.asarray(list(strata), dtype=object)[ok], len(v))
    stratum_names = (["all"] if strata is None else
                     list(pd.unique(pd.Series(np.asarray(list(strata), dtype=object)[ok]).astype(str))))
    out = {"estimate": np.nan, "ci_low": np.nan, "ci_high": np.nan, "p": np.nan,
           "n_items": int(len(np.unique(codes))), "n_judgments": int(len(v)), "method": "cluster bootstrap",
           "ci_note": ""}
    if not len(v):
        return out
    rng = np.random.default_rng(seed)
    if null is None and contrast is not None:
        null = 0.0
    parts = [_stratum(v[strat == h], codes[strat == h], None if sign is None else sign[strat == h], null, rng, n_boot,
                      jw[strat == h]) for h in range(int(strat.max()) + 1)]
    estimates, boots, devs, spreads = zip(*parts)
    w = np.ones(1) if strata is None else np.array([float((weights or {}).get(name, 1.0 if weights is None else 0.0))
                                                     for name in stratum_names])
    est = float(np.sum(w * np.array(estimates)) / w.sum()) if w.sum() else np.nan
    boot = np.sum([wi * b for wi, b in zip(w, boots)], axis=0) / w.sum() if w.sum() else np.array([])
    boot = boot[~np.isnan(boot)]
    out["estimate"] = est
    k = out["n_items"]
    # every unit alike (or every resample alike): a percentile interval would have zero width
    sizes = [len(np.unique(codes[strat == h])) for h, wi in enumerate(w) if wi] or [0]  # units per weighted stratum
    all_same = (not any(sp > 1e-12 for wi, sp in zip(w, spreads) if wi)) or not len(boot) or np.ptp(boot) <= 1e-12
    if rate is None:
        rate = sign is None and bool(((v >= 0) & (v <= 1)).all())
    if all_same and rate and not np.isnan(est):
        out["ci_low"], out["ci_high"] = unit_wilson(est, k, alpha)
        out["ci_note"] = ALL_SAME_RATE
    elif all_same:
        out["ci_note"] = ALL_SAME_DIFF
    elif k < MIN_CI_UNITS:
        out["ci_note"] = TOO_FEW_UNITS
    elif strata is not None and min(sizes) < MIN_CI_UNITS:
        # each stratum is resampled on its own: a stratum of a few units under-covers as few units do
        out["ci_note"] = TOO_FEW_PER_STRATUM
    elif rate and strata is None and 0 < est < 1:
        # a plain clustered rate: Korn-Graubard, which keeps its level near 0 and 1 at few units
        out["ci_low"], out["ci_high"] = korn_graubard(est, _centred(v, codes, est, jw), len(v), alpha)
        out["method"] = "cluster bootstrap / Korn-Graubard"
    elif len(boot):
        # within strata each weighted stratum is resampled on its own: expand by its smallest one, with
        # the degrees of freedom left after estimating one mean per stratum
        a = expanded_alpha(alpha, min(sizes), df=k - len(sizes)) if strata is not None else expanded_alpha(alpha, k)
        out["ci_low"], out["ci_high"] = (float(x) for x in np.quantile(boot, [a / 2, 1 - a / 2]))
    if null is not None and k >= 2 and w.sum():
        # every cluster's share of (estimate - null), strata weighted as the estimate weighs them
        d = np.concatenate([wi / w.sum() * dev for wi, dev in zip(w, devs)])
        out["p"] = sign_flip_p(d)
    return out


def _centred(v: np.ndarray, codes: np.ndarray, estimate: float, weight: np.ndarray) -> np.ndarray:
    """Each cluster's share of (its judgments - estimate), weighted: the terms of a cluster-robust variance."""
    sums, counts = _cluster_sums(v, pd.factorize(codes)[0], np.ones(len(v), bool), weight)
    return (sums - estimate * counts) / counts.sum()


def _stratum(v: np.ndarray, codes: np.ndarray, sign, null, rng, n_boot: int, weight: np.ndarray) -> tuple:
    """One stratum of `cluster_bootstrap`: (estimate, bootstrap estimates, each cluster's share of
    estimate - null, spread of the units: 0 when every unit gives the same value). The estimate is
    the (weighted) mean, or with `sign` the +1 group's mean minus the -1's."""
    groups = [np.ones(len(v), bool)] if sign is None else [sign > 0, sign < 0]
    local = pd.factorize(codes)[0]  # this stratum's clusters as 0..k-1
    sums = [_cluster_sums(v, local, g, weight) for g in groups]
    k = int(local.max()) + 1
    draws = rng.multinomial(k, np.full(k, 1.0 / k), size=n_boot)  # how often each cluster is drawn
    means = [s.sum() / c.sum() if c.sum() else np.nan for s, c in sums]
    with np.errstate(invalid="ignore", divide="ignore"):
        boot = [(draws @ s) / (draws @ c) for s, c in sums]
    if sign is None:
        center = null if null is not None else means[0]
        unit_means = sums[0][0][sums[0][1] > 0] / sums[0][1][sums[0][1] > 0]
        return means[0], boot[0], (sums[0][0] - center * sums[0][1]) / sums[0][1].sum(), float(np.ptp(unit_means))
    # under the null both groups share one mean: each cluster's part of the difference from it
    pooled = (sums[0][0].sum() + sums[1][0].sum()) / (sums[0][1].sum() + sums[1][1].sum())
    dev = [(s - pooled * c) / max(c.sum(), 1e-300) for s, c in sums]
    own = [(s - m * c) / max(c.sum(), 1e-300) for (s, c), m in zip(sums, means)]  # each unit's part around the estimate
    return means[0] - means[1], boot[0] - boot[1], dev[0] - dev[1], float(np.ptp(own[0] - own[1]))


def gee_mean(values, clusters, null: float | None = None, binary: bool | None = None,
             alpha: float = 0.05) -> dict:
    """The same mean by a GEE (statsmodels, exchangeable working correlation, robust errors): logit
    link for 0/1 rates, identity for scores; Wald interval and p against `null` on the link scale."""
    import statsmodels.api as sm

    v = np.asarray(values, dtype=float)
    ok = ~np.isnan(v)
    v, codes = v[ok], _codes(None if clusters is None else np.asarray(list(clusters), dtype=object)[ok], int(ok.sum()))
    out = {"estimate": float(v.mean()) if len(v) else np.nan, "ci_low": np.nan, "ci_high": np.nan,
           "p": np.nan, "n_items": int(len(np.unique(codes))), "n_judgments": int(len(v)), "method": "GEE",
           "ci_note": ""}
    binary = bool(np.isin(v, (0.0, 1.0)).all()) if binary is None else binary
    if out["n_items"] < 2 or np.ptp(v) == 0:
        out["ci_note"] = "no variation: GEE has nothing to estimate"
        return out
    order = np.argsort(codes, kind="stable")  # GEE wants each cluster's rows together
    family = sm.families.Binomial() if binary else sm.families.Gaussian()
    fit = sm.GEE(v[order], np.ones((len(v), 1)), groups=codes[order], family=family,
                 cov_struct=sm.cov_struct.Exchangeable()).fit()
    b, se = float(fit.params[0]), float(fit.bse[0])
    z = sps.norm.ppf(1 - alpha / 2)
    inv = (lambda x: 1 / (1 + np.exp(-x))) if binary else (lambda x: x)
    link = (lambda m: np.log(m / (1 - m))) if binary else (lambda m: m)
    out.update({"estimate": float(inv(b)), "ci_low": float(inv(b - z * se)), "ci_high": float(inv(b + z * se))})
    if null is not None and se > 0:
        out["p"] = float(max(2 * sps.norm.sf(abs(b - link(null)) / se), 2.0 ** (1 - out["n_items"])))
    return out


def clustered_mean(values, clusters=None, null: float | None = None, method: str = "auto",
                   n_boot: int = 2000, seed: int = 0, alpha: float = 0.05, rate: bool | None = None) -> dict:
    """A rate or mean with the interval and test its unit calls for: with `method="auto"`, the plain
    Wilson interval and binomial test where every unit gives one 0/1 judgment, else the cluster
    bootstrap (`cluster_bootstrap`); `"gee"` asks `gee_mean`. Keys: estimate, ci_low, ci_high, p,
    n_items, n_judgments, method, ci_note (why an interval is blank or not a bootstrap's)."""
    if method not in CLUSTER_METHODS:
        raise ValueError(f"method={method!r}; use one of {CLUSTER_METHODS}.")
    v = np.asarray(values, dtype=float)
    ok = ~np.isnan(v)
    codes = _codes(None if clusters is None else np.asarray(list(clusters), dtype=object)[ok], int(ok.sum()))
    one_each = len(np.unique(codes)) == int(ok.sum())
    if method == "gee":
        return gee_mean(v, clusters, null, alpha=alpha)
    if method == "auto" and one_each and rate is not False and np.isin(v[ok], (0.0, 1.0)).all():
        n, k = int(ok.sum()), int(v[ok].sum())
        lo, hi = wilson_ci(k, n, alpha)
        return {"estimate": k / n if n else np.nan, "ci_low": lo, "ci_high": hi,
                "p": binom_test(k, n, null) if null is not None else np.nan,
                "n_items": n, "n_judgments": n, "method": "Wilson / binomial", "ci_note": ""}
    return cluster_bootstrap(v, clusters, null=null, n_boot=n_boot, seed=seed, alpha=alpha, rate=rate)
