"""Length control (beyond the papers, after length-controlled AlpacaEval): a logistic model of the
reward model's preference on the length difference of the two responses (and the position shown, where
the judge saw both orders), whose length term is then taken out of each verdict: the length-controlled
accuracy is the share of verdicts that name the chosen response once the fitted length term is
subtracted from the preference's log-odds, read against the same verdicts as given (paired, the same
units).

The preference's log-odds is read, not guessed from a 0/1 verdict: a log-probability judge gives it
(log P(Choose 1) - log P(Choose 2)), and a scalar reward model's score difference is it under the
Bradley-Terry reading of its scores. So the logistic model is fitted on the log-odds scale, by least
squares (statsmodels OLS): the verdicts of a deterministic judge separate perfectly by category in a
0/1 fit, and a few very long answers decide it.

13's log-probability judges: one row per pair and order, y = log-odds of response 1, regressors
position (the intercept), quality (+1 where response 1 is the chosen one, -1 where it is the rejected
one) and the length difference (response 1 minus response 2, per 100 words). Scalar reward models: one
row per pair, y = chosen minus rejected score, quality and the length difference (chosen minus
rejected). Quality is one term per category where the pairs carry several: a judge's accuracy differs
between categories, and one category's responses may all run longer (13's abstain pairs: every chosen
response is longer), so a pooled term would leave a category's accuracy to the length term.

Interval: cluster bootstrap over questions, refitting each draw (expanded percentile,
lib.stats.expanded_alpha); p: the test the other arms make of after minus before (`paired.paired_difference`
over questions, the fitted length term held fixed). The length coefficient's own test answers another
question (is there a length term?) and read p = 1e-31 beside an interval through 0 on the simulator.
A fit that fails (no spread in length, a singular design, no finite log-odds) is said and not reported.

Generated verdicts (13's generate-and-parse judges) carry no log-odds, only which response a parsed
reply names; their model is the 0/1 logistic regression length-controlled AlpacaEval fits (statsmodels
Logit, the same regressors), and the length-controlled accuracy is the mean fitted probability of naming
the chosen response with the length term set to 0. Its score equations make the mean fitted probability
with the length term equal the share observed in each category, so after minus before is the length
term's part alone. Unparsed replies are left out; a category the judge always (or never) gets right
separates perfectly and the fit is said to fail."""
from __future__ import annotations

import numpy as np
import pandas as pd

from lib.stats import MIN_CI_UNITS, TOO_FEW_UNITS, expanded_alpha

from .arms import TABLE_COLUMNS, judge_probs
from .calibration import verdict
from .paired import paired_difference

PER_WORDS = 100.0
N_BOOT = 400
DESIGN_COLUMNS = ["question", "model", "category", "y", "pos", "quality", "length"]
MAX_LOG_ODDS = 30.0  # a log-probability of -inf (an option never given) read as this far from even


def _category(records: pd.DataFrame) -> pd.Series:
    """Each record's category ('' where the records carry none: one quality term)."""
    return records["category"].fillna("").astype(str) if "category" in records else pd.Series("", index=records.index)


def _log_odds(probs: np.ndarray) -> np.ndarray:
    """log P(response 1) - log P(response 2) of [P(1), P(2)] rows, bounded at +-MAX_LOG_ODDS."""
    with np.errstate(divide="ignore"):
        lo = np.log(probs[:, 0]) - np.log(probs[:, 1])
    return np.clip(lo, -MAX_LOG_ODDS, MAX_LOG_ODDS)


def judge_design(records: pd.DataFrame) -> pd.DataFrame:
    """13's log-probability verdicts as regression rows: question, model, category, y (log-odds of
    response 1), position, quality, length."""
    j = judge_probs(records)
    if not len(j) or not {"len_chosen", "len_rejected"} <= set(j.columns):
        return pd.DataFrame(columns=DESIGN_COLUMNS)
    ld = (j["len_chosen"].astype(float) - j["len_rejected"].astype(float)) / PER_WORDS
    cat = _category(j)
    cr = pd.DataFrame({"question": j["question"], "model": j["spec"], "category": cat,
                       "y": _log_odds(np.stack(j["p_cr"])), "pos": 1.0, "quality": 1.0, "length": ld})
    rc = pd.DataFrame({"question": j["question"], "model": j["spec"], "category": cat,
                       "y": _log_odds(np.stack(j["p_rc"])), "pos": 1.0, "quality": -1.0, "length": -ld})
    return pd.concat([cr, rc], ignore_index=True)


