"""Each arm's per-judgment before / after values and their paired table (one row per arm, source,
quantity and model: before, after, after minus before with its clustered interval).

Units: 06's pair (a question, evaluator, other author and factuality combination; its two orders are
one unit for balanced calibration) and 13's pair, both clustered on their question; 05's question per
evaluator and setting (human minus own rating); 12's question per model (order averaging)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .calibration import balanced, contextual, expected_score, option_probs, tempered, verdict
from .paired import COLUMNS, paired_rows

KEYS = ["arm", "source", "quantity", "model"]
TABLE_COLUMNS = KEYS + COLUMNS
PAIR_UNIT = ["question", "evaluator", "b_author", "combo"]


def _empty() -> pd.DataFrame:
    return pd.DataFrame(columns=TABLE_COLUMNS)


def _stack(parts: list[pd.DataFrame]) -> pd.DataFrame:
    parts = [p for p in parts if len(p)]
    return pd.concat(parts, ignore_index=True)[TABLE_COLUMNS] if parts else _empty()


def _rows(values: pd.DataFrame, arm: str, source: str, quantity: str, model_col: str) -> pd.DataFrame:
    got = paired_rows(values.rename(columns={model_col: "model"}), ["model"], "before", "after",
                      arm=arm, source=source, quantity=quantity)
    return got.reindex(columns=TABLE_COLUMNS)


# ---------------------------------------------------------------- 06: balanced calibration

def pairwise_units(pairs: pd.DataFrame) -> pd.DataFrame:
    """Per 06 pair with both orders decided by likelihood: P(A) in each order, the per-order verdicts
    (`v_a_first`, `v_b_first`: 1 = passage A) and the balanced verdict (`v_balanced`)."""
    if not len(pairs):
        return pd.DataFrame(columns=PAIR_UNIT + ["a_fact", "b_fact", "v_a_first", "v_b_first", "v_balanced"])
    p = pairs.assign(p_a=option_probs(pairs[["lp_a", "lp_b"]].to_numpy(float))[:, 0])
    wide = p.pivot_table(index=PAIR_UNIT + ["a_fact", "b_fact"], columns="order", values="p_a", aggfunc="first")
    wide = wide.dropna(subset=[c for c in ("a_first", "b_first") if c in wide]).reset_index()
    if not {"a_first", "b_first"} <= set(wide.columns):
        return pairwise_units(pairs.iloc[:0])
    return wide.assign(v_a_first=verdict(wide["a_first"]), v_b_first=verdict(wide["b_first"]),
                       v_balanced=verdict(balanced(wide["a_first"], wide["b_first"])))


def balanced_pairwise(pairs: pd.DataFrame) -> pd.DataFrame:
    """06 before (both orders' verdicts, the paper's count) and after balanced calibration: self
    preference (share choosing A), factual preference (share choosing the true passage where one is
    false), first-position preference, and the share of per-order verdicts the calibration flips."""
    u = pairwise_units(pairs)
    if not len(u):
        return _empty()
    before_a = (u["v_a_first"] + u["v_b_first"]) / 2
    true_a = u["a_fact"] == "true"
    asym = u["a_fact"] != u["b_fact"]
    first_before = (u["v_a_first"] + (1 - u["v_b_first"])) / 2
    first_after = (u["v_balanced"] + (1 - u["v_balanced"])) / 2  # one verdict for both orders: 0.5 by construction
    flips = ((u["v_a_first"] - u["v_balanced"]).abs() + (u["v_b_first"] - u["v_balanced"]).abs()) / 2
    views = {"self": (before_a, u["v_balanced"], slice(None)),
             "factual": (before_a.where(true_a, 1 - before_a), u["v_balanced"].where(true_a, 1 - u["v_balanced"]), asym),
             "position": (first_before, first_after, slice(None)),
             "flipped": (pd.Series(0.0, index=u.index), flips, slice(None))}
    parts = [_rows(u.assign(before=b, after=a)[m], "balanced", "06", q, "evaluator") for q, (b, a, m) in views.items()]
    return _stack(parts)


# ---------------------------------------------------------------- 13: balanced and contextual calibration

def judge_probs(records: pd.DataFrame) -> pd.DataFrame:
    """13's log-probability judges: per pair the option probabilities in each order (`p_cr`: chosen
    shown first, `p_rc`: rejected first; each [P(Choose 1), P(Choose 2)])."""
    if not len(records) or "logprobs_cr" not in records:
        return pd.DataFrame(columns=["rm", "spec", "question", "id", "p_cr", "p_rc"])
    lp = records[records["logprobs_cr"].map(lambda v: isinstance(v, list) and len(v) == 2 and not np.isnan(v).any())
                 & records["logprobs_rc"].map(lambda v: isinstance(v, list) and len(v) == 2 and not np.isnan(v).any())]
    return lp.assign(p_cr=list(option_probs(np.stack(lp["logprobs_cr"].tolist()))) if len(lp) else [],
                     p_rc=list(option_probs(np.stack(lp["logprobs_rc"].tolist()))) if len(lp) else [])


def _judge_views(j: pd.DataFrame, chosen_cr, chosen_rc, after_chosen_cr, after_chosen_rc, arm: str) -> pd.DataFrame:
    """Accuracy, position (share naming response 1) and flips of 13's verdicts before / after, where
    the arguments are P(chosen) in each order before and after the arm."""
    v_cr, v_rc = verdict(chosen_cr), verdict(chosen_rc)
    a_cr, a_rc = verdict(after_chosen_cr), verdict(after_chosen_rc)
    views = {"accuracy": ((v_cr + v_rc) / 2, (a_cr + a_rc) / 2),
             "position": ((v_cr + 1 - v_rc) / 2, (a_cr + 1 - a_rc) / 2),
             "flipped": (np.zeros(len(j)), (np.abs(v_cr - a_cr) + np.abs(v_rc - a_rc)) / 2)}
    return _stack([_rows(j.assign(before=b, after=a), arm, "13", q, "spec") for q, (b, a) in views.items()])


def balanced_judge(records: pd.DataFrame) -> pd.DataFrame:
    """13's log-probability judges before (each order's verdict, the paper's swap-and-average) and
    after balanced calibration (P(chosen) averaged over the orders, one verdict)."""
    j = judge_probs(records)
    if not len(j):
        return _empty()
    cr, rc = np.stack(j["p_cr"])[:, 0], np.stack(j["p_rc"])[:, 1]
    both = balanced(cr, rc)
    return _judge_views(j, cr, rc, both, both, "balanced")


def contextual_judge(records: pd.DataFrame, priors: dict) -> pd.DataFrame:
    """13's log-probability judges before and after contextual calibration: in each order the
    option probabilities divided by the judge's content-free prior ({spec: [P(1), P(2)]})."""
    j = judge_probs(records)
    j = j[j["spec"].isin(list(priors))] if len(j) else j
    if not len(j):
        return _empty()
    p_cr, p_rc = np.stack(j["p_cr"]), np.stack(j["p_rc"])
    pri = np.stack([priors[s] for s in j["spec"]])
    return _judge_views(j, p_cr[:, 0], p_rc[:, 1], contextual(p_cr, pri)[:, 0], contextual(p_rc, pri)[:, 1],
                        "contextual")


