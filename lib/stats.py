"""Intervals and tests shared by every study (one place, so every table says the same thing)."""
from __future__ import annotations

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
    """Percentile bootstrap interval of func(values); NaNs when there are fewer than 2 values."""
    v = np.asarray(values, dtype=float)
    v = v[~np.isnan(v)]
    if len(v) < 2:
        return (float("nan"), float("nan"))
    res = sps.bootstrap((v,), func, n_resamples=n_boot, confidence_level=1 - alpha,
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
    """Integer codes of cluster labels (every judgment its own cluster when labels is None)."""
    if labels is None:
        return np.arange(n)
    return pd.factorize(pd.Series(list(labels)).astype(str))[0]


def _cluster_sums(values: np.ndarray, codes: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-cluster sum and count of the values selected by mask (zeros for clusters without any)."""
    k = int(codes.max()) + 1 if len(codes) else 0
    sums = np.bincount(codes[mask], weights=values[mask], minlength=k)
    counts = np.bincount(codes[mask], minlength=k).astype(float)
    return sums, counts


def cluster_bootstrap(values, clusters=None, null: float | None = None, contrast=None, strata=None,
                      weights: dict | None = None, n_boot: int = 2000, seed: int = 0,
                      alpha: float = 0.05) -> dict:
    """Mean of judgments (or a contrast of two groups' means, or a weighted mean of strata means)
    with a percentile cluster-bootstrap interval and a cluster sign-flip p-value against `null`.

    values: one number per judgment (0/1 for rates); clusters: the unit each judgment belongs to
    (question, item or pair), resampled whole with replacement. contrast: +1 / -1 per judgment, the
    estimate is mean(+1 group) - mean(-1 group) (null 0 by default). strata + weights: the estimate
    is sum_h w_h mean_h / sum_h w_h and clusters are resampled within each stratum.
    The p-value flips the sign of each cluster's deviation from the null (a randomization test over
    clusters: exact for a symmetric null, and never smaller than the clusters allow)."""
    v = np.asarray(values, dtype=float)
    ok = ~np.isnan(v)
    codes_all = _codes(clusters, len(v))
    v, codes = v[ok], codes_all[ok]
    sign = None if contrast is None else np.asarray(contrast, dtype=float)[ok]
    strat = np.zeros(len(v), dtype=int) if strata is None else _codes(np.asarray(list(strata), dtype=object)[ok], len(v))
    stratum_names = (["all"] if strata is None else
                     list(pd.unique(pd.Series(np.asarray(list(strata), dtype=object)[ok]).astype(str))))
    out = {"estimate": np.nan, "ci_low": np.nan, "ci_high": np.nan, "p": np.nan,
           "n_items": int(len(np.unique(codes))), "n_judgments": int(len(v)), "method": "cluster bootstrap"}
    if not len(v):
        return out
    rng = np.random.default_rng(seed)
    if null is None and contrast is not None:
        null = 0.0
    parts = [_stratum(v[strat == h], codes[strat == h], None if sign is None else sign[strat == h], null, rng, n_boot)
             for h in range(int(strat.max()) + 1)]
    estimates, boots, devs = zip(*parts)
    w = np.ones(1) if strata is None else np.array([float((weights or {}).get(name, 1.0 if weights is None else 0.0))
                                                     for name in stratum_names])
    est = float(np.sum(w * np.array(estimates)) / w.sum()) if w.sum() else np.nan
    boot = np.sum([wi * b for wi, b in zip(w, boots)], axis=0) / w.sum() if w.sum() else np.array([])
    boot = boot[~np.isnan(boot)]
    out["estimate"] = est
    if out["n_items"] >= 2 and len(boot):
        out["ci_low"], out["ci_high"] = (float(x) for x in np.quantile(boot, [alpha / 2, 1 - alpha / 2]))
    if null is not None and out["n_items"] >= 2 and w.sum():
        # every cluster's share of (estimate - null), strata weighted as the estimate weighs them
        d = np.concatenate([wi / w.sum() * dev for wi, dev in zip(w, devs)])
        d = d[~np.isnan(d)]
        flipped = np.abs(rng.choice([-1.0, 1.0], size=(n_boot, len(d))) @ d)
        out["p"] = float((1 + np.sum(flipped >= abs(d.sum()) - 1e-12)) / (n_boot + 1))
    return out


def _stratum(v: np.ndarray, codes: np.ndarray, sign, null, rng, n_boot: int) -> tuple:
    """One stratum of `cluster_bootstrap`: (estimate, bootstrap estimates, each cluster's share of
    estimate - null). The estimate is the mean, or with `sign` the +1 group's mean minus the -1's."""
    groups = [np.ones(len(v), bool)] if sign is None else [sign > 0, sign < 0]
    local = pd.factorize(codes)[0]  # this stratum's clusters as 0..k-1
    sums = [_cluster_sums(v, local, g) for g in groups]
    k = int(local.max()) + 1
    draws = rng.multinomial(k, np.full(k, 1.0 / k), size=n_boot)  # how often each cluster is drawn
    means = [s.sum() / c.sum() if c.sum() else np.nan for s, c in sums]
    with np.errstate(invalid="ignore", divide="ignore"):
        boot = [(draws @ s) / (draws @ c) for s, c in sums]
    if sign is None:
        center = null if null is not None else means[0]
        return means[0], boot[0], (sums[0][0] - center * sums[0][1]) / sums[0][1].sum()
    # under the null both groups share one mean: each cluster's part of the difference from it
    pooled = (sums[0][0].sum() + sums[1][0].sum()) / (sums[0][1].sum() + sums[1][1].sum())
    dev = [(s - pooled * c) / max(c.sum(), 1e-300) for s, c in sums]
    return means[0] - means[1], boot[0] - boot[1], dev[0] - dev[1]


def gee_mean(values, clusters, null: float | None = None, binary: bool | None = None,
             alpha: float = 0.05) -> dict:
    """The same mean by a GEE (statsmodels, exchangeable working correlation, robust errors): logit
    link for 0/1 rates, identity for scores; Wald interval and p against `null` on the link scale."""
    import statsmodels.api as sm

    v = np.asarray(values, dtype=float)
    ok = ~np.isnan(v)
    v, codes = v[ok], _codes(None if clusters is None else np.asarray(list(clusters), dtype=object)[ok], int(ok.sum()))
    out = {"estimate": float(v.mean()) if len(v) else np.nan, "ci_low": np.nan, "ci_high": np.nan,
           "p": np.nan, "n_items": int(len(np.unique(codes))), "n_judgments": int(len(v)), "method": "GEE"}
    binary = bool(np.isin(v, (0.0, 1.0)).all()) if binary is None else binary
    if out["n_items"] < 2 or np.ptp(v) == 0:
        return out  # no variation: a GEE has nothing to estimate
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
        out["p"] = float(2 * sps.norm.sf(abs(b - link(null)) / se))
    return out


def clustered_mean(values, clusters=None, null: float | None = None, method: str = "auto",
                   n_boot: int = 2000, seed: int = 0, alpha: float = 0.05) -> dict:
    """A rate or mean with the interval and test its unit calls for: with `method="auto"`, the plain
    Wilson interval and binomial test where every unit gives one 0/1 judgment, else the cluster
    bootstrap (`cluster_bootstrap`); `"gee"` asks `gee_mean`. Keys: estimate, ci_low, ci_high, p,
    n_items, n_judgments, method."""
    if method not in CLUSTER_METHODS:
        raise ValueError(f"method={method!r}; use one of {CLUSTER_METHODS}.")
    v = np.asarray(values, dtype=float)
    ok = ~np.isnan(v)
    codes = _codes(None if clusters is None else np.asarray(list(clusters), dtype=object)[ok], int(ok.sum()))
    one_each = len(np.unique(codes)) == int(ok.sum())
    if method == "gee":
        return gee_mean(v, clusters, null, alpha=alpha)
    if method == "auto" and one_each and np.isin(v[ok], (0.0, 1.0)).all():
        n, k = int(ok.sum()), int(v[ok].sum())
        lo, hi = wilson_ci(k, n, alpha)
        return {"estimate": k / n if n else np.nan, "ci_low": lo, "ci_high": hi,
                "p": binom_test(k, n, null) if null is not None else np.nan,
                "n_items": n, "n_judgments": n, "method": "Wilson / binomial"}
    return cluster_bootstrap(v, clusters, null=null, n_boot=n_boot, seed=seed, alpha=alpha)