def scalar_design(records: pd.DataFrame) -> pd.DataFrame:
    """13's scalar reward models (two scores per pair) as regression rows (y = chosen minus rejected score)."""
    need = {"score_chosen", "score_rejected", "len_chosen", "len_rejected"}
    if not len(records) or not need <= set(records.columns):
        return pd.DataFrame(columns=DESIGN_COLUMNS)
    s = records[records["kind"] != "judge"].dropna(subset=sorted(need))
    return pd.DataFrame({"question": s["question"], "model": s["spec"], "category": _category(s),
                         "y": s["score_chosen"].astype(float) - s["score_rejected"].astype(float),
                         "pos": 0.0, "quality": 1.0,
                         "length": (s["len_chosen"].astype(float) - s["len_rejected"].astype(float)) / PER_WORDS}
                        ).reset_index(drop=True)


def generated_design(records: pd.DataFrame) -> pd.DataFrame:
    """13's generate-and-parse verdicts (parsed, per order) as regression rows: y = 1 where the verdict
    names response 1, position, quality and length as `judge_design`."""
    need = {"choice_cr", "choice_rc", "len_chosen", "len_rejected"}
    if not len(records) or not need <= set(records.columns):
        return pd.DataFrame(columns=DESIGN_COLUMNS)
    g = records[(records["kind"] == "judge") & (records["choice_cr"].notna() | records["choice_rc"].notna())]
    ld = (g["len_chosen"].astype(float) - g["len_rejected"].astype(float)) / PER_WORDS
    parts = []
    for col, quality, sign in (("choice_cr", 1.0, 1.0), ("choice_rc", -1.0, -1.0)):
        keep = g[col].notna()
        parts.append(pd.DataFrame({"question": g["question"], "model": g["spec"], "category": _category(g),
                                   "y": (g[col] == 1).astype(float), "pos": 1.0, "quality": quality,
                                   "length": sign * ld})[keep])
    return pd.concat(parts, ignore_index=True)


def _matrix(rows: pd.DataFrame) -> np.ndarray:
    """The regressors, length last: position where both orders were seen, quality per category (the
    intercepts of scalar rows), authorship where the rows carry it and it varies (08's `own`: own
    passage 1 minus own passage 2), the length difference."""
    cats = pd.Categorical(rows["category"] if "category" in rows else np.zeros(len(rows)))
    quality = pd.get_dummies(cats).to_numpy(float) * rows["quality"].to_numpy(float)[:, None]
    pos = [rows["pos"].to_numpy(float)[:, None]] if rows["pos"].any() else []
    own = [rows["own"].to_numpy(float)[:, None]] if "own" in rows and rows["own"].any() else []
    return np.hstack(pos + [quality] + own + [rows["length"].to_numpy(float)[:, None]])


MAX_BINARY_COEF = 15.0  # log-odds: a 0/1 fit's coefficient beyond this is a (quasi-)separated category


def _fit(rows: pd.DataFrame, robust: bool = False, binary: bool = False):
    """The least-squares fit on the log-odds, or with `binary` the 0/1 logistic fit (statsmodels);
    None when it fails."""
    import warnings

    import statsmodels.api as sm

    x, y = _matrix(rows), rows["y"].to_numpy(float)
    if rows["length"].std() == 0 or not np.isfinite(y).all() or np.linalg.matrix_rank(x) < x.shape[1]:
        return None
    kw = {"cov_type": "cluster", "cov_kwds": {"groups": pd.factorize(rows["question"])[0]}} if robust else {}
    if not binary:
        fit = sm.OLS(y, x).fit(**kw)
        return fit if np.all(np.isfinite(fit.params)) else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a separated fit warns; it is refused below
        try:
            fit = sm.Logit(y, x).fit(disp=0, **kw)
        except (np.linalg.LinAlgError, ValueError, sm.tools.sm_exceptions.PerfectSeparationError):
            return None
    ok = np.all(np.isfinite(fit.params)) and np.abs(fit.params).max() < MAX_BINARY_COEF
    return fit if ok else None


