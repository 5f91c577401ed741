"""Length control (beyond the papers, after length-controlled AlpacaEval): a logistic model of the
judge's preference on the length difference of the two responses (and the position shown, where the
judge saw both orders), whose length term is then set to zero: the length-controlled accuracy is the
model's mean P(chosen preferred) at equal lengths, compared with the same model at the observed lengths
(which equals the observed accuracy: the fit's score equations hold it).

13's log-probability judges: one row per pair and order, y = response 1 named, regressors position
(the intercept), quality (+1 where response 1 is the chosen one, -1 where it is the rejected one) and
the length difference (response 1 minus response 2, per 100 words). Scalar reward models: one row per
pair, y = the chosen response scored higher, the intercept and the length difference (chosen minus
rejected). Interval: cluster bootstrap over questions, refitting each draw (expanded percentile,
lib.stats.expanded_alpha); p: the length coefficient's cluster-robust Wald test (no length effect is no
change). A fit that fails (no convergence, separation, no spread in length) is said and not reported."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from lib.stats import MIN_CI_UNITS, TOO_FEW_UNITS, expanded_alpha

from .arms import TABLE_COLUMNS, judge_probs
from .calibration import verdict

PER_WORDS = 100.0
MAX_COEF = 8.0  # a larger log-odds coefficient per unit means (quasi-)separation, not an estimate
N_BOOT = 400


def judge_design(records: pd.DataFrame) -> pd.DataFrame:
    """13's log-probability verdicts as regression rows: question, model, y, position, quality, length."""
    j = judge_probs(records)
    if not len(j) or not {"len_chosen", "len_rejected"} <= set(j.columns):
        return pd.DataFrame(columns=["question", "model", "y", "pos", "quality", "length"])
    ld = (j["len_chosen"].astype(float) - j["len_rejected"].astype(float)) / PER_WORDS
    cr = pd.DataFrame({"question": j["question"], "model": j["spec"], "y": verdict(np.stack(j["p_cr"])[:, 0]),
                       "pos": 1.0, "quality": 1.0, "length": ld})
    rc = pd.DataFrame({"question": j["question"], "model": j["spec"], "y": verdict(np.stack(j["p_rc"])[:, 0]),
                       "pos": 1.0, "quality": -1.0, "length": -ld})
    both = pd.concat([cr, rc], ignore_index=True)
    return both[both["y"] != 0.5].reset_index(drop=True)  # an exact tie names neither response


def scalar_design(records: pd.DataFrame) -> pd.DataFrame:
    """13's scalar reward models (two scores per pair) as regression rows (y = chosen scored higher)."""
    need = {"score_chosen", "score_rejected", "len_chosen", "len_rejected"}
    if not len(records) or not need <= set(records.columns):
        return pd.DataFrame(columns=["question", "model", "y", "pos", "quality", "length"])
    s = records[records["kind"] != "judge"].dropna(subset=sorted(need))
    s = s[s["score_chosen"].astype(float) != s["score_rejected"].astype(float)]
    return pd.DataFrame({"question": s["question"], "model": s["spec"],
                         "y": (s["score_chosen"].astype(float) > s["score_rejected"].astype(float)).astype(float),
                         "pos": 0.0, "quality": 1.0,
                         "length": (s["len_chosen"].astype(float) - s["len_rejected"].astype(float)) / PER_WORDS}
                        ).reset_index(drop=True)


def _columns(rows: pd.DataFrame) -> list[str]:
    """The regressors: quality (the intercept of scalar rows), position where both orders were seen, length."""
    return (["pos"] if rows["pos"].any() else []) + ["quality", "length"]


def _fit(rows: pd.DataFrame, robust: bool = False):
    """The logistic fit (statsmodels) or None when it fails."""
    import statsmodels.api as sm

    cols = _columns(rows)
    if rows["length"].std() == 0 or rows["y"].nunique() < 2:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            kw = {"cov_type": "cluster", "cov_kwds": {"groups": pd.factorize(rows["question"])[0]}} if robust else {}
            fit = sm.Logit(rows["y"].to_numpy(float), rows[cols].to_numpy(float)).fit(disp=0, maxiter=100, **kw)
        except Exception:  # singular design or separation: a failed fit, said by the caller
            return None
    if not fit.mle_retvals.get("converged", False) or not np.all(np.isfinite(fit.params)) or np.abs(fit.params).max() > MAX_COEF:
        return None
    return fit


def _accuracies(rows: pd.DataFrame, params: np.ndarray) -> tuple[float, float]:
    """Model accuracy at the observed lengths and with the length term at zero."""
    x = rows[_columns(rows)].to_numpy(float)
    correct_is_y = (rows["quality"] > 0).to_numpy()
    def acc(eta):
        p = 1 / (1 + np.exp(-eta))
        return float(np.where(correct_is_y, p, 1 - p).mean())
    return acc(x @ params), acc(x[:, :-1] @ params[:-1])


def length_controlled(rows: pd.DataFrame, n_boot: int = N_BOOT, seed: int = 0) -> dict:
    """before (accuracy at observed lengths), after (at equal lengths), their difference with a
    cluster-bootstrap interval and the length coefficient's robust p; `failed` says why a fit failed."""
    out = {"n": int(rows["question"].nunique()), "n_judgments": len(rows), "before": np.nan, "after": np.nan,
           "diff": np.nan, "ci_low": np.nan, "ci_high": np.nan, "p": np.nan, "ci_note": "", "failed": "",
           "length_coef": np.nan}
    fit = _fit(rows, robust=True)
    if fit is None:
        out["failed"] = "the logistic fit failed (no convergence, separation or no spread in length): not reported"
        return out
    before, after = _accuracies(rows, fit.params)
    out.update(before=before, after=after, diff=after - before, p=float(fit.pvalues[-1]),
               length_coef=float(fit.params[-1]))
    qs = rows["question"].unique()
    if len(qs) < MIN_CI_UNITS or n_boot < 1:
        out["ci_note"] = TOO_FEW_UNITS if n_boot else "no bootstrap asked for: no interval"
        return out
    rows = rows.reset_index(drop=True)
    members = list(rows.groupby("question").indices.values())  # row positions of each question
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(n_boot):
        sample = rows.iloc[np.concatenate([members[i] for i in rng.integers(0, len(members), len(members))])]
        f = _fit(sample)
        if f is not None:
            b, a = _accuracies(sample, f.params)
            draws.append(a - b)
    if len(draws) < 0.9 * n_boot:  # many failed refits: the interval would describe the lucky draws only
        out["ci_note"] = f"only {len(draws)} of {n_boot} bootstrap refits converged: no interval"
        return out
    a = expanded_alpha(0.05, len(qs))
    out["ci_low"], out["ci_high"] = (float(x) for x in np.quantile(draws, [a / 2, 1 - a / 2]))
    return out


def length_rows(records: pd.DataFrame, n_boot: int = N_BOOT) -> tuple[pd.DataFrame, list[str]]:
    """One row per reward model of 13 (log-probability judges and scalar models), and one sentence per
    failed fit."""
    rows, notes = [], []
    for design in (judge_design(records), scalar_design(records)):
        for model, g in design.groupby("model", sort=False):
            got = length_controlled(g, n_boot=n_boot)
            if got.pop("failed"):
                notes.append(f"{model}: the length model did not fit (no convergence, separation or no spread "
                             "in length); its length-controlled accuracy is not reported.")
                continue
            got.pop("length_coef")
            rows.append({"arm": "length_control", "source": "13", "quantity": "accuracy", "model": model, **got})
    return pd.DataFrame(rows, columns=TABLE_COLUMNS), notes