# ---------------------------------------------------------------- 05: contextual calibration, temperature

def human_minus_self(ratings: pd.DataFrame, score: pd.Series) -> pd.DataFrame:
    """Per question, evaluator and setting: the human true passage's score minus the evaluator's own
    true passage's (v2 Table 2's Diff), for the score given per rating row."""
    r = ratings.assign(s=score.to_numpy(float))
    r = r[r["factuality"] == "true"]
    human = r[r["author"] == "human"].groupby(["question", "evaluator", "setting"])["s"].mean()
    own = r[r["author"] == r["evaluator"]].groupby(["question", "evaluator", "setting"])["s"].mean()
    return (human - own).dropna().rename("diff").reset_index()


def _pointwise_rows(ratings: pd.DataFrame, after_probs: np.ndarray, arm: str) -> pd.DataFrame:
    before = human_minus_self(ratings, pd.Series(expected_score(np.stack(ratings["lik_probs"]))))
    after = human_minus_self(ratings, pd.Series(expected_score(after_probs)))
    both = before.merge(after, on=["question", "evaluator", "setting"], suffixes=("_b", "_a"))
    both = both.rename(columns={"diff_b": "before", "diff_a": "after"})
    return _stack([_rows(g, arm, "05", f"human_minus_self_{s}", "evaluator") for s, g in both.groupby("setting")])