def _change(rows: pd.DataFrame, fit, binary: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Per row, whether its verdict names the chosen response as given and once the fitted length
    term is taken out of its log-odds (0.5 on an exact tie); with `binary`, after is the fitted
    probability of naming the chosen response with the length term at 0."""
    length_coef = fit.params[-1]
    toward_chosen = np.where(rows["quality"] > 0, 1.0, -1.0)
    if binary:
        before = np.where(toward_chosen > 0, rows["y"], 1 - rows["y"]).astype(float)
        eta = _matrix(rows) @ fit.params - length_coef * rows["length"].to_numpy(float)
        return before, 1 / (1 + np.exp(-eta * toward_chosen))
    y = rows["y"].to_numpy(float) * toward_chosen
    after = y - length_coef * rows["length"].to_numpy(float) * toward_chosen
    return verdict(1 / (1 + np.exp(-y))), verdict(1 / (1 + np.exp(-after)))


def length_controlled(rows: pd.DataFrame, n_boot: int = N_BOOT, seed: int = 0, binary: bool = False) -> dict:
    """before (accuracy of the verdicts given), after (with the fitted length term taken out), their
    difference with a cluster-bootstrap interval and the test of that difference over questions; `failed`
    says why a fit failed; `binary`: rows of 0/1 verdicts (`generated_design`)."""
    out = {"n": int(rows["question"].nunique()), "n_judgments": len(rows), "before": np.nan, "after": np.nan,
           "diff": np.nan, "ci_low": np.nan, "ci_high": np.nan, "p": np.nan, "ci_note": "", "failed": "",
           "length_coef": np.nan}
    fit = _fit(rows, robust=True, binary=binary)
    if fit is None:
        out["failed"] = "the length model did not fit (no spread in length or a singular design): not reported"
        return out
    before, after = _change(rows, fit, binary)
    out.update(before=float(before.mean()), after=float(after.mean()), diff=float((after - before).mean()),
               p=float(paired_difference(before, after, rows["question"])["p"]), length_coef=float(fit.params[-1]))
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
        f = _fit(sample, binary=binary)
        if f is not None:
            b, a = _change(sample, f, binary)
            draws.append(float((a - b).mean()))
    if len(draws) < 0.9 * n_boot:  # many failed refits: the interval would describe the lucky draws only
        out["ci_note"] = f"only {len(draws)} of {n_boot} bootstrap refits fitted: no interval"
        return out
    a = expanded_alpha(0.05, len(qs))
    out["ci_low"], out["ci_high"] = (float(x) for x in np.quantile(draws, [a / 2, 1 - a / 2]))
    return out


def fitted_rows(design: pd.DataFrame, binary: bool, source: str, quantity: str, failed: str,
                n_boot: int = N_BOOT) -> tuple[list[dict], list[str]]:
    """One arm row per model of a design (`length_controlled`), and `failed` (formatted with the model)
    for each model whose fit failed."""
    rows, notes = [], []
    for model, g in design.groupby("model", sort=False):
        got = length_controlled(g, n_boot=n_boot, binary=binary)
        if got.pop("failed"):
            notes.append(failed.format(model=model))
            continue
        got.pop("length_coef")
        rows.append({"arm": "length_control", "source": source, "quantity": quantity, "model": model, **got})
    return rows, notes


def length_rows(records: pd.DataFrame, n_boot: int = N_BOOT) -> tuple[pd.DataFrame, list[str]]:
    """One row per reward model of 13 (log-probability judges, scalar models, generate-and-parse
    judges), and one sentence per failed fit."""
    rows, notes = [], []
    for design, binary in ((judge_design(records), False), (scalar_design(records), False),
                           (generated_design(records), True)):
        why = ("a category separates the 0/1 verdicts, no spread in length or a singular design" if binary
               else "no spread in length or a singular design")
        got, failed = fitted_rows(design, binary, "13", "accuracy", "{model}: the length model did not fit (" + why
                                  + "); its length-controlled accuracy is not reported.", n_boot)
        rows, notes = rows + got, notes + failed
    return pd.DataFrame(rows, columns=TABLE_COLUMNS), notes