def contextual_pointwise(ratings: pd.DataFrame, priors: dict) -> pd.DataFrame:
    """05's human-minus-own expected score before and after dividing out the evaluator's content-free
    prior over "1".."5" ({(evaluator, setting): five probabilities})."""
    r = ratings[[(e, s) in priors for e, s in zip(ratings["evaluator"], ratings["setting"])]] if len(ratings) else ratings
    if not len(r):
        return _empty()
    probs = np.stack(r["lik_probs"])
    pri = np.stack([priors[(e, s)] for e, s in zip(r["evaluator"], r["setting"])])
    return _pointwise_rows(r.reset_index(drop=True), contextual(probs, pri), "contextual")


def temperature_pointwise(ratings: pd.DataFrame, temperature: float) -> pd.DataFrame:
    """05's human-minus-own expected score before and after temperature scaling of the log-probabilities."""
    if not len(ratings):
        return _empty()
    r = ratings.reset_index(drop=True)
    logp = np.log(np.clip(np.stack(r["lik_probs"]), 1e-300, None))
    return _pointwise_rows(r, tempered(logp, temperature), "temperature")


# ---------------------------------------------------------------- 12: listwise order averaging

ORDER_VIEWS = ("gt_hit", "flipped", "first_shown")


def order_units(runs: pd.DataFrame) -> pd.DataFrame:
    """Per 12 question and model with at least two runs, before (run 0's selection, one shuffle) and
    after (the vote over all runs, as 12 recorded it): a ground-truth passage selected (`gt_hit`),
    the share of passages whose selected status differs (`flipped`, 0 before), and the passage shown
    first selected (`first_shown`: before run 0's own first; after the share of the runs whose first
    passage the vote selects). A failed run 0 selects nothing, as 12 hands over nothing."""
    rows = []
    for r in runs.to_dict("records"):
        if len(r["orders"]) < 2:  # one run: nothing to average over
            continue
        first, voted, gt = set(r["selected"][0] or []), set(r["voted"]), set(r["ground_truth"])
        shown_first = [order[0] for order in r["orders"]]
        rows.append({"model": r["model"], "question": r["question"], "k": len(r["orders"]),
                     "gt_hit": (float(bool(first & gt)), float(bool(voted & gt))),
                     "flipped": (0.0, len(first ^ voted) / len(r["orders"][0])),
                     "first_shown": (float(shown_first[0] in first), float(np.mean([i in voted for i in shown_first])))})
    return pd.DataFrame(rows, columns=["model", "question", "k", *ORDER_VIEWS])


def order_averaged(runs: pd.DataFrame) -> pd.DataFrame:
    """12's listwise-set utility judgments before (one shuffle, run 0) and after the vote over the k
    shuffles (the utility paper's k-sampling): `gt_hit`, `flipped` and `first_shown` (`order_units`)."""
    u = order_units(runs)
    if not len(u):
        return _empty()
    return _stack([_rows(u.assign(before=u[q].str[0], after=u[q].str[1]), "order_averaged", "12", q, "model")
                   for q in ORDER_VIEWS])
